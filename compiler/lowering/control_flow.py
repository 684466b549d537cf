"""cann.If / cann.Case / cann.While -> kernel.if / kernel.case / kernel.while.

The branch, cond and body functions are lowered to kernels like @main (cann-to-kernel and
assign-layouts walk every func.func of the module); the control op itself becomes the host-side
op that names the same functions by symbol and reads its predicate / branch index from GM.  ATC
emits StreamSwitch / StreamActive / LabelSwitch stream tasks for this; cann-facts.md says nothing
about them, so the form is our design.  The operand and result types are the functions' (origin
layout): assign-layouts keeps every function boundary in its origin format.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter

from compiler.lowering.base import ChipPattern, dynamic_dims_error
from compiler.rewriting import with_loc
from dialects import cann, kernel

_KINDS = {
    cann.IfOp: (kernel.IfKernelOp, ("then_branch", "else_branch")),
    cann.CaseOp: (kernel.CaseKernelOp, ("branches",)),
    cann.WhileOp: (kernel.WhileKernelOp, ("cond", "body")),
}


class ControlFlowToKernel(ChipPattern):
    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        kind = _KINDS.get(type(op))
        if kind is None:
            return
        cls, props = kind
        msg = loop_variable_error(op) if cls is kernel.WhileKernelOp else None
        msg = msg or dynamic_dims_error(op, *(v.type for v in op.operands),
                                        *(r.type for r in op.results))
        if msg:
            self.fail(op, msg + " (the memory plan needs static loop-variable and branch shapes)")
            return
        new = cls(operands=[list(op.operands)] if cls is kernel.WhileKernelOp
                  else [op.operands[0], list(op.operands[1:])],
                  result_types=[[r.type for r in op.results]],
                  properties={p: op.properties[p] for p in props})
        rewriter.replace(op, with_loc(new, op))


def loop_variable_error(op) -> str | None:
    """The loop variables whose shape is not static: they change across iterations (the
    importer refines every shape that loop invariance makes static)."""
    from xdsl.dialects.builtin import DictionaryAttr, StringAttr, TensorType
    from xdsl.traits import SymbolTable

    body = SymbolTable.lookup_symbol(op, op.properties["body"])
    sig = body.attributes.get("tf.signature") if body is not None else None
    names = sig.data["inputs"].data.split(",") if isinstance(sig, DictionaryAttr) and \
        isinstance(sig.data.get("inputs"), StringAttr) else []
    bad = []
    for k, v in enumerate(op.results):  # the operands (initial values) may well be static
        if not isinstance(v.type, TensorType) or any(d < 0 for d in v.type.get_shape()):
            name = f" '{names[k]}'" if k < len(names) else ""
            bad.append(f"#{k}{name} ({v.type})")
    if not bad:
        return None
    return (f"{op.name}: loop variable {', '.join(bad)} changes shape across iterations; a "
            "device loop needs static loop-variable shapes (keep the shape fixed, e.g. write "
            "into a preallocated tensor)")


def drop_consequences(failures: list) -> None:
    """A loop rejected for its loop-variable shapes: the failures inside its cond and body
    functions follow from it and are not reported again."""
    from xdsl.dialects.func import FuncOp

    dead = {f.properties[k].string_value() for f, msg in failures
            if isinstance(f, cann.WhileOp) and "changes shape across iterations" in msg
            for k in ("cond", "body")}
    if not dead:
        return

    def inside(o) -> bool:
        while o is not None and not isinstance(o, FuncOp):
            o = o.parent_op()
        return o is not None and o.sym_name.data in dead

    failures[:] = [(f, m) for f, m in failures if not inside(f)]
