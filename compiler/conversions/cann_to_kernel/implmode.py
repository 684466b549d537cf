"""ATC's --op_select_implmode / --optypelist_for_implmode: which implementation a kernel uses
where an op has two (cann-to-kernel{implmode=... implmode_ops=...}).

ATC: "high_precision" raises the precision of fp16 kernels (Taylor expansion, Newton
iterations...), "high_performance" is the fastest implementation that keeps the network's
accuracy; an op with one implementation ignores the mode; with a type list, only the listed
Ascend IR op types take the mode and the others keep their default implementation.

The ops with two implementations here:

- GELU (op types GeluErf, the exact GELU TF's `gelu(approximate=False)` becomes, and its alias
  Gelu): high_performance computes it with the tanh approximation (the vector function `Gelu`,
  0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))) instead of the erf form (`GeluErf`), in every
  kernel that applies it (an elementwise kernel, a fused kernel's region, a cube epilogue
  `act:GeluErf`).  Its default and high_precision: the erf form.  A model's own tanh GELU
  (`approximate=True`, op Gelu) is what the model asks for and stays as it is.
- Row kernels (SoftmaxV2, LayerNorm, AddLayerNorm, and the softmax of the attention kernels,
  which follows SoftmaxV2) on float16 data: high_precision casts each UB tile to float32,
  computes max / exp / sum / divide (mean / variance / rsqrt / gamma / beta) in float32 and
  casts the result back to float16; high_performance and the default compute in float16.

Without the option every op keeps its default implementation (the erf GELU, rows in their own
dtype).  ATC's own default is high_performance; here the default keeps the model's numerics.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import Float16Type, ModuleOp, StringAttr, f32

from dialects import kernel

MODES = ("high_precision", "high_performance")

#: The Ascend IR op types with two implementations here, and the aliases that name them.
GELU_TYPES = ("GeluErf", "Gelu")
ROW_TYPES = ("SoftmaxV2", "LayerNorm", "AddLayerNorm")
TWO_IMPLEMENTATIONS = GELU_TYPES + ROW_TYPES


@dataclass(frozen=True)
class ImplMode:
    mode: str = ""
    """"" (each op's default), high_precision or high_performance."""
    op_types: tuple[str, ...] = ()
    """The op types that take `mode` (ATC's --optypelist_for_implmode); empty: every op."""

    def __post_init__(self):
        if self.mode not in ("", *MODES):
            raise ValueError(f"implmode '{self.mode}' is not one of {', '.join(MODES)}")

    def of(self, op_type: str) -> str:
        """The mode op_type is compiled in ("" = its default implementation)."""
        if not self.mode:
            return ""
        if self.op_types and op_type not in self.op_types \
                and not (op_type in GELU_TYPES and set(GELU_TYPES) & set(self.op_types)):
            return ""
        return self.mode

    def row_compute_type(self, op_type: str, et):
        """The element type a row kernel (softmax, LayerNorm) computes its UB tiles in."""
        if isinstance(et, Float16Type) and self.of(op_type) == "high_precision":
            return f32
        return et

    def fast_gelu(self) -> bool:
        return self.of("GeluErf") == "high_performance"


#: vector function -> its high_performance implementation.
_FAST = {"GeluErf": "Gelu", "act:GeluErf": "act:Gelu"}


def select_implementations(module: ModuleOp, impl: ImplMode) -> int:
    """Rewrite the vector functions of every kernel body to the implementation the mode picks;
    returns how many were changed."""
    if not impl.fast_gelu():
        return 0
    n = 0
    for op in module.walk():
        if isinstance(op, kernel.VecOp) and op.fn.data in _FAST:
            op.properties["fn"] = StringAttr(_FAST[op.fn.data])
            n += 1
    return n

