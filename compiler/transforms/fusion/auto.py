"""Automatic vertical fusion, driven by op kinds (dialects/op_kinds.py), not op names: the
principle of TVM's FuseOps and XLA's loop fusion.

Every maximal producer -> consumer DAG of pointwise ops (kinds Elementwise and Broadcast) of
one output shape becomes one `cann.FusedKernel` whose body is those ops (one vector kernel;
when its first input is a cube or pool op's single-use result (an OutputFusable op), cann-to-kernel
makes the body that kernel's epilogue).  Groups grow from a root (the op whose result leaves the group) towards
its producers, in reverse program order:

  * a producer joins when it is pointwise, has a per-tile form (`tile_fn`), has the root's
    origin shape (a smaller, broadcast operand is computed by a kernel of its own), and every
    use of its result is inside the group, or else (MULTI-OUTPUT FUSION, XLA's multi-output
    fusion) its result is stored as an EXTRA RESULT of the kernel (escape_ok: the root's
    element type, readers in the block after the root, the cost model's extra_output_gain_us > 0; never in a
    group that is a cube op's epilogue or a prologue, whose kernels store one result); a
    value read outside is never recomputed (that would multiply the work of every op above it);
  * the group's live UB tiles (its inputs, the result and the intermediates live at once, each
    double-buffered) must leave a tile of at least MIN_TILE_ELEMS elements in the smallest UB
    of the chip profiles (compiler/target/chips.py): otherwise the producer stays out;
  * no cycle can form: without extra results only the root's result leaves a group, so a path
    from the group back into it would be a path from the root to one of its own producers;
    with them, a group one of whose inputs depends on a member (_has_cycle) is grown again
    without extra results, and every reader of an extra result comes after the root (the
    kernel's place).

PROLOGUES (pre-activation / densely connected CNNs put BatchNorm, as a per-channel Mul/Add,
and ReLU BEFORE a convolution): a FusedKernel, or a single pointwise op (then made a FusedKernel
of one op), whose result's only consumers are convolutions reading it as their data input x
(Cube ops with a conv geometry, data_format NHWC), whose inputs are x-shaped tensors, scalars or
per-channel vectors ([C] / [1, .., 1, C]), and that is no cube op's epilogue, is marked
`prologue` (PROLOGUE_ATTR): cann-to-kernel (compiler/conversions/cann_to_kernel/cube.py) runs its body on every A
tile of each consuming conv in UB before L1, with padded positions (conv pads, channel padding
lanes) masked back to zero, so the pre-activation tensor is never written to GM.  Several convs
reading it each recompute it (per-channel math on the A tile: cheap next to the mmad; keeping
one materialized copy would cost a kernel, a GM write and reads).  At the cann level nothing
changes (the FusedKernel is still an op: its semantics, the interpreters and the IR are the
automatic fusion's).  A FusedKernel reading into a conv that is not made a prologue is listed in
the report with the reason.  A max / average pool whose windows need no padding, read only by
convolutions as their x, is marked the same way (pool_prologue_problem): each conv computes its
A tiles from the pool's input, so the pool is no kernel (a U-Net's or VGG's 2x2 max-pool).
REDUCTION PROLOGUES (input fusion, XLA's "into reductions"): a pointwise kernel read by
InputFusable reductions (dialects/op_kinds.py: LayerNorm, AddLayerNorm, ReduceD) as a data
input, alone or next to convs reading it as x, is marked `prologue` the same way when its inputs
are of its shape, scalars or channel vectors and its live tiles plus the reduction's two leave a
tile in UB (fits_ub): each reduction kernel runs the body on its tiles in UB before reducing
(compiler/conversions/cann_to_kernel/reduction_prologue.py): BN-ReLU before a global average
pool, embedding Adds or a layer scale before a LayerNorm.
A pointwise kernel read by a row reduction (LayerNorm, AddLayerNorm) AND by other consumers
(a residual Add read by the next LayerNorm and the next residual Add) is that reduction's
prologue too, stored from UB to GM as an extra output of the reduction's kernel, which the
other consumers read (escape_host, escape_problem: CANN AddLayerNorm's optional x1 + x2
output); the reduction moves up to it so that the kernel storing it runs first.
MASK PROLOGUES (XLA duplicating cheap producers into consumer fusions): a pointwise kernel (or
op) read only by attention ops (FusedMultiHeadAttention, FusedAttention) as their mask, directly
or through a Reshape, is marked `prologue` when each input can be viewed as the mask's rank
(mask_input_shape), its tiles leave the masked softmax a tile in UB, and the cost model gains
(mask_prologue_gain_us: the mask's kernel and GM round trip against each attention's
recomputation): each masked softmax kernel runs the body on the broadcast rows of its inputs
(compiler/conversions/cann_to_kernel/attention.py masked_softmax_ops), a BERT padding mask's
Cast or a GPT-2 causal mask's Minimum + Greater.
The switch AutomaticPrologueFusion (group UBFusion) turns this off.

It answers to the name AutomaticUBFusion (group UBFusion) in switch files and `fuse disable=`.
Scalar constants (one element, no storage format) are copied into the body; other values are
the kernel's inputs.  A group of one op stays that op.  `Report` names every pointwise op left
as a kernel of its own and why no neighbour took it (the fusion report's "unfused" list).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from compiler.ir.rewriting import with_loc
from compiler.ir.typed import elem_of, str_of, tensor_of
from dialects import cann
from dialects.op_kinds import OutputFusable, is_pointwise, kind_name

#: The smallest tile (elements) a fused vector kernel may be left with.
MIN_TILE_ELEMS = 1024


@dataclass(frozen=True)
class Switch:
    """The automatic fusion as ATC switch files and `fuse disable=` see it: one UB fusion pass
    (`{"Switch": {"UBFusion": {"ALL": "off"}}}` or `AutomaticUBFusion:off` turns it off)."""

    name: str = "AutomaticUBFusion"
    group: str = "UBFusion"


SWITCH = Switch()
#: The prologue marking alone (switch files / `fuse disable=AutomaticPrologueFusion`).
PROLOGUE_SWITCH = Switch("AutomaticPrologueFusion")
#: The unit attribute of a cann.FusedKernel run as its consumer convs' A-tile prologue.
PROLOGUE_ATTR = "prologue"


def tile_fn(op: Operation) -> str | None:
    """The kernel.vec function that computes `op` on flat tiles of its result, or None when the
    op has no such form (BNInfer's statistics, BiasAdd along NCHW's axis 1)."""
    if not is_pointwise(op) or isinstance(op, (cann.FusedKernelOp, cann.BNInferOp)):
        return None
    if isinstance(op, cann.BiasAddOp):
        return "Add" if op.data_format.data != cann.DataFormat.NCHW else None
    return op.name.removeprefix("cann.")


def _static_tensor(v: SSAValue) -> bool:
    t = v.type
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def _candidate(op: Operation) -> bool:
    return (tile_fn(op) is not None and len(op.results) == 1 and op.parent_block() is not None
            and all(_static_tensor(v) for v in (*op.operands, *op.results)))


def scalar_const(v: SSAValue) -> bool:
    """A one-element constant in its origin layout (copied into a fused body)."""
    o = v.owner
    return (isinstance(o, cann.ConstOp) and cann.format_of(v.type) is None
            and _static_tensor(v) and _elems(v.type) == 1)


def _elems(t) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


def _bytes(t) -> int:
    from dialects.common import numpy_dtype

    try:
        return numpy_dtype(t.element_type).itemsize
    except ValueError:
        return 4


def min_ub_bytes() -> int:
    from compiler.target.chips import CHIPS

    return min(c.ub for c in CHIPS.values())


def live_tiles(ops: list[Operation]) -> int:
    """UB tiles a fused body holds at once: its inputs, then at each op the values computed and
    still needed (an input counts until the kernel ends: its tile is loaded once)."""
    inside = {r for o in ops for r in o.results}
    inputs = {v for o in ops for v in o.operands if v not in inside and not scalar_const(v)}
    last_use: dict[SSAValue, int] = {}
    for i, o in enumerate(ops):
        for v in o.operands:
            last_use[v] = i
    live, peak = 0, 0
    for i, o in enumerate(ops):
        live += 1  # the result
        peak = max(peak, live)
        live -= sum(1 for v in set(o.operands) if v in inside and last_use.get(v) == i)
    return len(inputs) + max(peak, 1)


def fits_ub(ops: list[Operation], extra: int = 0) -> bool:
    """The body's live tiles (and `extra` tiles of its host kernel), double-buffered, leave a
    tile of MIN_TILE_ELEMS elements in the smallest UB."""
    eb = max(_bytes(r.type) for o in ops for r in (*o.results, *o.operands))
    return min_ub_bytes() // ((live_tiles(ops) + extra) * 2) // eb >= MIN_TILE_ELEMS


@dataclass
class Unfused:
    op: str  # "Relu 'node'"
    kind: str
    reasons: list[str]


@dataclass
class Report:
    kernels: int = 0  # FusedKernels built
    epilogues: int = 0  # of them, epilogues of a cube op's kernel
    ops_fused: int = 0
    unfused: list[Unfused] = field(default_factory=list)
    prologues: int = 0  # FusedKernels marked as their consumers' prologue (convs, gathers, reductions)
    depthwise_prologues: int = 0  # depthwise convs run in their pointwise reader's A tiles
    #: "producer -> reader" node names: convs computed in their reader conv's window (conv_stage.py)
    conv_stages: list[str] = field(default_factory=list)
    extra_outputs: int = 0  # values stored as extra outputs (of fused kernels, of reductions)
    row_epilogues: int = 0  # row ops run on their matmul's output tiles (row_epilogue.py)


def _describe(op: Operation) -> str:
    from compiler.transforms.fusion.engine import describe

    return describe(op)


def _grow(root: Operation, taken: set[Operation], order: dict[Operation, float],
          allow_escapes: bool = True) -> list[Operation]:
    """The group rooted at `root`, in program order.  A producer whose result is read outside
    the group too joins as an extra output of the kernel (escapes: multi-output fusion) when
    escape_ok says so.  `order`: the block's ops by position (fuse_pointwise keeps it)."""
    members = {root}
    shape = cann.origin_shape(root.results[0].type)
    escapes = 0
    changed = True
    while changed:
        changed = False
        for m in list(members):
            for v in m.operands:
                p = v.owner
                if not isinstance(p, Operation) or p in members or p in taken \
                        or not _candidate(p) or p.parent_block() is not root.parent_block():
                    continue
                if cann.origin_shape(p.results[0].type) != shape:
                    continue
                escapes_too = any(u.operation not in members for u in p.results[0].uses)
                if escapes_too and not (allow_escapes and escape_ok(p, members, root, order)):
                    continue
                trial = _in_order(members | {p}, order)
                if (escapes or escapes_too) and (_epilogue_input(trial) is not None
                                    or _reads_into_conv(root.results[0])):
                    continue  # an epilogue or a prologue stores no extra output: it stays one
                if not fits_ub(trial, extra=escapes + escapes_too):
                    continue
                members.add(p)
                escapes += escapes_too
                changed = True
    group = _in_order(members, order)
    if allow_escapes and escaping(group) and _has_cycle(group):
        return _grow(root, taken, order, allow_escapes=False)
    return group


def _has_cycle(group: list[Operation]) -> bool:
    """Some op outside the group that the group depends on reads (transitively) a member's
    result: the fused kernel would need a value that needs it."""
    members = set(group)
    block = group[-1].parent_block()
    ancestors = _ancestors(group, block) - members
    tainted: set[Operation] = set()
    for o in block.ops if block is not None else ():
        if o in ancestors and any(isinstance(v.owner, Operation) and
                                  (v.owner in members or v.owner in tainted) for v in o.operands):
            tainted.add(o)
    return bool(tainted)


def escaping(ops: list[Operation]) -> list[SSAValue]:
    """The results of a group's ops but the root's that ops outside the group read: the fused
    kernel's extra results, in program order."""
    inside = set(ops)
    return [r for o in ops[:-1] for r in o.results
            if any(u.operation not in inside for u in r.uses)]


def extra_output_gain_us(v: SSAValue) -> float:
    """The cost model's estimate (microseconds, on the module's chip) of what storing `v` as
    an extra output of the kernel that reads it saves against computing `v` in a kernel of its
    own: v's kernel reads its inputs and writes v, then the reader's kernel reads v back; as an
    extra output the reader's kernel reads v's inputs and writes v (the extra store: v's bytes
    to HBM, as v's own kernel wrote them).  Saved: the launch (compiler/backend/perf_report.py
    LAUNCH_OVERHEAD_US) and one read of v."""
    from compiler.backend.perf_report import LAUNCH_OVERHEAD_US

    bw = _chip_of(v).hbm_tb_per_s * 1e6  # bytes per microsecond
    return LAUNCH_OVERHEAD_US + _elems(v.type) * _bytes(v.type) / bw


def _chip_of(v: SSAValue):
    """The profile of the chip of v's module (fusion/depthwise.py _module_chip)."""
    from compiler.target.chips import DEFAULT_CHIP, get_chip
    from compiler.transforms.fusion.depthwise import _module_chip

    owner = v.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    return _module_chip(op) if op is not None else get_chip(DEFAULT_CHIP)


def escape_ok(p: Operation, members: set[Operation], root: Operation,
              order: dict[Operation, float] | None = None) -> bool:
    """Whether p, read outside the group `members` (rooted at `root`) too, may join it with its
    result as an extra output: the result has the root's element type, every outside reader is
    an op of the block (a func.return too), and the cost model gains (extra_output_gain_us > 0).
    No member may depend on an outside reader (a cycle: the kernel would need what needs it):
    _grow checks the grown group (_has_cycle) and else grows it again without extra outputs.
    `order`: the block's ops by position (else found by a walk of the block)."""
    v = p.results[0]
    if elem_of(v) != elem_of(root.results[0]):
        return False
    block = root.parent_block()
    outside = [u.operation for u in v.uses if u.operation not in members]
    if any(o.parent_block() is not block for o in outside):
        return False
    if order is None or any(o not in order for o in outside):
        order = {o: i for i, o in enumerate(block.ops)} if block is not None else {}
    if any(order[o] < order[root] for o in outside):
        return False  # (a reader before the root: the kernel, at the root, would come too late)
    return extra_output_gain_us(v) > 0  # (the grown group is checked for cycles: _has_cycle)


def _ancestors(ops, block) -> set[Operation]:
    """The ops of `block` that the ops `ops` depend on (transitively)."""
    seen: set[Operation] = set()
    todo = [v for o in ops for v in o.operands]
    while todo:
        v = todo.pop()
        o = v.owner
        if isinstance(o, Operation) and o not in seen and o.parent_block() is block:
            seen.add(o)
            todo.extend(o.operands)
    return seen


def _in_order(ops, order: dict[Operation, float]) -> list[Operation]:
    """Ops of one block, in program order (`order`: the block's ops by position)."""
    return sorted(ops, key=order.__getitem__)


def live_uses(v: SSAValue) -> list[Operation]:
    """The ops reading v, but for dead pure ops (a TransData a layout rewrite left unused)."""
    return [u.operation for u in v.uses
            if not (isinstance(u.operation, cann.TransDataOp) and not u.operation.results[0].uses)]


def _host_result(v: SSAValue, shape) -> bool:
    """v is the single-use result of an OutputFusable op, of the epilogue's shape."""
    p = v.owner
    return (isinstance(p, Operation) and p.has_trait(OutputFusable, value_if_unregistered=False)
            and len(p.results) == 1 and len(set(live_uses(v))) == 1  # one consumer (x + x too)
            and cann.origin_shape(v.type) == shape)


def _pool_takes(host: Operation, others, shape) -> bool:
    """A pool kernel loads an epilogue's other inputs as its output rows: each of the result's
    shape (a cube kernel also loads channel vectors)."""
    from dialects.op_kinds import is_cube

    return is_cube(host) or all(cann.origin_shape(v.type) == shape for v in others)


def epilogue_host(fk: Operation) -> Operation | None:
    """The op (cube or pool) whose kernel runs the cann.FusedKernel `fk` as its epilogue: fk's
    input #0 is that op's single-use result, of fk's shape, in fk's block.  None: fk is a
    kernel of its own."""
    if not isinstance(fk, cann.FusedKernelOp) or not fk.inputs or fk.extra:
        return None  # (a cube or pool kernel's epilogue stores one result)
    v = fk.inputs[0]
    shape = cann.origin_shape(fk.y.type)
    host = v.owner
    if not _host_result(v, shape) or not isinstance(host, Operation) \
            or host.parent_block() is not fk.parent_block() or not _pool_takes(host, list(fk.inputs)[1:], shape):
        return None
    return host


def _epilogue_input(ops: list[Operation]) -> SSAValue | None:
    """An outside operand of the group that a cube or pool kernel can take it as its epilogue
    for."""
    inside = {r for o in ops for r in o.results}
    shape = cann.origin_shape(ops[-1].results[0].type)
    outside = [v for o in ops for v in o.operands if v not in inside and not scalar_const(v)]
    for v in outside:
        if _host_result(v, shape) and isinstance(v.owner, Operation) and \
                _pool_takes(v.owner, [u for u in outside if u is not v], shape):
            return v
    return None


def build_fused_kernel(ops: list[Operation]) -> cann.FusedKernelOp:
    """A cann.FusedKernel computing ops[-1] (the root) from the ops' outside operands; the body
    holds clones of `ops` (scalar constants copied in) on origin-shaped block arguments.  A cube
    op's single-use result among the operands is input #0 (the kernel is that op's epilogue),
    unless the group has escaping values: those are yielded after the root, the kernel's extra
    results (a vector kernel of its own stores them)."""
    inside = {r for o in ops for r in o.results}
    extra = escaping(ops)
    first = _epilogue_input(ops) if not extra else None
    inputs: list[SSAValue] = [first] if first is not None else []
    for o in ops:
        for v in o.operands:
            if v not in inside and not scalar_const(v) and v not in inputs:
                inputs.append(v)
    block = Block(arg_types=[cann.origin_tensor_type(v.type) for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for o in ops:
        for v in o.operands:
            if v not in mapping and scalar_const(v) and isinstance(v.owner, Operation):
                c = v.owner.clone()
                block.add_op(c)
                mapping[v] = c.results[0]
        new = type(o).create(operands=[mapping[v] for v in o.operands],
                             result_types=[cann.origin_tensor_type(r.type) for r in o.results],
                             properties=dict(o.properties), attributes=dict(o.attributes))
        block.add_op(new)
        for a, b in zip(o.results, new.results):
            mapping[a] = b
    root = ops[-1]
    block.add_op(cann.YieldOp.create(operands=[mapping[root.results[0]], *(mapping[v] for v in extra)]))
    fk = cann.FusedKernelOp(inputs, tensor_of(root.results[0]), Region(block),
                            [tensor_of(v) for v in extra])
    return with_loc(fk, root)


def _why_alone(op: Operation) -> list[str]:
    """Why neither a producer nor a consumer of the lone pointwise op `op` took it."""
    reasons: list[str] = []
    shape = cann.origin_shape(op.results[0].type)
    users = [u.operation for u in op.results[0].uses]
    if not [u for u in users if u.name != "func.return"]:
        reasons.append("its result is a function result only")
    fusable_users = [u for u in users if _candidate(u) or isinstance(u, cann.FusedKernelOp)]
    if len(users) > 1 and fusable_users:
        reasons.append(f"its result has {len(users)} consumers, so it stays materialized "
                       "(a value read outside a kernel is not recomputed)")
    for u in users:
        if isinstance(u, cann.FusedKernelOp) or _candidate(u):
            if cann.origin_shape(u.results[0].type) != shape:
                reasons.append(f"consumer {_describe(u)} has another shape (this op is its "
                               "broadcast operand)")
        elif not isinstance(u, Operation) or u.name == "func.return":
            continue
        else:
            k = kind_name(u) or u.name
            why = "has no per-tile form" if is_pointwise(u) else "is not pointwise"
            if k == "view" and u.results:  # name the ops the view hands the value to
                readers = ", ".join(f"{_describe(r)} ({kind_name(r) or r.name})"
                                    for r in dict.fromkeys(live_uses(u.results[0])))
                why += f"; it is read through it by {readers or 'no op'}"
            reasons.append(f"consumer {_describe(u)} is a {k} op that {why}")
    producers = [v.owner for v in op.operands if isinstance(v.owner, Operation)
                 and not isinstance(v.owner, cann.ConstOp)]
    for p in producers:
        if _candidate(p):
            if cann.origin_shape(p.results[0].type) != shape:
                reasons.append(f"producer {_describe(p)} has another shape")
            elif len(list(p.results[0].uses)) > 1:
                reasons.append(f"producer {_describe(p)} has other consumers")
        elif isinstance(p, cann.FusedKernelOp):
            if len(list(p.results[0].uses)) > 1:
                reasons.append(f"producer {_describe(p)} has other consumers (its group "
                               "took no extra result)")
            elif cann.origin_shape(p.results[0].type) != shape:
                reasons.append(f"producer {_describe(p)} has another shape")
        elif p.has_trait(OutputFusable, value_if_unregistered=False):
            n = len(set(live_uses(p.results[0])))
            k = kind_name(p) or p.name
            reasons.append(f"producer {_describe(p)} is a {k} op whose result has {n} consumers"
                           if n > 1 else f"producer {_describe(p)} is a {k} op of another shape")
        else:
            k = kind_name(p) or p.name
            reasons.append(f"producer {_describe(p)} is a {k} op")
    if not producers and users:
        reasons.append("its operands are graph inputs or constants")
    if tile_fn(op) is None and not isinstance(op, cann.FusedKernelOp):
        reasons.insert(0, "it has no per-tile form")
    return list(dict.fromkeys(reasons)) or ["no pointwise neighbour"]


def fuse_pointwise(root_op: Operation, prologues: bool = True) -> Report:
    """Group every pointwise DAG under `root_op` (a module or function) into FusedKernels;
    with `prologues`, mark those that are their consumers' prologues (mark_prologues)."""
    report = Report()
    blocks = []
    for o in root_op.walk():
        for r in o.regions:
            for b in r.blocks:
                if not isinstance(b.parent_op(), cann.FusedKernelOp):
                    blocks.append(b)
    for block in blocks:
        taken: set[Operation] = set()
        # positions of the block's ops, kept as kernels replace groups: a kernel takes its
        # root's place (just before it; the group is erased), and groups only take ops above
        # the ones visited (the block is visited bottom up)
        order: dict[Operation, float] = {o: i for i, o in enumerate(block.ops)}
        for op in reversed(list(block.ops)):
            if op in taken or not _candidate(op):
                continue
            group = _grow(op, taken, order)
            taken.update(group)
            if len(group) < 2 and _epilogue_input(group) is None:
                continue  # one op on its own: no kernel saved (a cube op's epilogue saves one)
            escaped = escaping(group)
            fk = build_fused_kernel(group)
            Rewriter.insert_op(fk, _before(group[-1]))
            order[fk] = order[group[-1]] - 0.5
            group[-1].results[0].replace_all_uses_with(fk.y)
            for ev, er in zip(escaped, fk.extra):
                ev.replace_all_uses_with(er)  # (the group's own uses are erased with it)
            for o in reversed(group):
                o.detach()
                o.erase()
            report.kernels += 1
            report.ops_fused += len(group)
            report.epilogues += epilogue_host(fk) is not None
            report.extra_outputs += len(escaped)
    if prologues:
        mark_prologues(root_op, report)
    for o in root_op.walk():
        if _candidate(o) and not isinstance(o.parent_op(), cann.FusedKernelOp) \
                and not is_prologue(o):  # (a prologue is part of its readers' kernels)
            why = _why_alone(o)
            extra = prologue_reason(o) if prologues else None
            report.unfused.append(Unfused(_describe(o), kind_name(o),
                                          why + ([extra] if extra else [])))
        elif _lone_fused_kernel(o):
            report.unfused.append(Unfused(_describe(o), "fused kernel", _why_alone(o)))
    return report


def _lone_fused_kernel(op: Operation) -> bool:
    """A FusedKernel that is a kernel of its own: no cube or pool op's epilogue, no conv's
    prologue, and not read by a conv (those are listed as "prologue rejected")."""
    return (isinstance(op, cann.FusedKernelOp) and not isinstance(op.parent_op(), cann.FusedKernelOp)
            and epilogue_host(op) is None and not is_prologue(op) and not _reads_into_conv(op.y))


def _before(op: Operation):
    from xdsl.rewriter import InsertPoint

    return InsertPoint.before(op)


# --- prologues: a pointwise kernel run on the A tiles of the convs reading it -------------------

def _conv_reader(u: Operation) -> bool:
    """A cube op with a convolution's geometry (img2col A tiles), NHWC, no A-tile scale yet."""
    from dialects.op_kinds import is_cube

    df = u.properties.get("data_format")
    return (is_cube(u) and hasattr(u, "geometry") and df is not None and str_of(df) == cann.DataFormat.NHWC
            and getattr(u, "scale", None) is None
            and not isinstance(u, cann.Conv3DOp))  # its A tiles: plain img2col (cube3d.py)


def _channel_vector(t, channels: int) -> bool:
    s = list(cann.origin_shape(t))
    return len(s) >= 1 and all(d == 1 for d in s[:-1]) and s[-1] == channels


def _index_reader(u: Operation, v: SSAValue) -> bool:
    """A GatherV2D reading v as its indices only (the index tile it loads into UB)."""
    return isinstance(u, cann.GatherV2DOp) and u.indices is v and u.x is not v


def _index_prologue_problem(result: SSAValue, inputs) -> str | None:
    """An index computation read only by gathers (Keras' Embedding: ids < 0 ? ids + n : ids)
    runs on each gather's index tile (compiler/conversions/cann_to_kernel/gather.py): its inputs
    must be index-shaped or scalars."""
    return _inputs_problem(result, inputs, "the indices' shape nor a scalar")


def _inputs_problem(result: SSAValue, inputs, what: str, channel_vectors: bool = False) -> str | None:
    """Why a prologue's inputs do not fit the tile its reader loads: each must be static and of
    the result's shape or a scalar (with `channel_vectors`: or a vector along the last axis)."""
    if not _static_tensor(result):
        return "its result has a dynamic shape"
    shape = list(cann.origin_shape(result.type))
    for v in inputs:
        if not _static_tensor(v):
            return "an input has a dynamic shape"
        s = list(cann.origin_shape(v.type))
        if s != shape and _elems(v.type) != 1 and not (
                channel_vectors and shape and _channel_vector(v.type, shape[-1])):
            return f"input {s} is neither {what}"
    return None


def _consumer_problem(result: SSAValue, reductions: bool = False, slices: bool = False) -> str | None:
    """Why the readers of `result` are not all convolutions reading it as their data input x
    (with `reductions`: or InputFusable reductions reading it as a data input; with `slices`:
    or StridedSlices of it, slice_reader)."""
    users = live_uses(result)
    if not users:
        return "its result is a function result only"
    for u in users:
        if reductions and _reduction_reader(u, result):
            continue
        if slices and slice_reader(u, result):
            continue
        if not _conv_reader(u):
            return f"consumer {_describe(u)} is not a convolution (NHWC, no A-tile scale)"
        if u.operands[0] is not result or any(v is result for v in u.operands[1:]):
            return f"consumer {_describe(u)} reads it as another operand than its data input"
    return None


def data_inputs(u: Operation) -> list[SSAValue]:
    """The operands an InputFusable reduction reduces (not its RunsOn params: gamma, beta)."""
    from xdsl.irdl import IRDLOperation

    from dialects.layouts import runs_on

    if not isinstance(u, IRDLOperation):
        return list(u.operands)
    params = runs_on(u).params
    names = [n for n, _ in type(u).get_irdl_definition().operands]  # (single operands only)
    return [v for n, v in zip(names, u.operands) if n not in params]


def _reduction_reader(u: Operation, v: SSAValue) -> bool:
    """An InputFusable reduction (a row kernel, ReduceD) reading v as a data input only."""
    from dialects.op_kinds import InputFusable

    return (u.has_trait(InputFusable, value_if_unregistered=False) and v in data_inputs(u)
            and v not in [w for w in u.operands if w not in data_inputs(u)])


def _reduction_prologue_problem(result: SSAValue, ops: list[Operation] | None, inputs) -> str | None:
    """A pointwise kernel read only by reductions as their data input runs on each tile of
    those reductions' kernels in UB before reducing (compiler/conversions/cann_to_kernel/vector.py):
    its inputs must be of the result's shape, scalars or channel vectors ([C] / [1, .., 1, C],
    the last axis), and its live tiles must leave the reduction a tile (the UB gate of fits_ub,
    the reduction's input and partial tiles counted as two more)."""
    why = _inputs_problem(result, inputs, "the reduced tensor's shape, a scalar nor a channel vector",
                          channel_vectors=True)
    if why is not None:
        return why
    if ops is not None and not fits_ub(ops, extra=2):
        return "its live tiles and the reduction's leave no tile of the minimum size in UB"
    return None


def prologue_problem(result: SSAValue, inputs, epilogue: bool,
                     ops: list[Operation] | None = None) -> str | None:
    """Why a pointwise kernel computing `result` from `inputs` (its body `ops`, when built)
    cannot be its consumers' conv prologue (or their gathers' index prologue, or their
    reductions' input prologue), or None."""
    users = live_uses(result)
    if users and all(_index_reader(u, result) for u in users):
        return "it is a cube op's epilogue" if epilogue else _index_prologue_problem(result, inputs)
    if mask_readers(result):  # attention ops' masks (through a view)
        return "it is a cube op's epilogue" if epilogue else mask_prologue_problem(result, inputs, ops)
    if users and all(_reduction_reader(u, result) for u in users):
        return "it is a cube op's epilogue" if epilogue else \
            _reduction_prologue_problem(result, ops, inputs)
    # convs, and reductions and slices too (each recomputes it on its own tiles)
    why = _consumer_problem(result, reductions=True, slices=True)
    if why is None and (why := _slice_prologue_problem(result, inputs)) is not None:
        return why
    if why is not None:
        if any(_reduction_reader(u, result) for u in users) and not epilogue:
            # read by a reduction and by others: the reduction's kernel stores it (an extra output)
            escape = escape_problem(result, ops, inputs)
            return None if escape is None else f"{why}; {escape}"
        return why
    if epilogue:
        return "it is a cube op's epilogue"
    if ops is not None and any(_reduction_reader(u, result) for u in users) \
            and not fits_ub(ops, extra=2):
        return "its live tiles and the reduction's leave no tile of the minimum size in UB"
    shape = list(cann.origin_shape(result.type))
    if not _static_tensor(result) or len(shape) != 4:
        return "its result is no static 4-d tensor"
    full = 0
    for v in inputs:
        if not _static_tensor(v):
            return "an input has a dynamic shape"
        if list(cann.origin_shape(v.type)) == shape:
            full += 1
        elif _elems(v.type) != 1 and not _channel_vector(v.type, shape[-1]):
            return (f"input {list(cann.origin_shape(v.type))} is neither the conv input's shape, "
                    "a scalar nor a per-channel vector")
    if not full:
        return "no input has the conv input's shape"
    return None


# --- multi-output prologues: a reduction's kernel stores its prologue's result for the others ---

def escape_host(result: SSAValue) -> Operation | None:
    """The row reduction (LayerNorm, AddLayerNorm) that runs the pointwise kernel computing
    `result` as its prologue AND stores `result` from UB to GM as an extra output of its kernel
    (multi-output fusion: XLA's multi-output fusion, CANN AddLayerNorm's optional x1 + x2
    output), because other consumers read it: the first row reduction reading it as a data
    input, in program order.  None when no consumer is one, or every consumer is a prologue
    taker (then each recomputes it and nothing is stored)."""
    users = list(dict.fromkeys(live_uses(result)))
    if not users or _consumer_problem(result, reductions=True) is None:
        return None
    rows = [u for u in users if _reduction_reader(u, result)
            and isinstance(u, (cann.LayerNormOp, cann.AddLayerNormOp))]
    if not rows:
        return None
    block = rows[0].parent_block()
    if block is None or any(u.parent_block() is not block for u in users):
        return None
    order = {o: i for i, o in enumerate(block.ops)}
    return min(rows, key=lambda u: order[u])


def escape_gain_us(result: SSAValue, inputs) -> float:
    """The cost model's estimate (microseconds, on the module's chip) of what storing `result`
    as an extra output of its reduction's kernel saves against a kernel of its own: the launch
    (compiler/backend/perf_report.py LAUNCH_OVERHEAD_US) and that kernel's GM traffic (its
    inputs read, its result written, the reduction's read of it) less the reduction kernel's
    new traffic (the inputs read instead of the result, the extra output written)."""
    from compiler.backend.perf_report import LAUNCH_OVERHEAD_US

    bw = _chip_of(result).hbm_tb_per_s * 1e6  # bytes per microsecond
    y = _elems(result.type) * _bytes(result.type)
    ins = sum(_elems(v.type) * _bytes(v.type) for v in inputs)
    alone = ins + y + y  # the kernel reads its inputs, writes y; the reduction reads y
    fused = ins + y  # the reduction reads the inputs, writes y (the extra output)
    return LAUNCH_OVERHEAD_US + (alone - fused) / bw


def escape_problem(result: SSAValue, ops: list[Operation] | None, inputs) -> str | None:
    """Why the pointwise kernel computing `result` (read by a row reduction as a data input and
    by other consumers) cannot run in that reduction's kernel with `result` as an extra output
    (escape_host), or None: its inputs as a reduction prologue's, its live tiles, the
    reduction's two and the extra output's leave a tile in UB, the reduction's other operands
    are defined before it (the reduction's kernel then moves up to it: no consumer of the
    extra output runs before the kernel storing it, no cycle), and the cost model's gain is
    positive."""
    host = escape_host(result)
    if host is None:
        return "no row reduction (LayerNorm, AddLayerNorm) reads it as a data input to store it"
    why = _inputs_problem(result, inputs, "the reduced tensor's shape, a scalar nor a channel vector",
                          channel_vectors=True)
    if why is not None:
        return f"no extra output of {_describe(host)}: {why}"
    if ops is not None and not fits_ub(ops, extra=3):
        return (f"no extra output of {_describe(host)}: its live tiles, the reduction's and the "
                "stored tile leave no tile of the minimum size in UB")
    fk = result.owner
    if _first_consumer(fk, host) is not host:
        for v in host.operands:
            if v is not result and not _defined_before(v, fk) and not isinstance(v.owner, cann.ConstOp):
                return (f"no extra output of {_describe(host)}: another consumer runs before it "
                        "and it cannot move up (an operand is computed after this kernel)")
    if escape_gain_us(result, inputs) <= 0:
        return f"no extra output of {_describe(host)}: the cost model finds no gain"
    return None


def _defined_before(v: SSAValue, op) -> bool:
    o = v.owner
    if not isinstance(o, Operation):
        return True  # a block argument
    block = o.parent_block()
    if block is None or not isinstance(op, Operation) or block is not op.parent_block():
        return False
    for x in block.ops:
        if x is op:
            return False
        if x is o:
            return True
    return False


def _first_consumer(fk, host: Operation) -> Operation | None:
    """The first op after fk in its block that reads fk's result."""
    block = host.parent_block()
    assert block is not None
    users = set(live_uses(fk.results[0]))
    return next((x for x in block.ops if x in users), None)


def _move_host_up(fk: Operation) -> None:
    """Place fk's escape host right after fk, with the constants it reads that come later
    (escape_problem checked its other operands): the extra output is then stored before any
    other consumer of fk runs."""
    host = escape_host(fk.results[0])
    if host is None or _first_consumer(fk, host) is host:
        return
    block = fk.parent_block()
    assert block is not None
    at = fk
    for v in host.operands:
        c = v.owner
        if isinstance(c, cann.ConstOp) and not _defined_before(v, fk):
            c.detach()
            block.insert_op_after(c, at)
            at = c
    host.detach()
    block.insert_op_after(host, at)


def _fk_problem(fk: cann.FusedKernelOp) -> str | None:
    if fk.extra:
        return "it has extra results (a prologue's values stay in UB)"
    return prologue_problem(fk.results[0], list(fk.inputs), epilogue_host(fk) is not None,
                            fk.body_ops())


def pool_prologue_problem(p: Operation) -> str | None:
    """Why the pool `p` cannot run on the A tiles of the convs reading it, or None.  A static
    NHWC pool is, on each conv's A tile, the max (mean) of kh*kw img2col tiles of its input x,
    the conv's strides and dilations times the pool's, shifted by the window offset; a SAME
    pool's offsets outside x are masked out (compiler/conversions/cann_to_kernel/fused.py
    emit_pool_prologue): the pooled tensor is never written to GM and the pool is no kernel."""
    if not isinstance(p, (cann.MaxPoolOp, cann.AvgPoolOp)):
        return "not a pool"
    if p.data_format.data != cann.DataFormat.NHWC:
        return "the pool is not NHWC"
    if not _static_tensor(p.x) or not _static_tensor(p.y):
        return "a dynamic shape"
    return _consumer_problem(p.results[0])


def is_prologue(fk: Operation) -> bool:
    """fk (a FusedKernel or a pool) is marked as its consumers' prologue and still is one."""
    if isinstance(fk, (cann.MaxPoolOp, cann.AvgPoolOp)):
        return PROLOGUE_ATTR in fk.attributes and pool_prologue_problem(fk) is None
    if isinstance(fk, (cann.PadDOp, cann.BroadcastToDOp)):
        from compiler.transforms.fusion.resample import resample_problem

        return PROLOGUE_ATTR in fk.attributes and resample_problem(fk) is None
    if isinstance(fk, cann.ConcatV2DOp):
        from compiler.transforms.fusion.concat_stage import concat_problem

        return PROLOGUE_ATTR in fk.attributes and concat_problem(fk) is None
    if isinstance(fk, cann.ResizeBilinearV2Op):
        from compiler.transforms.fusion.resample import bilinear_problem

        return PROLOGUE_ATTR in fk.attributes and bilinear_problem(fk) is None
    return (isinstance(fk, cann.FusedKernelOp) and PROLOGUE_ATTR in fk.attributes
            and _fk_problem(fk) is None)


def _reads_into_conv(v: SSAValue) -> bool:
    """v is read by a conv as its data input, by a gather as its indices, by an InputFusable
    reduction as a data input, or only by attention ops as their mask (mask_readers) (the
    consumers that take a prologue)."""
    return any((_conv_reader(u) and u.operands[0] is v) or _index_reader(u, v)
               or _reduction_reader(u, v) for u in live_uses(v)) or bool(mask_readers(v))


def mark_prologues(root_op: Operation, report: Report) -> None:
    """Mark the FusedKernels that are prologues; a lone pointwise op that would be one becomes a
    FusedKernel of one op first.  Rejections (a kernel reading into a conv) go to the report."""
    from xdsl.dialects.builtin import UnitAttr

    for op in list(root_op.walk()):
        if isinstance(op.parent_op(), cann.FusedKernelOp):
            continue
        if isinstance(op, (cann.MaxPoolOp, cann.AvgPoolOp)) and _reads_into_conv(op.y):
            if pool_prologue_problem(op) is None:
                op.attributes[PROLOGUE_ATTR] = UnitAttr()
                report.prologues += 1
            continue
        if isinstance(op, cann.ResizeBilinearV2Op):
            from compiler.transforms.fusion.resample import bilinear_problem

            if bilinear_problem(op) is None:  # computed on its convs' staged windows
                op.attributes[PROLOGUE_ATTR] = UnitAttr()
                report.prologues += 1
            continue
        if isinstance(op, (cann.PadDOp, cann.BroadcastToDOp)):
            from compiler.transforms.fusion.resample import resample_problem

            if resample_problem(op) is None:  # a resample staged into its convs' input rows
                op.attributes[PROLOGUE_ATTR] = UnitAttr()
                report.prologues += 1
            continue
        if isinstance(op, cann.ConcatV2DOp):
            from compiler.transforms.fusion.concat_stage import concat_problem

            if concat_problem(op) is None:  # a concat staged into its convs' fmap loads
                op.attributes[PROLOGUE_ATTR] = UnitAttr()
                report.prologues += 1
            continue
        if _candidate(op) and _reads_into_conv(op.results[0]):
            inputs = [v for v in op.operands if not scalar_const(v)]
            why = prologue_problem(op.results[0], inputs, _epilogue_input([op]) is not None, [op])
            if why is not None:
                continue  # listed with its reasons as an unfused op (fuse_pointwise)
            fk = build_fused_kernel([op])
            Rewriter.insert_op(fk, _before(op))
            op.results[0].replace_all_uses_with(fk.y)
            op.detach()
            op.erase()
            report.kernels += 1
            report.ops_fused += 1
            op = fk
        if not isinstance(op, cann.FusedKernelOp) or not _reads_into_conv(op.y):
            continue
        why = _fk_problem(op)
        if why is None:
            op.attributes[PROLOGUE_ATTR] = UnitAttr()
            report.prologues += 1
            if escape_host(op.y) is not None:
                _move_host_up(op)
                report.extra_outputs += 1
        elif epilogue_host(op) is None:  # (a cube or pool op's epilogue is no kernel of its own)
            report.unfused.append(Unfused(_describe(op), "prologue rejected",
                                          [f"not its consumers' prologue: {why}"]))


def prologue_reason(op: Operation) -> str | None:
    """For a lone pointwise op read by a conv: why it is not that conv's prologue."""
    if not _reads_into_conv(op.results[0]):
        return None
    inputs = [v for v in op.operands if not scalar_const(v)]
    why = prologue_problem(op.results[0], inputs, _epilogue_input([op]) is not None, [op])
    return None if why is None else f"not a prologue: {why}"


# --- mask prologues: a pointwise kernel run on the mask tiles of the attention kernels reading it ---
#
# XLA duplicates cheap producers into their consumers' fusions; here an attention mask computed
# by a pointwise kernel (a padding mask's Cast to bool, a causal mask's Minimum + Greater), read
# only by FusedMultiHeadAttention / FusedAttention ops as their mask, directly or through a
# Reshape, is each attention's MASK PROLOGUE: the masked softmax kernel
# (compiler/conversions/cann_to_kernel/attention.py masked_softmax_ops) loads the kernel's inputs
# instead of the mask, broadcast to the scores' rows as it loads the mask, and runs the body on
# the tile in UB.  A pointwise body commutes with broadcasting, and the view keeps the elements'
# row-major order, so each input is viewed as the mask's rank (mask_input_shape).  Each attention
# recomputes it: mask_prologue_gain_us weighs that against the mask's kernel and GM round trip.

def _attention_mask_reader(u: Operation, v: SSAValue) -> bool:
    """An attention op reading v as its mask only."""
    return (isinstance(u, (cann.FusedMultiHeadAttentionOp, cann.FusedAttentionOp))
            and u.mask is v and sum(1 for w in u.operands if w is v) == 1)


def mask_views(v: SSAValue) -> list[Operation] | None:
    """The Reshapes between v and the attention ops that read it as their mask through them,
    when every reader of v is such an attention op or such a Reshape (each read only by
    attention ops as their mask); else None."""
    users = list(dict.fromkeys(live_uses(v)))
    if not users:
        return None
    views: list[Operation] = []
    for u in users:
        if isinstance(u, cann.ReshapeOp):
            inner = list(dict.fromkeys(live_uses(u.y)))
            if not inner or not all(_attention_mask_reader(w, u.y) for w in inner):
                return None
            views.append(u)
        elif not _attention_mask_reader(u, v):
            return None
    return views


def mask_readers(v: SSAValue) -> list[Operation]:
    """The attention ops reading v as their mask, directly or through a Reshape (mask_views),
    or [] when some reader of v is another op."""
    views = mask_views(v)
    if views is None:
        return []
    direct = [u for u in dict.fromkeys(live_uses(v)) if not isinstance(u, cann.ReshapeOp)]
    return direct + [w for r in views for w in dict.fromkeys(live_uses(r.results[0]))]


def mask_input_shape(s: list[int], result: list[int], mask: list[int]) -> list[int] | None:
    """The shape an input of shape s (broadcast to the kernel's result shape `result`, numpy
    rules) is viewed as so that it broadcasts to the mask `mask` (the result reshaped) and the
    scores as the result does: the mask's shape for an input of the result's shape (a view keeps
    the row-major order), else the mask's axes with s's extents at the result's axes greater
    than 1, which the reshape must keep in order (it only inserts or drops axes of 1); None
    when neither holds."""
    if len(s) > len(result):
        return None
    s = [1] * (len(result) - len(s)) + list(s)
    if s == list(result):
        return list(mask)
    keep_r = [i for i, d in enumerate(result) if d != 1]
    keep_m = [j for j, d in enumerate(mask) if d != 1]
    if [result[i] for i in keep_r] != [mask[j] for j in keep_m]:
        return None
    out = [1] * len(mask)
    for i, j in zip(keep_r, keep_m):
        out[j] = s[i]
    return out


def _mask_shape(result: SSAValue) -> list[int]:
    views = mask_views(result) or []
    return list(cann.origin_shape(views[0].results[0].type)) if views \
        else list(cann.origin_shape(result.type))


def mask_prologue_gain_us(result: SSAValue, ops: list[Operation] | None, inputs) -> float:
    """The cost model's estimate (microseconds, on the module's chip) of what running the
    pointwise kernel computing `result` in each attention's masked softmax saves: the mask's
    kernel (compiler/backend/perf_report.py LAUNCH_OVERHEAD_US, its inputs read and the mask
    written) and each attention's read of the mask, less each attention's reads of the inputs
    and the body's vector work on the scores' elements (compiler/target/cost_model.py
    vector_core_cycles, over the chip's vector cores)."""
    from compiler.backend.perf_report import LAUNCH_OVERHEAD_US
    from compiler.target.cost_model import vector_core_cycles

    chip = _chip_of(result)
    bw = chip.hbm_tb_per_s * 1e6  # bytes per microsecond
    y = _elems(result.type) * _bytes(result.type)
    ins = sum(_elems(v.type) * _bytes(v.type) for v in inputs)
    readers = mask_readers(result)
    work = 0.0
    for u in readers:
        scores = _attention_scores_elems(u)
        per_core = -(-scores // chip.vector_cores)
        for o in ops or []:
            fn = tile_fn(o)
            if fn is not None:
                work += vector_core_cycles(fn, per_core, max(_bytes(r.type) for r in o.results))
    alone = LAUNCH_OVERHEAD_US + (ins + y + len(readers) * y) / bw
    fused = len(readers) * ins / bw + work / chip.clock_mhz
    return alone - fused


def _attention_scores_elems(u: Operation) -> int:
    """Elements of the [B, N, Sq, Sk] scores of an attention op."""
    if isinstance(u, cann.FusedMultiHeadAttentionOp):
        b, s, _ = cann.origin_shape(u.x.type)
        return b * u.num_heads.value.data * s * s
    assert isinstance(u, cann.FusedAttentionOp)  # (mask_readers: one of the two)
    q, k = cann.origin_shape(u.q.type), cann.origin_shape(u.k.type)
    n = 1
    for d in q[:-1]:
        n *= d
    sk = k[1] if cann.is_bsnd(u) else k[-1] if bool(u.adj_k.value.data) else k[-2]
    return n * sk


def mask_prologue_problem(result: SSAValue, inputs, ops: list[Operation] | None) -> str | None:
    """Why the pointwise kernel computing `result` (read only by attention ops as their mask,
    mask_readers) cannot be their mask prologue, or None: static shapes, each input viewable
    as the mask's rank (mask_input_shape), the body's live tiles and the masked softmax's
    (scores, mask, result) leave a tile in UB, and the cost model gains."""
    if not _static_tensor(result):
        return "its result has a dynamic shape"
    shape = list(cann.origin_shape(result.type))
    mask = _mask_shape(result)
    for v in inputs:
        if not _static_tensor(v):
            return "an input has a dynamic shape"
        s = list(cann.origin_shape(v.type))
        if mask_input_shape(s, shape, mask) is None:
            return (f"input {s} does not broadcast to the mask {mask} through the view "
                    f"of {shape}")
    if ops is not None and not fits_ub(ops, extra=3):
        return "its live tiles and the masked softmax's leave no tile of the minimum size in UB"
    if mask_prologue_gain_us(result, ops, inputs) <= 0:
        return "the cost model finds no gain in recomputing it in each attention"
    return None


# --- injective prologues: a pointwise kernel run on the tiles a StridedSlice moves -------------
#
# TVM's FuseOps fuses elementwise ops into injective ones: a StridedSlice reading a pointwise
# kernel's result (NASNet's Cropping2D of a ReLU that convs read too) applies the body to the
# elements it gathers (compiler/conversions/cann_to_kernel/data_movement.py
# StridedSliceToVectorBody: each input of the result's shape loaded with the slice's own view),
# so with the convs' A-tile prologues the pointwise result is never written to GM.

def slice_reader(u: Operation, v: SSAValue) -> bool:
    """A StridedSliceD reading v as the sliced tensor."""
    return isinstance(u, cann.StridedSliceDOp) and u.x is v


def _slice_prologue_problem(result: SSAValue, inputs) -> str | None:
    """With a StridedSlice among the readers: each input must be of the result's shape or a
    scalar (the slice loads them with its own view; a channel vector has none)."""
    if not any(slice_reader(u, result) for u in live_uses(result)):
        return None
    return _inputs_problem(result, inputs, "the sliced tensor's shape nor a scalar")
