"""The one constant evaluator (compiler/interpreters/constant_eval.py) and fusion's restricted
view of it (compiler/transforms/fusion/helpers.const_value: the FoldedInFusion ops, views, no
device layout, at most 16 ops deep), which fuse's constant folding reads through the traits."""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from compiler.interpreters.constant_eval import constant_value
from compiler.transforms.fusion.engine import fold_constants
from compiler.transforms.fusion.helpers import const_value
from dialects import cann


def _ops(text: str) -> tuple[ModuleOp, list]:
    ctx = Context(allow_unregistered=True)
    from xdsl.dialects.func import Func
    ctx.load_dialect(Func)
    ctx.load_dialect(cann.CANN)
    m = Parser(ctx, text).parse_module()
    return m, list(m.body.block.ops.first.body.block.ops)


def test_fusion_constants_evaluate_only_folded_in_fusion_ops():
    # Mul carries FoldedInFusion, Relu does not: the unrestricted evaluator folds both
    _, ops = _ops('''
    func.func @f() -> (tensor<2xf32>, tensor<2xf32>) {
      %c = cann.Const dense<[-1.0, 3.0]> : tensor<2xf32>
      %m = cann.Mul %c, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %r = cann.Relu %c : (tensor<2xf32>) -> tensor<2xf32>
      func.return %m, %r : tensor<2xf32>, tensor<2xf32>
    }''')
    mul, relu = ops[1], ops[2]
    assert mul.has_trait(cann.FoldedInFusion) and not relu.has_trait(cann.FoldedInFusion)
    np.testing.assert_array_equal(const_value(mul), np.array([1.0, 9.0], np.float32))
    assert const_value(relu) is None
    np.testing.assert_array_equal(constant_value(relu.results[0]), np.array([0.0, 3.0], np.float32))


def test_fusion_constants_refuse_a_device_layout():
    _, ops = _ops('''
    func.func @f() -> tensor<1x1x16x16xf32, #cann.format<FRACTAL_Z, origin HWCN [1, 1, 2, 2]>> {
      %w = cann.Const dense<1.0> : tensor<1x1x16x16xf32> -> tensor<1x1x16x16xf32, #cann.format<FRACTAL_Z, origin HWCN [1, 1, 2, 2]>>
      func.return %w : tensor<1x1x16x16xf32, #cann.format<FRACTAL_Z, origin HWCN [1, 1, 2, 2]>>
    }''')
    assert const_value(ops[0]) is None
    assert constant_value(ops[0].results[0]) is not None  # (storage layout)


def _neg_chain(n: int) -> str:
    lines = ["%v0 = cann.Const dense<2.0> : tensor<f32>"]
    lines += [f"%v{i} = cann.Neg %v{i - 1} : (tensor<f32>) -> tensor<f32>" for i in range(1, n + 1)]
    return (f"func.func @f() -> tensor<f32> {{\n{chr(10).join(lines)}\n"
            f"func.return %v{n} : tensor<f32>\n}}")


def test_fusion_constants_see_at_most_16_ops_deep():
    _, ops16 = _ops(_neg_chain(16))
    _, ops17 = _ops(_neg_chain(17))
    np.testing.assert_array_equal(const_value(ops16[-2]), np.array(2.0, np.float32))
    assert const_value(ops17[-2]) is None
    np.testing.assert_array_equal(constant_value(ops17[-2].results[0]), np.array(-2.0, np.float32))


def test_fuse_folds_the_traits_ops_of_constants():
    # FoldedInFusion (Add) and AlwaysFolded (FillD) ops of constants become cann.Const; Relu stays
    m, _ = _ops('''
    func.func @f() -> (tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>) {
      %c = cann.Const dense<[1.0, 2.0]> : tensor<2xf32>
      %s = cann.Const dense<5.0> : tensor<f32>
      %a = cann.Add %c, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %f = cann.FillD %s {dims = array<i64: 2, 2>} : (tensor<f32>) -> tensor<2x2xf32>
      %r = cann.Relu %c : (tensor<2xf32>) -> tensor<2xf32>
      func.return %a, %f, %r : tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>
    }''')
    assert fold_constants(m) == 2
    names = [o.name for o in m.body.block.ops.first.body.block.ops]
    assert names.count("cann.Const") == 4 and "cann.Relu" in names
    assert "cann.Add" not in names and "cann.FillD" not in names


def test_fold_module_builds_one_constant_for_a_chain_read_by_an_op_not_folded():
    # Neg(Neg(c)) read by a function argument's Add: one cann.Const, where the outer Neg stood
    # and named by it; a fold that only other folds read (the inner Neg) leaves nothing behind
    from compiler.interpreters.constant_eval import fold_module

    m, _ = _ops('''
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %c = cann.Const dense<[1.0, -2.0]> : tensor<2xf32> loc("c")
      %n1 = cann.Neg %c : (tensor<2xf32>) -> tensor<2xf32> loc("n1")
      %n2 = cann.Neg %n1 : (tensor<2xf32>) -> tensor<2xf32> loc("n2")
      %a = cann.Add %x, %n2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("a")
      func.return %a : tensor<2xf32>
    }''')
    assert fold_module(m) == 2
    const, add, _ = m.body.block.ops.first.body.block.ops
    assert isinstance(const, cann.ConstOp) and add.operands[1] is const.results[0]
    assert str(const.location) == 'loc("n2")'
    np.testing.assert_array_equal(constant_value(const.results[0]), np.array([1.0, -2.0], np.float32))


def test_erase_dead_erases_a_producer_read_only_inside_an_erased_op():
    # %c is read only by a Neg nested in the region of an unused pure op: erasing that op
    # leaves %c unread, so it goes too
    from xdsl.dialects.test import TestPureOp
    from xdsl.ir import Block, Region

    from compiler.ir.rewriting import erase_dead

    m, ops = _ops('''
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %c = cann.Const dense<[1.0, -2.0]> : tensor<2xf32>
      func.return %x : tensor<2xf32>
    }''')
    c, ret = ops
    inner = cann.NegOp(operands=[c.results[0]], result_types=[c.results[0].type])
    holder = TestPureOp(regions=[Region(Block([inner]))], result_types=[c.results[0].type])
    ret.parent.insert_op_before(holder, ret)
    assert erase_dead(m)
    assert [o.name for o in m.body.block.ops.first.body.block.ops] == ["func.return"]
