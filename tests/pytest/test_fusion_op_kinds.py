"""Op kinds as traits (dialects/op_kinds.py): every cann op carries exactly one, and the passes
that used to keep name tables ask the trait."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from dialects import cann
from dialects.op_kinds import (
    KINDS,
    Broadcast,
    Constant,
    Cube,
    Elementwise,
    Injective,
    Reduction,
    View,
    kind_name,
    launches_kernel,
)


def test_every_cann_op_has_exactly_one_kind():
    missing = {op.name: [k.kind for k in KINDS if op.has_trait(k)] for op in cann.CANN.operations}
    assert {n: ks for n, ks in missing.items() if len(ks) != 1} == {}


def test_kinds_of_representative_ops():
    want = {cann.ReluOp: Elementwise, cann.ExpOp: Elementwise, cann.CastOp: Elementwise,
            cann.AddOp: Broadcast, cann.BiasAddOp: Broadcast, cann.BNInferOp: Broadcast,
            cann.TransposeDOp: Injective, cann.ConcatV2DOp: Injective,
            cann.ReduceSumDOp: Reduction, cann.Conv2DOp: Cube, cann.MatMulV2Op: Cube,
            cann.FusedConv2DOp: Cube, cann.ReshapeOp: View, cann.ConstOp: Constant}
    assert {c.name: [k for k in KINDS if c.has_trait(k)] for c in want} == \
        {c.name: [k] for c, k in want.items()}


def _parse(text: str) -> ModuleOp:
    ctx = Context(allow_unregistered=True)
    from xdsl.dialects.func import Func
    ctx.load_dialect(Func)
    ctx.load_dialect(cann.CANN)
    return Parser(ctx, text).parse_module()


def test_views_constants_and_unregistered_views_launch_no_kernel():
    m = _parse('''
    func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %c = cann.Const dense<1.0> : tensor<3x2xf32>
      %r = cann.Reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %i = "cann.Identity"(%r) : (tensor<3x2xf32>) -> tensor<3x2xf32>
      %a = cann.Add %i, %c : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
      func.return %a : tensor<3x2xf32>
    }''')
    ops = list(m.body.block.ops.first.body.block.ops)
    assert [(kind_name(o), launches_kernel(o)) for o in ops] == [
        ("constant", False), ("view", False), ("view", False), ("broadcast", True), ("", False)]


def test_constant_value_sees_through_unregistered_views():
    # compiler/interpreters/constant_eval.constant_value, the one evaluator fusion's masks use
    # (helpers._folded): an unregistered view (no semantics) is its operand in its result's shape
    import numpy as np

    from compiler.interpreters.constant_eval import constant_value

    m = _parse('''
    func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %c = cann.Const dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
      %d = cann.Const dense<7.0> : tensor<6xf32>
      %i = "cann.Identity"(%c) : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %p:2 = "cann.IdentityN"(%x, %d) : (tensor<2x3xf32>, tensor<6xf32>) -> (tensor<2x3xf32>, tensor<6xf32>)
      func.return %i : tensor<3x2xf32>
    }''')
    ops = list(m.body.block.ops.first.body.block.ops)
    ident, idn = ops[2], ops[3]
    np.testing.assert_array_equal(constant_value(ident.results[0]),
                                  np.arange(1, 7, dtype=np.float32).reshape(3, 2))
    assert constant_value(idn.results[0]) is None  # the argument %x
    np.testing.assert_array_equal(constant_value(idn.results[1]), np.full(6, 7.0, np.float32))
