"""TF1 TensorArrays as buffers (issue 13): the TensorArrayV3 family of a graph-mode
(control flow v1) program, after functionalization (a While whose loop variables carry the
array's handle and its flow).

A TensorArrayV3(size; dtype, element_shape) with a constant size and a fully known element
shape is one preallocated buffer `tensor<size x element_shape x dtype>`, as a TensorList is
(compiler/conversions/tf_to_cann/tensor_list_types.py): its *flow* (the float scalar TensorFlow
threads through every write to order them) is given the buffer's type, through the While loop
variables, Identity and every write, and the handle (a resource) becomes a 2 x int32 placeholder
value that nothing reads.  Then the rows (compiler/conversions/tf_to_cann/legalization.py):

  TensorArrayV3          the buffer: zeros (and the placeholder handle)
  TensorArrayWriteV3     InplaceUpdate(flow, [index], [value])     row i written in place
  TensorArrayScatterV3   InplaceUpdate(flow, indices, value)       rows written in place
  TensorArrayReadV3      GatherV2D(flow, index)
  TensorArrayGatherV3    GatherV2D(flow, indices)                  (a stack: indices 0..n-1)
  TensorArraySizeV3      the constant size

A TensorArray with dynamic_size written (WriteV3) at a loop counter's index in a While with a
trip count known at compile time is a buffer of (counter start + trip count) rows
(`grown_arrays`); otherwise dynamic_size is one error naming the TensorArrayV3 node.  One of
unknown element shape keeps its types; the op that uses it is then the legalization error.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import FunctionType, IntegerAttr, ModuleOp, TensorType, i32, i64
from xdsl.dialects.func import ReturnOp
from xdsl.ir import SSAValue
from xdsl.rewriter import Rewriter

from compiler.conversions.tf_to_cann.legalization import tf_op_type
from compiler.ir.typed import block_of, shape_of

TA_OPS = ("TensorArrayV3", "TensorArrayWriteV3", "TensorArrayScatterV3", "TensorArrayReadV3",
          "TensorArrayGatherV3", "TensorArraySizeV3")
#: ops whose result is the flow after a write: operand index of the flow they take
_FLOW_IN = {"TensorArrayWriteV3": 3, "TensorArrayScatterV3": 3}
HANDLE_TYPE = TensorType(i32, [2])


def _const(v: SSAValue):
    from compiler.interpreters.constant_eval import constant_value

    return constant_value(v)


def _attr(op, name):
    return op.properties.get(name) or op.attributes.get(name)


def grown_arrays(module: ModuleOp) -> dict:
    """TensorArrayV3 with dynamic_size -> rows (None: not known): written (WriteV3) in a While
    at a loop counter's index, it needs (the counter's start + the trip count) rows when the
    trip count is known at compile time (tensor_list_types' analysis of the cond)."""
    from compiler.conversions.tf_to_cann.tensor_list_types import (
        _def,
        _funcs,
        _scalar,
        _through,
        _trip_count,
        counter_starts,
    )
    from compiler.conversions.tf_to_cann.tensor_list_types import _sym as syms

    funcs = _funcs(module)
    out: dict = {}
    for ta in (o for o in module.walk() if tf_op_type(o) == "TensorArrayV3"):
        ds = _attr(ta, "dynamic_size")
        if ds is not None and bool(ds.value.data):
            out[ta] = None
    for op in module.walk():
        if tf_op_type(op) not in ("While", "StatelessWhile"):
            continue
        body = syms(op, "body")
        fb = funcs.get(body[0]) if body else None
        if fb is None or not fb.body.blocks:
            continue
        bargs: list[SSAValue] = list(block_of(fb.body).args)
        for k, v in enumerate(op.operands):
            ta = _def(_through(v))
            if ta not in out or _through(v) is not ta.results[1]:
                continue
            writes = [o for o in fb.body.walk() if tf_op_type(o) == "TensorArrayWriteV3"
                      and _through(o.operands[3]) is bargs[k]]
            idx = [_through(w.operands[1]) for w in writes]
            trips = _trip_count(op, funcs, k)
            if not writes or trips is None or any(i not in bargs for i in idx):
                continue
            starts = counter_starts(op, fb, idx)
            n0 = _scalar(ta.operands[0])
            if n0 is None or any(st is None for st in starts):
                continue
            out[ta] = max(n0, max(st for st in starts if st is not None) + trips)
    return out


def _buffer_type(op, grown=None) -> TensorType | None:
    n = _const(op.operands[0])
    if grown and op in grown:  # dynamic_size: the rows the loop writes
        if grown[op] is None:
            return None
        n = np.asarray(grown[op])
    es = _attr(op, "element_shape")
    shape = getattr(es, "shape", None)
    shape = shape() if callable(shape) else shape
    dtype = _attr(op, "dtype")
    ds = _attr(op, "dynamic_size")
    if n is None or shape is None or any(d < 0 for d in shape) or dtype is None or \
            (ds is not None and bool(ds.value.data) and not (grown and op in grown)):
        return None
    return TensorType(dtype, [int(np.asarray(n).reshape(())), *shape])


def _sym(op, name: str) -> str | None:
    a = _attr(op, name)
    a = getattr(a, "func", a)
    ref = getattr(a, "root_reference", None)
    return ref.data if ref is not None else None


def resolve_tensor_arrays(module: ModuleOp) -> int:
    """Retype the flows and handles of every TensorArrayV3 with a known buffer; return how many."""
    from compiler.conversions.tf_to_cann.tensor_list_types import _funcs

    funcs = _funcs(module)
    known: dict[SSAValue, TensorType] = {}
    arrays = [o for o in module.walk() if tf_op_type(o) == "TensorArrayV3"]
    grown = grown_arrays(module)
    unknown = [o for o, n in grown.items() if n is None]
    if unknown:  # one error per such array, naming its TensorArrayV3 node
        from compiler.ir.diagnostics import OpError

        raise OpError([(o, "tf.TensorArrayV3: dynamic_size, and its rows are not written at a "
                           "loop counter's index in a While whose trip count is known at "
                           "compile time; its buffer cannot be preallocated") for o in unknown])
    for ta in arrays:
        t = _buffer_type(ta, grown)
        if t is None:
            continue
        for seed, ty in ((ta.results[1], t), (ta.results[0], HANDLE_TYPE)):
            work: list[SSAValue] = [seed]
            while work:
                v = work.pop()
                if v in known:
                    continue
                known[v] = ty
                for u in list(v.uses):
                    o, k = u.operation, u.index
                    kind = tf_op_type(o)
                    if _FLOW_IN.get(kind or "") == k:
                        work.append(o.results[0])
                    elif kind in ("Identity", "Snapshot"):
                        work.append(o.results[0])
                    elif kind in ("While", "StatelessWhile"):
                        work.append(o.results[k])
                        for name in ("body", "cond"):
                            f = funcs.get(_sym(o, name) or "")
                            if f is not None and f.body.blocks:
                                work.append(block_of(f.body).args[k])
                        f = funcs.get(_sym(o, "body") or "")
                        if f is not None and f.body.blocks:
                            ret = block_of(f.body).last_op
                            if isinstance(ret, ReturnOp):
                                work.append(ret.operands[k])
    for v, t in known.items():
        if v.type != t:
            Rewriter.replace_value_with_new_type(v, t)
    reads = 0
    for o in list(module.walk()):  # a read is a row (TF1 shapes it only at run time)
        if tf_op_type(o) == "TensorArrayReadV3" and isinstance(o.operands[2].type, TensorType) \
                and o.operands[2].type.get_shape() and not _ranked(o.results[0].type):
            buf = o.operands[2].type
            Rewriter.replace_value_with_new_type(o.results[0], TensorType(
                buf.element_type, list(buf.get_shape())[1:]))
            reads += 1
    if reads:
        _refine_pointwise(module)
    from compiler.conversions.tf_to_cann.tensor_list_types import _def, _refine, _through

    for o in list(module.walk()):  # a stack (GatherV3 of Range(0, SizeV3, 1)): all the rows
        if tf_op_type(o) != "TensorArrayGatherV3" or not isinstance(o.operands[2].type, TensorType):
            continue
        rng = _def(_through(o.operands[1]))
        size = _def(_through(rng.operands[1])) if rng is not None and \
            tf_op_type(rng) == "Range" else None
        if size is not None and tf_op_type(size) == "TensorArraySizeV3" and \
                _const(rng.operands[0]) is not None and int(np.asarray(_const(rng.operands[0]))) == 0 \
                and _const(rng.operands[2]) is not None and int(np.asarray(_const(rng.operands[2]))) == 1:
            _refine(o.results[0], o.operands[2].type)
    if known:
        for f in funcs.values():
            if not f.body.blocks:
                continue
            block = block_of(f.body)
            ret = block.last_op
            outs = [o.type for o in ret.operands] if isinstance(ret, ReturnOp) else \
                list(f.function_type.outputs.data)
            f.function_type = FunctionType.from_lists([a.type for a in block.args], outs)
    return sum(1 for ta in arrays if ta.results[1] in known or shape_of(ta.results[1]))


def _ranked(t) -> bool:
    return isinstance(t, TensorType)


def _refine_pointwise(module: ModuleOp) -> None:
    """Unranked results of pointwise ops (those whose CANN op is Elementwise or Broadcast) whose
    operands are all ranked get the broadcast of the operand shapes, to a fixpoint: the shapes
    downstream of a TensorArray read, which TensorFlow's graph shape inference leaves unknown."""
    from compiler.conversions.tf_to_cann.legalization import TABLE
    from dialects import cann
    from dialects.op_kinds import Broadcast, Elementwise

    by_name = {c.name: c for c in cann.CANN.operations}
    changed = True
    while changed:
        changed = False
        for o in list(module.walk()):
            rule = TABLE.get(tf_op_type(o) or "")
            cls = by_name.get(f"cann.{rule.cann}") if rule is not None else None
            if cls is None or len(o.results) != 1 or _ranked(o.results[0].type) or not any(
                    cls.has_trait(k) for k in (Elementwise, Broadcast)):
                continue
            if not o.operands or not all(_ranked(v.type) for v in o.operands):
                continue
            try:
                shape = np.broadcast_shapes(*(shape_of(v) for v in o.operands))
            except ValueError:
                continue
            elt = getattr(o.results[0].type, "element_type", None)
            if elt is None:
                continue
            Rewriter.replace_value_with_new_type(o.results[0], TensorType(elt, list(shape)))
            changed = True


# --- the rows (compiler/conversions/tf_to_cann/legalization.py) --------------------------------

def _flow(node, i: int) -> TensorType:
    """The buffer type of operand i (a flow resolve_tensor_arrays retyped)."""
    from compiler.conversions.tf_to_cann.legalization import LegalizationError

    t = node.op.operands[i].type
    if not isinstance(t, TensorType) or not t.get_shape():
        raise LegalizationError("the TensorArray's buffer is unknown (its size and element_shape "
                                "must be constants, dynamic_size false)")
    return t


def _array(node, b):
    from dialects.common import numpy_dtype

    t = node.result_type(1)
    if not t.get_shape():
        from compiler.conversions.tf_to_cann.legalization import LegalizationError

        raise LegalizationError("size and element_shape must be constants (dynamic_size false)")
    return [b.const(np.zeros(2, np.int32)), b.const(np.zeros(t.get_shape(),
                                                             numpy_dtype(t.element_type)))]


def _index_vector(b, v):
    from dialects import cann

    if v.type.element_type != i32:
        v = b.create(cann.CastOp, [v], TensorType(i32, list(v.type.get_shape())), dst_type=i32)
    return b.reshape(v, [max(1, int(np.prod(v.type.get_shape())))])


def _write(node, b):
    from dialects import cann

    buf = _flow(node, 3)
    idx = _index_vector(b, node.operand(1))
    rows = idx.type.get_shape()[0]
    v = b.reshape(node.operand(2), [rows, *buf.get_shape()[1:]])
    return [b.create(cann.InplaceUpdateOp, [node.operand(3), idx, v], buf)]


def _read(node, b):
    from dialects import cann

    buf = _flow(node, 2)
    idx = node.operand(1)
    out = TensorType(buf.element_type, [*idx.type.get_shape(), *buf.get_shape()[1:]])
    y = b.create(cann.GatherV2DOp, [node.operand(2), idx], out, axis=IntegerAttr(0, i64))
    rt = node.op.results[0].type
    if isinstance(rt, TensorType) and all(d >= 0 for d in rt.get_shape()):
        return [b.reshape(y, rt.get_shape())]
    return [y]  # an unranked / dynamic read (TF1 shapes the element only at run time): the row


def _size(node, b):
    from dialects.common import numpy_dtype

    t = node.result_type()
    return [b.const(np.asarray(_flow(node, 1).get_shape()[0], numpy_dtype(t.element_type)))]


ROWS = {"TensorArrayV3": _array, "TensorArrayWriteV3": _write, "TensorArrayScatterV3": _write,
        "TensorArrayReadV3": _read, "TensorArrayGatherV3": _read, "TensorArraySizeV3": _size}
