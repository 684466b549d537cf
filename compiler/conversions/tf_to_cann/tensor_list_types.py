"""TensorLists as buffers: the first step of tf-to-cann gives every `!tf.variant` TensorList
handle the dense type of the buffer it stands for, `tensor<N x element_shape x dtype>`.

A TensorList (what `tf.TensorArray`, Keras's recurrent layers, `tf.map_fn` and `tf.scan` use
inside a While) is then one preallocated tensor: TensorListReserve / TensorListFromTensor make
it, TensorListGetItem reads row i, TensorListSetItem writes row i in place (cann.InplaceUpdate),
TensorListStack is the buffer itself (compiler/conversions/tf_to_cann/legalization.py's rows).  The type of a handle
comes from where it is made (Reserve: its constant element_shape and num_elements;
FromTensor: the tensor) and flows, to a fixpoint, through Identity, SetItem, While loop
variables (operand k = cond/body argument k = body result k = result k) and If / Case branch
arguments and results.  Function signatures are updated with their arguments and results.

A handle whose buffer type cannot be found (a non-constant size, a list that grows with
PushBack) keeps its `!tf.variant` type; the op that reads it is then the legalization error.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr, TensorType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.rewriter import Rewriter

from compiler.conversions.tf_to_cann.legalization import tf_op_type
from compiler.ir.typed import block_of
from dialects.tf import is_variant

LIST_OPS = {"TensorListReserve", "TensorListFromTensor", "TensorListGetItem",
            "TensorListSetItem", "TensorListStack", "TensorListLength",
            "TensorListElementShape"}
_LOOPS = {"While", "StatelessWhile"}
_CONDS = {"If", "StatelessIf", "Case", "StatelessCase"}


def _const(v: SSAValue) -> np.ndarray | None:
    from compiler.interpreters.constant_eval import constant_value

    return constant_value(v)


def _merge(a, b):
    """The more specific of two buffer types (dims known in either); a `(n, dtype)` pair is a
    buffer whose element shape is not known yet (a TensorArray made without element_shape)."""
    if a is None or b is None:
        return a or b
    if isinstance(a, tuple):
        return b
    if isinstance(b, tuple):
        return a
    sa, sb = a.get_shape(), b.get_shape()
    if len(sa) != len(sb) or a.element_type != b.element_type:
        return a
    dims = [x if x >= 0 else y for x, y in zip(sa, sb)]
    return TensorType(a.element_type, dims)


def _with_rows(lst, row_type: Attribute):
    """The buffer type `lst` (type or (n, dtype)) completed by one element's type."""
    if not isinstance(row_type, TensorType) or lst is None:
        return lst
    if isinstance(lst, tuple):
        n, elt = lst
        return TensorType(elt, [n, *row_type.get_shape()])
    if len(row_type.get_shape()) + 1 != len(lst.get_shape()):
        return lst
    return _merge(lst, TensorType(lst.element_type, [lst.get_shape()[0], *row_type.get_shape()]))


def _funcs(module: ModuleOp) -> dict[str, FuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, FuncOp)}


def _sym(op, name: str) -> list[str]:
    a = op.properties.get(name) or op.attributes.get(name)
    a = getattr(a, "func", a)
    if isinstance(a, SymbolRefAttr):
        return [a.root_reference.data]
    data = getattr(a, "data", None)
    if isinstance(data, tuple):  # Case's branches
        out = []
        for x in data:
            x = getattr(x, "func", x)
            if isinstance(x, SymbolRefAttr):
                out.append(x.root_reference.data)
        return out
    return []


def _element_type(op) -> Attribute | None:
    a = op.properties.get("element_dtype") or op.attributes.get("element_dtype")
    return a


def _through(v: SSAValue) -> SSAValue:
    while isinstance(v, OpResult) and tf_op_type(v.owner) in ("Identity", "Snapshot"):
        v = v.owner.operands[0]
    return v


def _def(v: SSAValue):
    """The op defining v (None for a block argument)."""
    return v.owner if isinstance(v, OpResult) else None


def _flag(op, name: str) -> bool:
    a = op.properties.get(name) or op.attributes.get(name)
    v = getattr(a, "value", a)
    return bool(getattr(v, "data", v)) if a is not None else False


def _scalar(v: SSAValue) -> int | None:
    c = _const(v)
    return int(np.asarray(c).reshape(())) if c is not None and np.asarray(c).size == 1 else None


def _trip_count(op, funcs, k_counter: int) -> int | None:
    """The trip count of the While `op` when its cond is a conjunction of `arg_j < bound`
    (bound a constant, or a loop-invariant variable starting as one) on counters that start
    at a constant and step by 1 in the body; None when it is not known at compile time."""
    body, cond = _sym(op, "body"), _sym(op, "cond")
    fb, fc = (funcs.get(body[0]) if body else None), (funcs.get(cond[0]) if cond else None)
    if fb is None or fc is None or not fb.body.blocks or not fc.body.blocks:
        return None
    bargs, cargs = list(fb.body.blocks.first.args), list(fc.body.blocks.first.args)
    brets = fb.body.blocks.first.last_op.operands
    inits = list(op.operands)

    def counter_start(j: int) -> int | None:
        r = _def(_through(brets[j])) if j < len(brets) else None
        if r is None or tf_op_type(r) not in ("AddV2", "Add"):
            return None
        a, b = (_through(x) for x in r.operands)
        other = b if a is bargs[j] else a if b is bargs[j] else None
        return _scalar(inits[j]) if other is not None and _scalar(other) == 1 else None

    def invariant(j: int) -> bool:
        return j < len(brets) and _through(brets[j]) is bargs[j]

    def conjuncts(v):
        o = _def(_through(v))
        if o is None:
            return []
        t = tf_op_type(o)
        if t == "LogicalAnd":
            return conjuncts(o.operands[0]) + conjuncts(o.operands[1])
        return [o] if t == "Less" else []

    trips = None
    last = fc.body.blocks.first.last_op
    for less in conjuncts(last.operands[0]) if last.operands else []:
        a, b = (_through(x) for x in less.operands)
        if a not in cargs:
            continue
        j = cargs.index(a)
        start = counter_start(j)
        bound = _scalar(b) if b not in cargs else (
            _scalar(inits[cargs.index(b)]) if invariant(cargs.index(b)) else None)
        if start is None or bound is None:
            continue
        trips = bound - start if trips is None else min(trips, bound - start)
    del k_counter
    return None if trips is None else max(trips, 0)


def counter_starts(loop: Operation, body: FuncOp, counters: list[SSAValue]) -> list[int | None]:
    """The start value of each loop counter (a body argument that the body returns incremented
    by an AddV2 / Add), None for one that is not such a counter or whose start is no constant:
    the first index written by a loop that grows a TensorList / TensorArray."""
    bargs: list[SSAValue] = list(block_of(body.body).args)
    ret = block_of(body.body).last_op
    assert ret is not None  # the body's return
    starts: list[int | None] = []
    for i in counters:
        j = bargs.index(i)
        r = _def(_through(ret.operands[j]))
        ok = r is not None and tf_op_type(r) in ("AddV2", "Add")
        starts.append(_scalar(loop.operands[j]) if ok else None)
    return starts


def grown_lists(module: ModuleOp) -> dict:
    """Reserve op -> rows (None: not known), for a TensorList made with 0 (or -1) elements that a While grows
    (TensorListSetItem with resize_if_index_out_of_bounds: tf.TensorArray(dynamic_size=True))
    at the index of a counter of the loop: rows = the counter's start + the loop's trip count
    when that is known at compile time (a preallocated buffer; the writes stay in place)."""
    funcs = _funcs(module)
    out: dict[Operation, int | None] = {}
    for op in module.walk():
        if tf_op_type(op) not in _LOOPS:
            continue
        body = _sym(op, "body")
        fb = funcs.get(body[0]) if body else None
        if fb is None or not fb.body.blocks:
            continue
        bargs: list[SSAValue] = list(block_of(fb.body).args)
        for k, v in enumerate(op.operands):
            src = _def(_through(v))
            if src is None or tf_op_type(src) != "TensorListReserve":
                continue
            n0 = _scalar(src.operands[1])
            if n0 is None or n0 > 0:
                continue
            sets = [o for o in fb.body.walk() if tf_op_type(o) == "TensorListSetItem"
                    and _flag(o, "resize_if_index_out_of_bounds") and
                    _through(o.operands[0]) is bargs[k]]
            if not sets:
                continue
            idx = [_through(s.operands[1]) for s in sets]
            if any(i not in bargs for i in idx):
                out[src] = None
                continue
            trips = _trip_count(op, funcs, k)
            starts = counter_starts(op, fb, idx)
            if trips is None or any(s is None for s in starts):
                out[src] = None  # grows by an amount not known at compile time
                continue
            out[src] = max(max(s for s in starts if s is not None) + trips, 0)
    return out


def _made(op, grown=None):
    """The buffer type a TensorList-making op gives its result."""
    t = tf_op_type(op)
    if t == "TensorListFromTensor":
        ty = op.operands[0].type
        return ty if isinstance(ty, TensorType) else None
    if t == "TensorListReserve":
        shape, n, elt = _const(op.operands[0]), _const(op.operands[1]), _element_type(op)
        if grown and op in grown:
            n = grown[op]
            if n is None:  # grown by a loop whose trip count is not known: no buffer
                return None
        if shape is None or n is None or elt is None or int(np.asarray(n)) < 0:
            return None
        dims = [int(d) for d in np.asarray(shape).reshape(-1)]
        if np.asarray(shape).ndim == 0 and dims == [-1]:
            return (int(np.asarray(n)), elt)  # unknown element shape: from the items
        return TensorType(elt, [int(np.asarray(n)), *dims])
    return None


def resolve_tensor_lists(module: ModuleOp) -> int:
    """Retype every TensorList handle whose buffer type is found; return how many."""
    values = [v for o in module.walk() for v in (*o.results,
              *(a for r in o.regions for b in r.blocks for a in b.args)) if is_variant(v.type)]
    if not values:
        return 0
    funcs = _funcs(module)
    grown = grown_lists(module)
    unknown = [o for o, n in grown.items() if n is None]
    if unknown:  # one error per such list, naming its TensorListReserve node
        from compiler.ir.diagnostics import OpError

        raise OpError([(o, "tf.TensorListReserve: the list grows (dynamic_size: "
                           "TensorListSetItem with resize_if_index_out_of_bounds) in a While "
                           "whose trip count is not known at compile time (or not at a loop "
                           "counter's index); its buffer cannot be preallocated") for o in unknown])
    known: dict[SSAValue, TensorType | tuple] = {}

    def put(v: SSAValue, t) -> bool:
        if t is None or not is_variant(v.type):
            return False
        new = _merge(known.get(v), t)
        if new is not None and new != known.get(v):
            known[v] = new
            return True
        return False

    def returns(name: str) -> list[SSAValue]:
        f = funcs.get(name)
        if f is None or not f.body.blocks:
            return []
        last = block_of(f.body).last_op
        return list(last.operands) if isinstance(last, ReturnOp) else []

    def args(name: str) -> list[SSAValue]:
        f = funcs.get(name)
        return list(block_of(f.body).args) if f is not None and f.body.blocks else []

    ops = [o for o in module.walk() if any(is_variant(v.type) for v in (*o.operands, *o.results))]
    for _ in range(64):
        changed = False
        for op in ops:
            t = tf_op_type(op)
            if t in ("TensorListReserve", "TensorListFromTensor"):
                changed |= put(op.results[0], _made(op, grown))
            elif t == "TensorListSetItem":
                lst = _with_rows(known.get(op.operands[0]), op.operands[2].type)
                changed |= put(op.results[0], lst)
                changed |= put(op.operands[0], known.get(op.results[0]))
            elif t == "TensorListGetItem":
                changed |= put(op.operands[0], _with_rows(known.get(op.operands[0]),
                                                          op.results[0].type))
            elif t in ("Identity", "Snapshot"):
                changed |= put(op.results[0], known.get(op.operands[0]))
            elif t in _LOOPS:
                cond, body = _sym(op, "cond"), _sym(op, "body")
                bargs, cargs = args(body[0]) if body else [], args(cond[0]) if cond else []
                brets = returns(body[0]) if body else []
                for k, v in enumerate(op.operands):
                    group = [v, op.results[k]] + [x[k] for x in (bargs, cargs, brets) if k < len(x)]
                    t_k = None
                    for g in group:
                        t_k = _merge(t_k, known.get(g))
                    for g in group:
                        changed |= put(g, t_k)
            elif t in _CONDS:
                names = _sym(op, "branches") or _sym(op, "then_branch") + _sym(op, "else_branch")
                for name in names:
                    for k, a in enumerate(args(name)):
                        if k + 1 < len(op.operands):
                            changed |= put(a, known.get(op.operands[k + 1]))
                    for k, r in enumerate(returns(name)):
                        if k < len(op.results):
                            changed |= put(op.results[k], known.get(r))
        if not changed:
            break
    known = {v: t for v, t in known.items() if isinstance(t, TensorType)}
    for op in ops:  # a list made and never read (tf.TensorArray(...).unstack makes a new one)
        if tf_op_type(op) in ("TensorListReserve", "TensorListFromTensor") and \
                not op.results[0].uses and op.parent is not None:
            known.pop(op.results[0], None)
            op.detach()
            op.erase()
    for v, vt in known.items():
        if isinstance(vt, TensorType):  # (the others were dropped above)
            Rewriter.replace_value_with_new_type(v, vt)
    for op in ops:  # a grown list's stack: TF says [?, ...], the buffer knows its rows
        t0 = op.operands[0].type if op.operands else None
        if tf_op_type(op) == "TensorListStack" and op.parent is not None and \
                isinstance(t0, TensorType) and not is_variant(t0):
            _refine(op.results[0], t0)
    for f in funcs.values():
        if not f.body.blocks:
            continue
        block = block_of(f.body)
        outs = list(block.last_op.operands) if isinstance(block.last_op, ReturnOp) else \
            list(f.function_type.outputs.data)
        from xdsl.dialects.builtin import FunctionType

        f.function_type = FunctionType.from_lists(
            [a.type for a in block.args], [o.type if isinstance(o, SSAValue) else o for o in outs])
    return len(known)


def _refine(v: SSAValue, t: TensorType) -> None:
    """Give v (and the Identity chain reading it) the static type t when v's is t with some
    dimensions unknown."""
    vt = v.type
    if not isinstance(vt, TensorType) or vt == t or vt.element_type != t.element_type or \
            len(vt.get_shape()) != len(t.get_shape()) or any(
            d >= 0 and d != e for d, e in zip(vt.get_shape(), t.get_shape())):
        return
    v = Rewriter.replace_value_with_new_type(v, t)
    for u in list(v.uses):
        if tf_op_type(u.operation) in ("Identity", "Snapshot"):
            _refine(u.operation.results[0], t)


# --- the rows (compiler/conversions/tf_to_cann/legalization.py): TensorList ops on their buffers -------------------


def _buffer(node, i: int = 0) -> TensorType:
    from compiler.conversions.tf_to_cann.legalization import LegalizationError

    t = node.op.operands[i].type
    if not isinstance(t, TensorType) or is_variant(t):
        raise LegalizationError(
            "the TensorList's buffer type is unknown (its element_shape and num_elements must "
            "be constants, or it must come from TensorListFromTensor)")
    if any(d < 0 for d in t.get_shape()):
        raise LegalizationError(f"the TensorList's buffer {t} is not static")
    return t


def _reserve(node, b):
    """A buffer of zeros (what reading an unwritten element gives)."""
    from dialects.common import numpy_dtype

    t = node.result_type()
    if is_variant(t) or any(d < 0 for d in t.get_shape()):
        from compiler.conversions.tf_to_cann.legalization import LegalizationError

        raise LegalizationError(
            "element_shape and num_elements must be constants; a list that grows "
            "(dynamic_size: TensorListSetItem with resize_if_index_out_of_bounds) must be "
            "written at a loop counter's index in a While whose trip count is known at "
            "compile time")
    return [b.const(np.zeros(t.get_shape(), numpy_dtype(t.element_type)))]


def _from_tensor(node, b):
    return [node.operand(0)]


def _get_item(node, b):
    """Row i of the buffer: GatherV2D on axis 0 with the (scalar) index."""
    from xdsl.dialects.builtin import IntegerAttr, i64

    from dialects import cann

    buf = _buffer(node)
    row = TensorType(buf.element_type, list(buf.get_shape())[1:])
    y = b.create(cann.GatherV2DOp, [node.operand(0), node.operand(1)], row,
                 axis=IntegerAttr(0, i64))
    return [b.reshape(y, node.static_result_shape())]


def _set_item(node, b):
    """The buffer with row i replaced, in place: cann.InplaceUpdate(buffer, [i], [item]) (CANN's
    InplaceUpdate: y is an alias of x), one row written per call, not the whole buffer."""
    from dialects import cann

    buf = _buffer(node)
    shape = list(buf.get_shape())
    idx = b.reshape(node.operand(1), [1])
    item = b.reshape(node.operand(2), [1, *shape[1:]])
    return [b.create(cann.InplaceUpdateOp, [node.operand(0), idx, item], buf)]


def _stack(node, b):
    from compiler.conversions.tf_to_cann.legalization import LegalizationError

    buf = _buffer(node)
    n = node.int("num_elements", -1)
    if n not in (-1, buf.get_shape()[0]):
        raise LegalizationError(f"num_elements = {n}, the buffer holds {buf.get_shape()[0]}")
    rt = node.result_type()
    dims = list(rt.get_shape()) if isinstance(rt, TensorType) else []
    if len(dims) == len(buf.get_shape()) and all(
            d < 0 or d == e for d, e in zip(dims, buf.get_shape())):
        return [node.operand(0)]  # the buffer itself (a grown list's rows: TF says ?)
    return [b.reshape(node.operand(0), node.static_result_shape())]


def _length(node, b):
    from dialects.common import numpy_dtype

    t = node.result_type()
    return [b.const(np.asarray(_buffer(node).get_shape()[0], numpy_dtype(t.element_type)))]


def _element_shape(node, b):
    from dialects.common import numpy_dtype

    t = node.result_type()
    return [b.const(np.asarray(_buffer(node).get_shape()[1:], numpy_dtype(t.element_type)))]


ROWS = {"TensorListReserve": _reserve, "TensorListFromTensor": _from_tensor,
        "TensorListGetItem": _get_item, "TensorListSetItem": _set_item,
        "TensorListStack": _stack, "TensorListLength": _length,
        "TensorListElementShape": _element_shape}
