"""Op kinds as xDSL traits: what an op does to its data, for fusion, layouts, memory planning,
precision and the cost model (instead of tables of op names).

Every `cann` op carries exactly one kind (tests/pytest/test_fusion_op_kinds.py checks it):

  Elementwise  y[i] = f(x[i]): every tensor operand and the result have one shape (Relu, Exp, Cast)
  Broadcast    pointwise with broadcasting operands (Add / Mul with a per-channel vector,
               BiasAdd, BNInfer, SelectV2, comparisons): y[i] = f(a[bcast(i)], b[bcast(i)])
  Injective    data movement: each output element is one input element (Transpose, Concat,
               Slice, Pad, TransData, Resize, Gather)
  Reduction    reduces over axes (ReduceSum, Softmax / LayerNorm rows)
  Cube         runs on the cube unit (conv, matmul and the fused ops built around them)
  View         no kernel: the same bytes under another type (Reshape)
  Constant     no kernel: compile-time data (Const)
  Opaque       anything else (pooling windows, scans, control flow, host calls, fused kernels
               of their own shape)

The first two are "pointwise" (`is_pointwise`): the automatic fusion pass groups them.  TVM's
op patterns (kElemWise, kBroadcast, kInjective, kCommReduce, kOutEWiseFusable, kOpaque) are the
model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.ir import Operation
from xdsl.traits import OpTrait


@dataclass(frozen=True)
class OpKind(OpTrait):
    """Base of the kind traits; `kind` is the name the reports print."""

    kind: ClassVar[str] = ""


@dataclass(frozen=True)
class Elementwise(OpKind):
    kind: ClassVar[str] = "elementwise"


@dataclass(frozen=True)
class Broadcast(OpKind):
    kind: ClassVar[str] = "broadcast"


@dataclass(frozen=True)
class Injective(OpKind):
    kind: ClassVar[str] = "injective"


@dataclass(frozen=True)
class Reduction(OpKind):
    kind: ClassVar[str] = "reduction"


@dataclass(frozen=True)
class Cube(OpKind):
    kind: ClassVar[str] = "cube"


@dataclass(frozen=True)
class View(OpKind):
    kind: ClassVar[str] = "view"


@dataclass(frozen=True)
class Constant(OpKind):
    kind: ClassVar[str] = "constant"


@dataclass(frozen=True)
class Opaque(OpKind):
    kind: ClassVar[str] = "opaque"


@dataclass(frozen=True)
class OutputFusable(OpTrait):
    """Not a kind: an op whose kernel runs any pointwise epilogue on its output tile (TVM's
    kOutEWiseFusable): the Cube ops, and the pools (MaxPool / AvgPool, on their output rows).
    A cann.FusedKernel whose input #0 is such an op's single-use result is that kernel's
    epilogue (compiler/transforms/fusion/auto.py epilogue_host; compiler/conversions/cann_to_kernel/cube.py,
    vector.py PoolToVectorBody)."""


@dataclass(frozen=True)
class PrecisionReduce(OpTrait):
    """Not a kind: the op's `precision_reduce` flag in CANN's op information library, which
    --precision_mode=allow_mix_precision reads (set-precision, passes/set_precision.py): false
    (the blocklist) keeps the op in its original dtype (float32); true (the trustlist) prefers
    float16; an op without the flag is on the graylist and follows its upstream op (CANN's
    OpAICoreConfig::PrecisionReduceFlag and ATC's --modify_mixlist; cann-facts.md section 9).
    Only the blocklist is declared: set-precision's trustlist is the Cube kind."""

    flag: bool = False


@dataclass(frozen=True)
class FixedPrecision(OpTrait):
    """Not a kind: an op set-precision never moves to another precision, because its element
    types are what it does: compile-time data (Const), a dtype conversion (Cast), a layout
    conversion that takes its operand's dtype (TransData), a host call (TF's own kernel)."""


@dataclass(frozen=True)
class FiniteOnFinite(OpTrait):
    """Not a kind: a pointwise op whose result is finite wherever its operands are (no
    division, logarithm or root), so the junk it leaves in padding lanes stays finite
    (concat-alignment pads channel slabs with it: compiler/transforms/concat_alignment.py)."""


def precision_reduce(op: Operation) -> bool | None:
    """The op's PrecisionReduce flag, None when it has none (the graylist)."""
    t = op.get_trait(PrecisionReduce)
    return t.flag if t is not None else None


@dataclass(frozen=True)
class InputFusable(OpTrait):
    """Not a kind: a reduction whose vector kernel runs a pointwise prologue on each tile of its
    data inputs in UB before reducing (XLA's input fusion): the row kernels LayerNorm and
    AddLayerNorm, and ReduceD.  Its data inputs are the operands that are no
    `RunsOn` params (gamma, beta).  A cann.FusedKernel read only by such ops, as a data input, is
    their prologue (compiler/transforms/fusion/auto.py; compiler/conversions/cann_to_kernel/vector.py)."""


@dataclass(frozen=True)
class RowEpilogue(OpTrait):
    """Not a kind: a row op over the last axis (softmax, LayerNorm, AddLayerNorm) that a cube
    kernel runs on its [baseM, baseN] output tile when that tile holds whole rows (the last
    axis is one N block of one core): the cube op's result is never written to GM
    (compiler/transforms/fusion/row_epilogue.py marks it; compiler/conversions/cann_to_kernel/
    row_epilogue.py emits it)."""


KINDS: tuple[type[OpKind], ...] = (Elementwise, Broadcast, Injective, Reduction, Cube, View,
                                   Constant, Opaque)

#: Unregistered cann ops (hand-written IR, TF's names) whose kind is known: views of their
#: operand, and ops that compute nothing at run time (a static shape, a no-op).
_UNREGISTERED_VIEWS = frozenset({"Squeeze", "ExpandDims", "Identity", "IdentityN", "StopGradient",
                                 "Snapshot", "PreventGradient"})
_UNREGISTERED_CONSTANT = frozenset({"Shape", "NoOp"})

#: registered op class -> its kind trait class (or None)
_KIND_OF_CLASS: dict[type[Operation], type[OpKind] | None] = {}


def kind_of(op: Operation) -> type[OpKind] | None:
    """The op's kind trait class, or None (an op of another dialect)."""
    n = getattr(op, "op_name", None)  # builtin.unregistered (has_trait says True to any trait)
    if n is None:
        return kind_of_class(type(op))
    if n is not None and hasattr(n, "data") and n.data.startswith("cann."):
        short = n.data.removeprefix("cann.")
        if short in _UNREGISTERED_VIEWS:
            return View
        return Constant if short in _UNREGISTERED_CONSTANT else Opaque
    return None


def kind_of_class(cls: type[Operation]) -> type[OpKind] | None:
    """The kind trait class of a registered op class (not builtin.unregistered: its kind
    depends on the op's name), or None.  Looked up once per class: a registered op's traits
    belong to its class (fusion, layouts and the cost model ask about every op many times)."""
    try:
        return _KIND_OF_CLASS[cls]
    except KeyError:
        pass
    got = next((k for k in KINDS if cls.has_trait(k)), None)
    _KIND_OF_CLASS[cls] = got
    return got


def kind_name(op: Operation) -> str:
    k = kind_of(op)
    return k.kind if k is not None else ""


def is_pointwise(op: Operation) -> bool:
    """Elementwise or Broadcast: y at index i depends only on the operands at (broadcast) i."""
    return kind_of(op) in (Elementwise, Broadcast)


def is_cube(op: Operation) -> bool:
    return kind_of(op) is Cube


def launches_kernel(op: Operation) -> bool:
    """A cann op that runs as a device kernel (not a view, not a constant)."""
    k = kind_of(op)
    return k is not None and k not in (View, Constant)
