"""compiler.ir.build: the op IRDL's builder makes (the same printed op: operands, result types,
properties in the same order, segment sizes), and IRDL's builder itself for what its plan skips."""

from io import StringIO

from xdsl.dialects.builtin import DictionaryAttr, IndexType, StringAttr, f32
from xdsl.ir import Block, Region
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    var_operand_def,
)
from xdsl.printer import Printer

from compiler.ir.build import build
from dialects import kernel
from dialects.common import i64_attr, int_array


@irdl_op_definition
class _TwoVariadicsOp(IRDLOperation):
    name = "test.two_variadics"
    a = var_operand_def()
    b = var_operand_def()
    p = opt_prop_def(StringAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)


def _generic(op) -> str:
    s = StringIO()
    Printer(stream=s, print_generic_format=True).print_op(op)
    return s.getvalue()


def _both(cls, make):
    """(IRDL's op, build's op), each built by make(block) -> kwargs on a fresh block."""
    ops = []
    for fast in (False, True):
        blk = Block(arg_types=[kernel.memref([4, 16], f32, "GM"), IndexType(), IndexType()])
        kw = make(blk)
        op = build(cls, **kw) if fast else cls(**kw)
        blk.add_op(op)
        ops.append(op)
    return ops


def test_a_variadic_operand_and_properties_print_the_same():
    a, b = _both(kernel.LoadOp, lambda blk: dict(
        operands=[blk.args[0], [blk.args[1], blk.args[2]]],
        result_types=[kernel.memref([4, 16], f32, "UB")],
        properties={"view": kernel.LoadViewAttr.of("img2col"),
                    "params": DictionaryAttr({"c0": i64_attr(16)})}))
    assert type(b) is kernel.LoadOp
    assert _generic(a) == _generic(b)
    assert list(a.properties) == list(b.properties)


def test_segment_sizes_follow_the_properties_as_irdl_records_them():
    a, b = _both(_TwoVariadicsOp, lambda blk: dict(
        operands=[[blk.args[1]], [blk.args[1], blk.args[2]]],
        properties={"p": StringAttr("x")}))
    assert _generic(a) == _generic(b)
    assert list(b.properties) == ["p", "operandSegmentSizes"]
    a, b = _both(_TwoVariadicsOp, lambda blk: dict(operands=[[], [blk.args[1]]],
                                                   properties={"p": None}))
    assert _generic(a) == _generic(b)
    assert "p" not in b.properties


def test_a_region_is_taken_as_it_is():
    a, b = _both(kernel.CoresOp, lambda blk: dict(
        properties={"grid": int_array([2]), "tile": int_array([1])},
        regions=[Region(Block(arg_types=[IndexType()]))]))
    assert _generic(a) == _generic(b)


def test_an_operation_as_operand_goes_to_the_irdl_builder():
    idx = build(kernel.IndexOp, properties={"value": i64_attr(3)}, result_types=[IndexType()])
    v = build(kernel.VecOp, operands=[[idx]], result_types=[kernel.memref([1], f32, "UB")],
              properties={"fn": StringAttr("Abs"), "attrs": DictionaryAttr({})})
    assert v.operands[0] is idx.results[0]


def test_dict_attr_is_one_per_distinct_entries_and_equals_a_fresh_one():
    from dialects.common import dict_attr, string_attr

    a = dict_attr({"c0": i64_attr(16), "pads": int_array([0, 1])})
    assert dict_attr({"c0": i64_attr(16), "pads": int_array([0, 1])}) is a
    assert a == DictionaryAttr({"c0": i64_attr(16), "pads": int_array([0, 1])})
    assert dict_attr({"pads": int_array([0, 1]), "c0": i64_attr(16)}) is not a  # order kept
    assert string_attr("Mul") is string_attr("Mul") and string_attr("Mul") == StringAttr("Mul")


def _fields(op) -> dict:
    """Every field of an op, values by what they refer to (uses as (op, index) pairs)."""
    f = dict(vars(op))
    f["_operand_uses"] = [(u.operation, u.index) for u in op._operand_uses]
    f["results"] = [(type(r), r.type, r.op, r.index, r.first_use) for r in op.results]
    f["regions"] = [r.parent for r in op.regions]
    return f


def test_create_op_leaves_the_fields_operation_create_leaves():
    from compiler.ir.build import create_op

    ops = []
    for fast in (False, True):
        blk = Block(arg_types=[kernel.memref([4, 16], f32, "GM"), IndexType(), IndexType()])
        kw = dict(operands=(blk.args[0], blk.args[1], blk.args[1]),
                  result_types=(kernel.memref([4, 16], f32, "UB"),),
                  properties={"view": kernel.LoadViewAttr.of("img2col"),
                              "params": DictionaryAttr({"c0": i64_attr(16)})})
        op = create_op(kernel.LoadOp, **kw) if fast else kernel.LoadOp.create(**kw)
        ops.append((op, blk))
    (a, blk_a), (b, blk_b) = ops
    assert type(b) is kernel.LoadOp
    fa, fb = _fields(a), _fields(b)
    assert list(fa) == list(fb)
    for k in fa:
        if k in ("_operands", "_operand_uses", "results"):
            continue
        assert fa[k] == fb[k], k
    assert [blk_a.args.index(v) for v in a.operands] == [blk_b.args.index(v) for v in b.operands]
    assert [i for _, i in fa["_operand_uses"]] == [i for _, i in fb["_operand_uses"]]
    assert all(o is a for o, _ in fa["_operand_uses"]) and all(o is b for o, _ in fb["_operand_uses"])
    assert [(t, i) for _, t, _, i, _ in fa["results"]] == [(t, i) for _, t, _, i, _ in fb["results"]]
    assert all(r.op is b for r in b.results) and type(b.results) is type(a.results)
    # each value's uses in the same order (a value used twice: the later operand first)
    assert [u.index for u in blk_a.args[1].uses] == [u.index for u in blk_b.args[1].uses]
    assert _generic(a) == _generic(b)


def _uses(module) -> list:
    """Every value's uses, in use-list order, as (walk index of the user, operand index)."""
    at = {id(o): k for k, o in enumerate(module.walk())}
    out = []
    for o in module.walk():
        for region in o.regions:
            for b in region.blocks:
                out += [[(at[id(u.operation)], u.index) for u in a.uses] for a in b.args]
        out += [[(at[id(u.operation)], u.index) for u in r.uses] for r in o.results]
    return out


_CONVS = """func.func @main(%x: tensor<1x16x16x32xf32>) -> tensor<1x14x14x32xf32> {
  %w = cann.Const dense<0.125> : tensor<3x3x32x32xf32>
  %b = cann.Const dense<0.5> : tensor<32xf32>
  %0 = cann.Conv2D %x, %w {strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, \
dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"} : \
(tensor<1x16x16x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x14x14x32xf32>
  %1 = cann.BiasAdd %0, %b {data_format = "NHWC"} : (tensor<1x14x14x32xf32>, tensor<32xf32>) -> tensor<1x14x14x32xf32>
  %2 = cann.Relu %1 : (tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
  func.return %2 : tensor<1x14x14x32xf32>
}
"""


def test_clone_is_xdsls_clone():
    """A conv + bias + relu lowered to a kernel (nested cores / for bodies): the same generic text with locations, name hints and every
    value's use order as Operation.clone's."""
    from compiler.ir.build import clone
    from compiler.ir.ir_io import make_context, parse_module
    from tools.driver.pipelines import run_passes

    module, _ = parse_module(make_context(), _CONVS, "<test>")
    run_passes(make_context(), module, ("fuse", "assign-layouts", "cann-to-kernel"))

    def text(m) -> str:
        s = StringIO()
        Printer(stream=s, print_generic_format=True, print_debuginfo=True).print_op(m)
        return s.getvalue()

    ours, xdsls = clone(module), module.clone()
    assert text(ours) == text(xdsls) == text(module)
    assert _uses(ours) == _uses(xdsls)
    assert any(o.regions for o in list(module.walk())[2:])  # a body below @main's ops
