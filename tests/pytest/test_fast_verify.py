"""The fast verification path (compiler/ir/fast_verify.py): a malformed op of any class gets
xDSL's own message through cann-opt, and on well-formed IR the fast check takes the ops."""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import VerifyException

from compiler.ir import fast_verify
from compiler.ir.ir_io import make_context, parse_module
from tools.cann_opt import main

KERNEL = """builtin.module attributes {cann.soc_version = "Ascend910B3"} {
  func.func @f(%x: tensor<256xf32>, %m: memref<256xf32, #kernel.space<GM>>) -> tensor<256xf32> {
    %y = kernel.vec_kernel %x {kind = "Elementwise", block_dim = 1 : i64, tiling = #kernel.tiling<tileElems = 256>, buffers = []} : (tensor<256xf32>) -> tensor<256xf32> {
    ^bb0(%a: memref<256xf32, #kernel.space<GM>>, %o: memref<256xf32, #kernel.space<GM>>):
      %i = kernel.index {value = 0 : i64}
      %c = kernel.alloc : memref<1x1x16x16xf32, #kernel.space<L0C>>
      %l = kernel.alloc : memref<1x1x16x16xf32, #kernel.space<L0A>>
      %t = kernel.load %a[%i] {view = "flat", params = {shape = array<i64: 256>}} : memref<256xf32, #kernel.space<GM>> -> memref<256xf32, #kernel.space<UB>>
      LINE
      kernel.yield
    }
    func.return %y : tensor<256xf32>
  }
}
"""

FUSED = """func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %y = cann.FusedKernel %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%x : tensor<8xf32>, %z : tensor<8xf32>):
    LINE
    cann.Yield %s : tensor<8xf32>
  }
  func.return %y : tensor<8xf32>
}
"""

MEMREF_GM = "memref<256xf32, #kernel.space<GM>>"

CASES = {
    "operand count": (KERNEL, '"kernel.mmad"(%c, %l) : (memref<1x1x16x16xf32, #kernel.space<L0C>>, '
                      'memref<1x1x16x16xf32, #kernel.space<L0A>>) -> ()',
                      "9:7: error: Expected 3 operands, but got 2"),
    "operand type": (KERNEL, '%u = "kernel.load"(%i, %i) <{view = "flat", params = {shape = array<i64: 256>}}> '
                     ': (index, index) -> memref<256xf32, #kernel.space<UB>>',
                     "9:7: error: operand 'src' at position 0 does not verify: index should be of base "
                     "attribute memref"),
    "result type": (KERNEL, '%j = "kernel.index"() <{value = 0 : i64}> : () -> i32',
                    "9:7: error: result 'result' at position 0 does not verify: i32 should be of base "
                    "attribute index"),
    "property type": (KERNEL, '%j = "kernel.index"() <{value = "zero"}> : () -> index',
                      '9:7: error: "zero" should be of base attribute integer'),
    "missing property": (KERNEL, '%j = "kernel.index"() : () -> index',
                         "9:7: error: property 'value' expected in operation 'kernel.index'"),
    "undefined property": (KERNEL, '%j = "kernel.index"() <{value = 0 : i64, extra = 1 : i64}> : () -> index',
                           "9:7: error: property 'extra' is not defined by the operation 'kernel.index'. "
                           "Use the dictionary attribute to add arbitrary information to the operation."),
    "enum property": (KERNEL, f'%u = "kernel.load"(%a, %i) <{{view = "sideways", params = {{}}}}> : '
                      f'({MEMREF_GM}, index) -> memref<256xf32, #kernel.space<UB>>',
                      "9:7: error: kernel.load: 'view' must be one of img2col, "),
    "region blocks": (KERNEL, '"kernel.cores"() <{grid = array<i64: 1>, tile = array<i64: 64>}> ({}) : () -> ()',
                      "9:7: error: Region 'body' at position 0 expected a single block, but got 0 blocks"),
    "custom verify": (KERNEL, f'%u = kernel.load %a[%i] {{view = "flat", params = {{}}}} : {MEMREF_GM} -> '
                      'memref<256xf32, #kernel.space<L0A>>',
                      "9:7: error: kernel.load: result must be a memref in L1 or UB, got memref<256xf32, "
                      "#kernel.space<L0A>>"),
    "use outside an isolated region": (
        FUSED, "%s = cann.Add %x, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>",
        "2:3: error: Operation using value defined out of its IsolatedFromAbove parent: "
        "AddOp(%s = cann.Add %x, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>)"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_op_gets_xdsls_message(case, tmp_path, capsys):
    template, line, message = CASES[case]
    path = tmp_path / "bad.mlir"
    path.write_text(template.replace("LINE", line))
    out = tmp_path / "out.mlir"
    assert main([str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{path}:{message}"), err
    assert len(err.splitlines()) == 1, err
    assert not out.exists()


@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_check_rejects_every_op_xdsl_rejects(case):
    template, line, _ = CASES[case]
    module, _ = parse_module(make_context(), template.replace("LINE", line), "bad.mlir", verify=False)
    bad = fast_verify.isolation_problems(module)
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
            xdsl_accepts = True
        except VerifyException:
            xdsl_accepts = False
        if not xdsl_accepts:
            assert not fast_verify.passes(op) or id(op) in bad, op.name


def test_well_formed_kernel_ops_take_the_fast_path():
    text = KERNEL.replace("LINE", '%b = kernel.alloc : memref<1x1x16x16xf32, #kernel.space<L0B>>\n      '
                          '"kernel.mmad"(%c, %l, %b) : (memref<1x1x16x16xf32, #kernel.space<L0C>>, '
                          'memref<1x1x16x16xf32, #kernel.space<L0A>>, memref<1x1x16x16xf32, '
                          '#kernel.space<L0B>>) -> ()')
    module, _ = parse_module(make_context(), text, "good.mlir", verify=False)
    for op in module.walk():
        op.verify(verify_nested_ops=False)  # xDSL accepts every op
    names = {op.name for op in module.walk() if fast_verify.passes(op)}
    assert names == {"builtin.module", "func.func", "func.return", "kernel.vec_kernel", "kernel.index",
                     "kernel.alloc", "kernel.load", "kernel.mmad", "kernel.yield"}
    assert fast_verify.isolation_problems(module) == set()
