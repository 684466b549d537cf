"""Helpers shared by the dialect definitions: attribute builders and verifier checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, BuiltinAttribute
from xdsl.irdl import AttrConstraint, IRDLOperation, VerificationContext, opt_prop_def, prop_def
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from compiler.ir.build import FastBuilt
from compiler.ir.typed import elem_of

#: Integer lists (strides, pads, ...) are i64 dense arrays: `array<i64: 1, 1, 1, 1>`.
I64Array = DenseArrayBase.constr(i64)


_INT_ARRAY_CACHE: dict[tuple[int, ...], DenseArrayBase] = {}


def int_array(values: Sequence[int]) -> DenseArrayBase:
    # attributes are immutable: one per distinct list of plain ints (strides, pads, shapes...)
    key = tuple(values)
    got = _INT_ARRAY_CACHE.get(key)
    if got is not None and all(type(v) is int for v in key):
        return got
    got = DenseArrayBase.from_list(i64, list(key))
    if len(_INT_ARRAY_CACHE) < 65536 and all(type(v) is int for v in key):
        _INT_ARRAY_CACHE[key] = got
    return got


_I64_CACHE: dict[int, IntegerAttr] = {}


def i64_attr(value: int) -> IntegerAttr:
    """IntegerAttr(value, i64), one per distinct plain int (attributes are immutable; building
    and verifying one costs more than the lookup: tiling fields, loop bounds, kernel params)."""
    got = _I64_CACHE.get(value)
    if got is not None and type(value) is int:
        return got
    got = IntegerAttr(value, i64)
    if type(value) is int and len(_I64_CACHE) < 65536:
        _I64_CACHE[value] = got
    return got


_DICT_CACHE: dict[tuple[tuple[str, int], ...], tuple[DictionaryAttr, tuple[Attribute, ...]]] = {}


def dict_attr(entries: Mapping[str, Attribute]) -> DictionaryAttr:
    """DictionaryAttr(entries), one per distinct sequence of (name, attribute object): the
    params of the ~10^4 loads and stores of a kernel body repeat (the printer's memo, keyed by
    identity, then prints each once).  The key is the entries' identities; the cache entry
    holds the entries, so no id is reused while it is cached."""
    key = tuple((k, id(v)) for k, v in entries.items())
    hit = _DICT_CACHE.get(key)
    if hit is not None:
        return hit[0]
    got = DictionaryAttr(dict(entries))
    if len(_DICT_CACHE) < 65536:
        _DICT_CACHE[key] = (got, tuple(entries.values()))
    return got


_STRING_CACHE: dict[str, StringAttr] = {}


def string_attr(text: str) -> StringAttr:
    """StringAttr(text), one per distinct str (a kernel body's vec fn names repeat)."""
    got = _STRING_CACHE.get(text)
    if got is None or type(text) is not str:
        got = StringAttr(text)
        if type(text) is str and len(_STRING_CACHE) < 65536:
            _STRING_CACHE[text] = got
    return got


#: id(array attribute) -> (the attribute, its ints): attributes are immutable, and unpacking one
#: costs ten lookups (a conv's strides / pads are read by every pass that looks at the conv).
#: The entry holds the attribute, so no id is reused while it is cached.
_INTS: dict[int, tuple[Attribute, tuple[int, ...]]] = {}


def ints(attr: Attribute) -> tuple[int, ...]:
    hit = _INTS.get(id(attr))
    if hit is not None and hit[0] is attr:
        return hit[1]
    if not isinstance(attr, DenseArrayBase):
        raise TypeError(f"expected a dense array attribute, got {attr}")
    got = tuple(int(v) for v in cast("DenseArrayBase[IntegerType]", attr).get_values())
    if len(_INTS) < 65536:
        _INTS[id(attr)] = (attr, got)
    return got


def check_len(op_name: str, attr_name: str, attr: DenseArrayBase, n: int) -> tuple[int, ...]:
    vals = ints(attr)
    if len(vals) != n:
        raise VerifyException(f"{op_name}: '{attr_name}' must have {n} values, got {len(vals)}")
    return vals


def check_one_of(op_name: str, attr_name: str, attr: StringAttr | EnumAttribute,
                 allowed: Sequence[str]) -> str:
    """The value of `attr` if it is one of `allowed`, else a verifier error listing them.  For a
    closed set the attribute is an enum (below) and this checks an op's subset of it (Conv2D's
    data formats, cube_conv2d's activations, a recurrent op's gate orders); the tf dialect's
    attributes stay TensorFlow's strings (they mirror the GraphDef) and are checked here."""
    if attr.data not in allowed:
        raise VerifyException(
            f"{op_name}: '{attr_name}' must be one of {', '.join(allowed)}; got '{attr.data}'")
    return attr.data


# --- closed sets: xDSL EnumAttributes written as string literals ---------------------------
#
# An attribute whose values form a closed set (an activation, a data format, a load view, ...) is
# an `EnumAttribute[StrEnum]` mixed with `StringLiteralEnum`: it prints as the string literal of
# its member (`activation = "Relu"`, the text the IR always had) instead of xDSL's
# `#cann.activation<Relu>`, and an op deriving from `EnumProperties` takes a string literal (or
# any StringAttr given to its builder) naming a member of the property's enum as that member.  A
# string naming no member stays a StringAttr and the op's verifier reports it in one line with the
# allowed values.  Code compares `op.activation.data` (the StrEnum member) with the enum's members.


class StringLiteralEnum(BuiltinAttribute):
    """Mixin of an `EnumAttribute` subclass: printed as the string literal of its member."""

    enum_type: type[StrEnum]

    def print_builtin(self, printer: Printer) -> None:
        printer.print_string_literal(self.data.value)  # type: ignore[attr-defined]

    @classmethod
    def of(cls, value: str):
        """The attribute of the member named `value` (a member or its string)."""
        cache = _ENUM_ATTR_CACHE.setdefault(cls, {})
        got = cache.get(value)
        if got is None:
            got = cache[value] = cls(cls.enum_type(value))  # type: ignore[call-arg]
        return got


def string_enum_attr(name: str, enum: type[StrEnum], cls_name: str | None = None
                     ) -> type[StringLiteralEnum]:
    """The closed-set attribute `name` of `enum`'s members, `class <enum>Attr(EnumAttribute[enum],
    StringLiteralEnum)` registered with irdl_attr_definition (xDSL allows no base class between
    EnumAttribute and it), defined in the calling module:
    `DataFormatAttr = string_enum_attr("cann.data_format", DataFormat)`."""
    import sys
    import types

    from xdsl.irdl import irdl_attr_definition

    cls_name = cls_name or f"{enum.__name__}Attr"
    module = sys._getframe(1).f_globals["__name__"]
    doc = (f"A `{enum.__name__}` member, printed as its string literal (dialects/common.py: "
           "closed sets).")

    def body(ns: dict) -> None:
        ns.update(name=name, __doc__=doc, __module__=module, __qualname__=cls_name)

    cls = types.new_class(cls_name, (EnumAttribute[enum], StringLiteralEnum), {}, body)  # type: ignore[valid-type]
    return irdl_attr_definition(cls)


_ENUM_ATTR_CACHE: dict[type, dict[str, Attribute]] = {}
_ENUM_PROPS: dict[type, dict[str, type]] = {}


@dataclass(frozen=True)
class EnumOrItsString(AttrConstraint):
    """The property constraint of `enum_prop`: the enum attribute, or a StringAttr (xDSL's
    custom-format parser checks constraints before the op is built; `EnumProperties` turns a
    member's string into the member and reports any other string with the allowed values)."""

    attr: type[Attribute]

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if not isinstance(attr, (self.attr, StringAttr)):
            raise VerifyException(f"{attr} should be of base attribute {self.attr.name}")

    def mapping_type_vars(self, type_var_mapping: Mapping) -> AttrConstraint:
        return self

    @property
    def type_only_bases(self) -> tuple[type[Attribute], ...]:
        """The constraint holds exactly for instances of these (compiler.ir.fast_verify)."""
        return (self.attr, StringAttr)


def enum_prop(attr_type: type):
    """A property holding a member of `attr_type`'s enum (an op deriving from EnumProperties)."""
    return prop_def(EnumOrItsString(attr_type))


def opt_enum_prop(attr_type: type):
    """An optional `enum_prop`."""
    return opt_prop_def(EnumOrItsString(attr_type))


def enum_properties(op_type: type[IRDLOperation]) -> dict[str, type]:
    """{property name: its StringLiteralEnum attribute class} of an op type."""
    got = _ENUM_PROPS.get(op_type)
    if got is None:
        got = {}
        for name, d in op_type.get_irdl_definition().properties.items():
            c = d.constr
            if isinstance(c, EnumOrItsString):
                got[name] = c.attr
        _ENUM_PROPS[op_type] = got
    return got


def string_value(attr: Attribute | None) -> str | None:
    """The string of a StringAttr or of a closed-set attribute; else None (for code reading a
    property that is a free string on some ops and an enum on others)."""
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, StringLiteralEnum):
        return attr.data.value  # type: ignore[attr-defined]
    return None


def enum_values(attr_type: type[StringLiteralEnum]) -> tuple[str, ...]:
    return tuple(m.value for m in attr_type.enum_type)


class EnumProperties(FastBuilt):
    """An op with closed-set properties: a StringAttr naming a member becomes the member's
    attribute when the op is built (parsed, created, cloned); one naming none is a verifier error
    listing the allowed values."""

    def __post_init__(self):
        for name, attr_type in enum_properties(type(self)).items():
            v = self.properties.get(name)
            if type(v) is attr_type:  # already the member's attribute (no StringAttr)
                continue
            if isinstance(v, StringAttr) and v.data in attr_type.enum_type._value2member_map_:
                self.properties[name] = attr_type.of(v.data)
        super().__post_init__()

    def verify(self, verify_nested_ops: bool = True) -> None:
        for name, attr_type in enum_properties(type(self)).items():
            v = self.properties.get(name)
            if isinstance(v, StringAttr):
                raise VerifyException(f"{self.name}: '{name}' must be one of "
                                      f"{', '.join(enum_values(attr_type))}; got '{v.data}'")
        super().verify(verify_nested_ops)


def tensor_type(value_type: Attribute, op_name: str, what: str) -> TensorType:
    if not isinstance(value_type, TensorType):
        raise VerifyException(f"{op_name}: {what} must be a tensor, got {value_type}")
    return value_type


def check_rank(op_name: str, what: str, shape: Sequence[int], ranks: Sequence[int]) -> None:
    if len(shape) not in ranks:
        want = " or ".join(str(r) for r in ranks)
        raise VerifyException(f"{op_name}: {what} must have rank {want}, got rank {len(shape)}")


def check_same_element_type(op_name: str, *types: Attribute) -> None:
    first = elem_of(types[0]) if types else None
    if all(elem_of(t) == first for t in types[1:]):
        return  # (equal types print alike: no printing when they are one type)
    elts = {str(elem_of(t)) for t in types}
    if len(elts) > 1:
        raise VerifyException(
            f"{op_name}: operands and results must have one element type, got {', '.join(sorted(elts))}")


def dims_compatible(a: int, b: int) -> bool:
    return a < 0 or b < 0 or a == b


# --- numpy <-> xDSL element types ----------------------------------------------------------

_NP_OF = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "ui8": np.uint8, "i1": np.bool_,
}


_DTYPE_CACHE: dict[Attribute, np.dtype] = {}


def numpy_dtype(element_type: Attribute) -> np.dtype:
    # str() of an attribute runs the printer: cached per (immutable, hashable) element type
    got = _DTYPE_CACHE.get(element_type)
    if got is not None:
        return got
    got = _numpy_dtype(element_type)
    _DTYPE_CACHE[element_type] = got
    return got


def _numpy_dtype(element_type: Attribute) -> np.dtype:
    key = str(element_type)
    if key == "bf16":
        import ml_dtypes  # numpy has no bfloat16; ml_dtypes (a TensorFlow dependency) does

        return np.dtype(ml_dtypes.bfloat16)
    if key not in _NP_OF:
        raise ValueError(f"element type {key} has no numpy equivalent here")
    return np.dtype(_NP_OF[key])


def element_type_of(dtype: np.dtype) -> IntegerType | AnyFloat:
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        return Float16Type()
    if dtype == np.float32:
        return Float32Type()
    if dtype == np.float64:
        return Float64Type()
    if dtype.name == "bfloat16":
        return BFloat16Type()
    if dtype == np.bool_:
        return IntegerType(1)
    if dtype.kind == "i":
        return IntegerType(dtype.itemsize * 8)
    if dtype.kind == "u":
        return IntegerType(dtype.itemsize * 8, Signedness.UNSIGNED)
    raise ValueError(f"numpy dtype {dtype} has no element type here")


def dense_type_of(array: np.ndarray) -> TensorType[IntegerType | AnyFloat]:
    """The type `dense_from_numpy(array)` has (ValueError for a dtype with no element type)."""
    array = np.asarray(array)
    key = (array.dtype, array.shape)
    typ = _DENSE_TYPES.get(key)  # types are immutable: built once per (dtype, shape)
    if typ is None:
        elt = IntegerType(1) if array.dtype == np.bool_ else element_type_of(array.dtype)
        typ = TensorType(elt, array.shape)
        if len(_DENSE_TYPES) < 65536:
            _DENSE_TYPES[key] = typ
    return typ


def dense_from_numpy(array: np.ndarray) -> DenseIntOrFPElementsAttr:
    """O(1) in the number of elements: the bytes are taken as they are (xdsl-notes: Weights)."""
    from xdsl.dialects.builtin import BytesAttr

    array = np.asarray(array, order="C")  # (ascontiguousarray would make a scalar 1-d)
    typ = dense_type_of(array)
    if array.dtype == np.bool_:
        array = array.astype(np.int8)  # i1 is stored one byte per element
    return DenseIntOrFPElementsAttr(typ, BytesAttr(array.tobytes()))


_DENSE_TYPES: dict[tuple[np.dtype, tuple[int, ...]], TensorType[IntegerType | AnyFloat]] = {}


def numpy_from_dense(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    typ = attr.type
    shape = tuple(typ.get_shape())
    dtype = numpy_dtype(typ.element_type)
    store = np.int8 if dtype == np.bool_ else dtype
    data = np.frombuffer(attr.data.data, dtype=store)
    if data.size == 1 and int(np.prod(shape)) != 1:  # splat
        data = np.full(shape, data[0], dtype=store)
    return data.reshape(shape).astype(dtype, copy=False)
