"""algebraic-simplify: x * 1 -> x, x + 0 -> x, x - 0 -> x, x / 1 -> x, x * 0 -> 0 is NOT done
(NaN/inf), for a constant 1 / 0 (splat or all-equal) whose broadcast does not change x's type.
Batched matmuls: transposes into the adj flags, a scalar factor of an operand out onto the
result (compiler/transforms/canonicalization.py BatchMatMulTransposes, ScalarMulThroughTranspose,
ScalarMulOutOfMatMul).  ExpandDims / Squeeze views sink through pointwise ops
(ReshapeSinksThroughPointwise); a reduction of such a view reads the value itself
(ReduceThroughUnitReshape); a global mean / max of an average / max pool whose windows tile
H and W reads the pool's input (ReduceOfTilingPool).  A chain of reshapes and broadcasts
holding two broadcasts or more becomes one broadcast (BroadcastChain: UpSampling2D nearest's two repeats)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from compiler.ir.rewriting import rewrite, roots
from dialects import cann


def _is(value, number: float) -> bool:
    from compiler.interpreters.constant_eval import constant_attr_value

    owner = value.owner
    if not isinstance(owner, cann.ConstOp):
        return False
    arr = constant_attr_value(owner)  # (constant_value's answer for a constant)
    return arr is not None and arr.size > 0 and bool(np.all(arr == number))


class Identities(RewritePattern):
    applies_to = roots(cann.MulOp, cann.AddOp, cann.SubOp, cann.RealDivOp)

    def match_and_rewrite(self, op, rewriter: PatternRewriter):
        pairs: tuple[tuple[SSAValue, SSAValue, float], ...]
        if isinstance(op, cann.MulOp):
            pairs = ((op.x1, op.x2, 1.0), (op.x2, op.x1, 1.0))
        elif isinstance(op, cann.AddOp):
            pairs = ((op.x1, op.x2, 0.0), (op.x2, op.x1, 0.0))
        elif isinstance(op, cann.SubOp):
            pairs = ((op.x1, op.x2, 0.0),)
        elif isinstance(op, cann.RealDivOp):
            pairs = ((op.x1, op.x2, 1.0),)
        else:
            return
        for keep, const, number in pairs:
            if keep.type == op.y.type and _is(const, number):
                rewriter.replace(op, [], [keep])
                return


@dataclass(frozen=True)
class AlgebraicSimplifyPass(ModulePass):
    name = "algebraic-simplify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from compiler.transforms.canonicalization import (
            BatchMatMulTransposes,
            BroadcastChain,
            ReduceOfReduce,
            ReduceOfTilingPool,
            ReduceThroughUnitReshape,
            ReshapeSinksThroughPointwise,
            ScalarMulOutOfMatMul,
            ScalarMulThroughTranspose,
        )

        rewrite(op, [Identities(), BatchMatMulTransposes(), ScalarMulThroughTranspose(),
                     ScalarMulOutOfMatMul(), ReshapeSinksThroughPointwise(),
                     ReduceThroughUnitReshape(), ReduceOfReduce(), ReduceOfTilingPool(),
                     BroadcastChain()])
