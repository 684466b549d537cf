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

from compiler.conversions.cann_to_kernel.base import ChipPattern, dynamic_dims_error
from compiler.ir.rewriting import with_loc
from compiler.ir.typed import block_of
from dialects import cann, kernel

_KINDS = {
    cann.IfOp: (kernel.IfKernelOp, ("then_branch", "else_branch")),
    cann.CaseOp: (kernel.CaseKernelOp, ("branches",)),
    cann.WhileOp: (kernel.WhileKernelOp, ("cond", "body")),
}


class ControlFlowToKernel(ChipPattern):
    applies_to = staticmethod(_KINDS.__contains__)

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
        trips = static_trip_count(op) if cls is kernel.WhileKernelOp else None
        new = cls(operands=[list(op.operands)] if cls is kernel.WhileKernelOp
                  else [op.operands[0], list(op.operands[1:])],
                  result_types=[[r.type for r in op.results]],
                  properties={p: op.properties[p] for p in props})
        if trips is not None:
            from xdsl.dialects.builtin import IntegerAttr, i64

            new.attributes[TRIP_COUNT_ATTR] = IntegerAttr(trips, i64)
        rewriter.replace(op, with_loc(new, op))


def loop_variable_error(op) -> str | None:
    """The loop variables whose shape is not static: they change across iterations (the
    importer refines every shape that loop invariance makes static)."""
    from xdsl.dialects.builtin import DictionaryAttr, StringAttr, TensorType
    from xdsl.traits import SymbolTable

    body = SymbolTable.lookup_symbol(op, op.properties["body"])
    sig = body.attributes.get("tf.signature") if body is not None else None
    inputs = sig.data.get("inputs") if isinstance(sig, DictionaryAttr) else None
    names = inputs.data.split(",") if isinstance(inputs, StringAttr) else []
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

    dead = {sym.string_value() for f, msg in failures
            if isinstance(f, cann.WhileOp) and "changes shape across iterations" in msg
            for sym in (f.cond, f.body)}
    if not dead:
        return

    def inside(o) -> bool:
        while o is not None and not isinstance(o, FuncOp):
            o = o.parent_op()
        return o is not None and o.sym_name.data in dead

    failures[:] = [(f, m) for f, m in failures if not inside(f)]


#: a kernel.while whose trip count is a compile-time constant carries it (the perf report
#: costs the loop as trip count x (cond + body))
TRIP_COUNT_ATTR = "kernel.trip_count"


def static_trip_count(op) -> int | None:
    """The trip count of a cann.While when its cond (still cann ops) is a conjunction of
    `var < C` / `C > var` on loop variables that start at a constant and that the body steps by
    a positive constant (C a constant, or a loop variable the body passes through unchanged that
    starts at a constant: the maximum_iterations of a Keras RNN loop); None if any part of the condition is
    anything else (a data-dependent
    trip count, or only an upper bound)."""
    import math

    import numpy as np
    from xdsl.dialects.func import FuncOp, ReturnOp
    from xdsl.ir import BlockArgument
    from xdsl.traits import SymbolTable

    from compiler.interpreters.constant_eval import constant_value

    cond = SymbolTable.lookup_symbol(op, op.properties["cond"])
    body = SymbolTable.lookup_symbol(op, op.properties["body"])
    if not isinstance(cond, FuncOp) or not isinstance(body, FuncOp) or not cond.body.blocks \
            or not body.body.blocks:
        return None
    cret, bret = block_of(cond.body).last_op, block_of(body.body).last_op
    if not isinstance(cret, ReturnOp) or not isinstance(bret, ReturnOp) or not cret.operands:
        return None

    def arg_index(v, block) -> int | None:
        return v.index if isinstance(v, BlockArgument) and v.block is block else None

    def scalar(v) -> float | None:
        c = constant_value(v)
        return float(np.asarray(c).reshape(-1)[0]) if c is not None and np.size(c) == 1 else None

    def trips_of(k: int, bound: float) -> int | None:
        init = scalar(op.operands[k]) if k < len(op.operands) else None
        if init is None or k >= len(bret.operands):
            return None
        nxt = bret.operands[k].owner
        if not isinstance(nxt, cann.AddOp):
            return None
        bblock = body.body.blocks.first
        a, b = nxt.operands
        step = scalar(b) if arg_index(a, bblock) == k else scalar(a) if arg_index(b, bblock) == k \
            else None
        if step is None or step <= 0:
            return None
        return max(0, math.ceil((bound - init) / step))

    cblock = cond.body.blocks.first

    def outer(v):
        """v, or the operand a FusedKernel (the fused cond) binds its body argument v to."""
        while isinstance(v, BlockArgument) and isinstance(v.block.parent_op(), cann.FusedKernelOp):
            v = v.block.parent_op().inputs[v.index]
        return v

    def count(v) -> int | None:
        p = v.owner
        if isinstance(p, cann.FusedKernelOp):  # the fused cond: its yielded predicate
            last = p.body.block.last_op
            return count(last.operands[0]) if last is not None else None
        if isinstance(p, cann.LogicalAndOp):
            parts = [count(x) for x in p.operands]
            known = [t for t in parts if t is not None]
            return None if len(known) != len(parts) else min(known)
        if isinstance(p, cann.LessOp):
            var, bound = p.operands
        elif isinstance(p, cann.GreaterOp):
            bound, var = p.operands
        else:
            return None
        var, bound = outer(var), outer(bound)
        k, c = arg_index(var, cblock), scalar(bound)
        if c is None:  # a loop-invariant bound (Keras RNN loops' maximum_iterations): its start
            j = arg_index(bound, cblock)
            bblock = body.body.blocks.first
            if j is not None and j < len(bret.operands) and arg_index(bret.operands[j], bblock) == j:
                c = scalar(op.operands[j])
        return None if k is None or c is None else trips_of(k, c)

    return count(cret.operands[0])
