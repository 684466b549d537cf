"""Typed accessors for xDSL IR: the one place that narrows what xDSL types loosely.

xDSL types an operand's `.type`, a dictionary attribute's entries and `op.attributes[...]` as plain
`Attribute`, and a region's first block as `Block | None`.  These helpers check the expected kind
(isinstance, so the type checker narrows too) and fail with a TypeError naming what was found,
instead of an AttributeError on `.get_shape()` / `.value` somewhere later.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    FusedLoc,
    IntegerAttr,
    LocationAttr,
    MemRefType,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue


def _type(x: SSAValue | Attribute) -> Attribute:
    return x.type if isinstance(x, SSAValue) else x


def tensor_of(x: SSAValue | Attribute) -> TensorType:
    """The TensorType of a value (or the type itself)."""
    t = _type(x)
    if not isinstance(t, TensorType):
        raise TypeError(f"expected a tensor type, got {t}")
    return t


def memref_of(x: SSAValue | Attribute) -> MemRefType:
    """The MemRefType of a value (or the type itself)."""
    t = _type(x)
    if not isinstance(t, MemRefType):
        raise TypeError(f"expected a memref type, got {t}")
    return t


def shaped_of(x: SSAValue | Attribute) -> TensorType | MemRefType:
    """The tensor or memref type of a value (or the type itself)."""
    t = _type(x)
    if not isinstance(t, TensorType | MemRefType):
        raise TypeError(f"expected a tensor or memref type, got {t}")
    return t


def shape_of(x: SSAValue | Attribute) -> tuple[int, ...]:
    """The (storage) shape of a tensor or memref value or type; -1 for a dynamic dimension."""
    return tuple(shaped_of(x).get_shape())


def is_static(x: SSAValue | Attribute) -> bool:
    """True when x (a value or a type) is a tensor with no dynamic dimension."""
    t = _type(x)
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def elem_of(x: SSAValue | Attribute) -> Attribute:
    """The element type of a tensor or memref value or type."""
    return shaped_of(x).element_type


def int_of(attr: Attribute | None) -> int:
    """The value of an IntegerAttr."""
    if not isinstance(attr, IntegerAttr):
        raise TypeError(f"expected an integer attribute, got {attr}")
    return attr.value.data


def num_of(attr: Attribute | None) -> int | float:
    """The value of an IntegerAttr (an int) or a FloatAttr (a float)."""
    if isinstance(attr, FloatAttr):
        return attr.value.data
    return int_of(attr)


def str_of(attr: Attribute | None) -> str:
    """The value of a StringAttr or of a closed-set (enum) attribute (dialects/common.string_value)."""
    from dialects.common import string_value

    s = string_value(attr)
    if s is None:
        raise TypeError(f"expected a string attribute, got {attr}")
    return s


def dict_of(attr: Attribute | None) -> dict[str, Attribute]:
    """The entries of a DictionaryAttr."""
    if not isinstance(attr, DictionaryAttr):
        raise TypeError(f"expected a dictionary attribute, got {attr}")
    return dict(attr.data)


def array_of(attr: Attribute | None) -> tuple[Attribute, ...]:
    """The elements of an ArrayAttr."""
    if not isinstance(attr, ArrayAttr):
        raise TypeError(f"expected an array attribute, got {attr}")
    return tuple(attr.data)



def block_of(region: Region) -> Block:
    """The first block of a region (a function body, a loop body)."""
    block = region.blocks.first
    if block is None:
        raise ValueError("expected a region with a block")
    return block


def loc_parts(loc: LocationAttr) -> tuple[LocationAttr, ...]:
    """The locations a FusedLoc fuses (the location itself when it is not fused)."""
    if not isinstance(loc, FusedLoc):
        return (loc,)
    return tuple(p for p in array_of(loc.locations) if isinstance(p, LocationAttr))


def parent_block_of(op: Operation) -> Block:
    """The block holding an op that is in one."""
    block = op.parent_block()
    if block is None:
        raise ValueError(f"{op.name} is not in a block")
    return block
