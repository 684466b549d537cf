"""Shape computations on `?` dimensions at the cann level (issue 16: symbolic shapes).

A range-compiled model (tools/driver/shape_ranges.py) can compute a size from the shape of a
`?` tensor: keras-hub's PositionEmbedding slices its table to the sequence length,
`Slice(table, [0, 0], Pack(StridedSlice(Shape(x), 1), hidden))`, and broadcasts it to
`Shape(x)`.  tf-to-cann keeps such a computation as cann ops on the tensor forms of Ascend IR
(cann.Shape, cann.Slice, cann.BroadcastTo; dialects/cann/data_movement.py SHAPE_OPS) when `shape_derived`
says its value depends only on shapes and constants, never on the data (a data-dependent size
stays tf-to-cann's "must be a constant" error naming the node).

At dispatch, the function made concrete at the run's shapes (tools/driver/runtime_tiling.py),
`resolve_module` (the `resolve-shapes` pass, the first of the recorded tiling function) makes it
static: each cann.Shape of a static tensor becomes a constant, constants are folded
(compiler/interpreters/constant_eval.py), and Slice / BroadcastTo with constant sizes become
StridedSliceD / BroadcastToD (GE's ConstToAttr).  A tensor-form op left over is one error
naming its node.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation, OpResult, SSAValue

from compiler.ir.diagnostics import OpError
from compiler.ir.typed import is_static, parent_block_of, shape_of

#: TensorFlow's integer arithmetic on shapes that `shape_derived` walks through before
#: tf-to-cann has converted it (every pure cann op is walked through).
TF_SHAPE_ARITH = frozenset(f"tf.{n}" for n in (
    "Identity", "Cast", "GatherV2", "Prod", "Pack", "ConcatV2", "StridedSlice", "Slice", "Add",
    "AddV2", "Sub", "Mul", "FloorDiv", "Maximum", "Minimum", "Reshape", "ExpandDims", "Squeeze"))


def shape_derived(v: SSAValue) -> bool:
    """Whether `v` is computed by pure ops from constants and shapes of tensors only (at least
    one Shape, no function argument or other data on the way): at concrete input shapes it is
    a constant."""
    from xdsl.traits import Pure

    from compiler.interpreters.constant_eval import is_constant_op
    from dialects import cann, tf

    shape_ops = (tf.ShapeOp, cann.ShapeOp)
    seen: set[SSAValue] = set()
    stack, shapes = [v], 0
    while stack:
        u = stack.pop()
        if u in seen:
            continue
        seen.add(u)
        op = u.owner if isinstance(u, OpResult) else None
        if op is None or isinstance(u.owner, Block):
            return False
        if isinstance(op, shape_ops):
            shapes += 1
            continue
        if is_constant_op(op):
            continue
        pure = op.dialect_name() == "cann" and op.has_trait(Pure)
        if not (pure or op.name in TF_SHAPE_ARITH) or op.regions:
            return False
        stack.extend(op.operands)
    return shapes > 0


def _replace(op: Operation, new: Operation) -> None:
    from compiler.ir.rewriting import with_loc

    with_loc(new, op)
    parent_block_of(op).insert_op_before(new, op)
    op.results[0].replace_all_uses_with(new.results[0])
    parent_block_of(op).erase_op(op)


def _const_to_attr(op: Operation) -> Operation | None:
    """The attribute form of a tensor-form op whose size operands are constants, else None."""
    from compiler.interpreters.constant_eval import constant_value
    from dialects import cann
    from dialects.common import int_array

    if not is_static(op.results[0]):
        return None
    if isinstance(op, cann.BroadcastToOp):
        shape = constant_value(op.shape)
        if shape is None:
            return None
        return cann.BroadcastToDOp.create(
            operands=[op.x], result_types=[op.y.type],
            properties={"shape": int_array([int(d) for d in np.ravel(shape)])})
    if isinstance(op, cann.SliceOp):
        offsets, size = constant_value(op.offsets), constant_value(op.size)
        if offsets is None or size is None:
            return None
        begin = [int(o) for o in np.ravel(offsets)]
        end = [o + n for o, n in zip(begin, op.y.type.get_shape())]
        zero = IntegerAttr(0, i64)
        return cann.StridedSliceDOp.create(
            operands=[op.x], result_types=[op.y.type],
            properties={"begin": int_array(begin), "end": int_array(end),
                        "strides": int_array([1] * len(begin)), "begin_mask": zero,
                        "end_mask": zero, "ellipsis_mask": zero, "new_axis_mask": zero,
                        "shrink_axis_mask": zero})
    return None


def resolve_module(module: ModuleOp) -> None:
    """Make the shape computations of a module at concrete shapes static (module docstring)."""
    from compiler.interpreters.constant_eval import fold_module
    from dialects import cann
    from dialects.common import dense_from_numpy, numpy_dtype

    ops = [op for op in module.walk() if isinstance(op, cann.SHAPE_OPS)]
    if not ops:
        return
    for op in ops:
        if isinstance(op, cann.ShapeOp) and is_static(op.x):
            et = op.y.type.element_type
            value = np.asarray(shape_of(op.x), numpy_dtype(et))
            _replace(op, cann.ConstOp(dense_from_numpy(value), op.y.type))
    fold_module(module)  # the integer chains on the shapes (and tensor-form ops of constants)
    for op in [op for op in module.walk() if isinstance(op, (cann.SliceOp, cann.BroadcastToOp))]:
        new = _const_to_attr(op)
        if new is not None:
            _replace(op, new)
    from compiler.ir.rewriting import erase_dead

    erase_dead(module)
    left = [op for op in module.walk() if isinstance(op, cann.SHAPE_OPS)]
    if left:
        raise OpError([(op, f"{op.name}: its sizes are not constants at these shapes (a `?` "
                        "dimension or the data)") for op in left[:1]])
