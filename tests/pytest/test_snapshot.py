"""compiler/ir/snapshot.py: a snapshot of a module is unchanged until a pass replaces, moves,
adds or removes an object of its IR (what cann-to-kernel checks before it takes a lowering made
ahead by pack-launches)."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import StringAttr

from compiler.ir.ir_io import make_context, parse_module
from compiler.ir.snapshot import Snapshot

TEXT = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = cann.Relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = cann.Abs %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = cann.Abs %x : (tensor<4xf32>) -> tensor<4xf32>
  %3 = cann.Add %1, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %3 : tensor<4xf32>
}
"""


def _main_ops(module):
    return list(module.body.block.first_op.body.block.ops)


def _set_attr(m):
    _main_ops(m)[0].attributes["tf.node"] = StringAttr("r")


def _move(m):
    ops = _main_ops(m)
    ops[2].detach()
    ops[1].parent.insert_op_before(ops[2], ops[1])


def _reroute(m):
    ops = _main_ops(m)
    ops[3].operands = [ops[2].results[0], ops[1].results[0]]


def _erase(m):
    ops = _main_ops(m)
    ops[3].operands = [ops[1].results[0], ops[1].results[0]]
    ops[2].parent.erase_op(ops[2])


def test_untouched_module_is_unchanged():
    module, _ = parse_module(make_context(), TEXT, "<test>")
    assert Snapshot(module).unchanged(module) is True


@pytest.mark.parametrize("change", [_set_attr, _move, _reroute, _erase])
def test_a_changed_module_is_changed(change):
    module, _ = parse_module(make_context(), TEXT, "<test>")
    snap = Snapshot(module)
    change(module)
    assert snap.unchanged(module) is False
