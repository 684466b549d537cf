"""Space-to-batch convolutions recomposed as dilated ones (before the table lowers the graph).

TensorFlow runs a dilated convolution whose kernel has no native dilation (Keras' dilated
Conv1D, `tf.nn.atrous_conv2d`, `tf.nn.with_space_to_batch`) as

    SpaceToBatchND(x, block, paddings) -> [ExpandDims] -> Conv2D / DepthwiseConv2dNative
        (VALID, stride 1, dilation 1) -> [Squeeze] -> BatchToSpaceND(., block, crops)

which is exactly one convolution with dilation `block` on x padded by `paddings - crops`:
phase p of block b holds xpad[j*b + p], the VALID conv of that phase gives
out_p[i] = sum_t w[t] xpad[(i+t)*b + p], and BatchToSpaceND writes it at m = i*b + p, so
y[m] = sum_t w[t] xpad[m + t*b] (then cropped).  CANN's Conv2D / DepthwiseConv2D take the
dilation as their own attribute (cann-facts.md: conv geometry), so the chain becomes one op and
the pad / transpose kernels and the layout changes around them go.  Keras runs a dilated Conv3D
the same way (SpaceToBatchND over D, H, W): it becomes one Conv3D with dilations and explicit
pads, which conv3d.py lowers as any other.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue

from compiler.conversions.tf_to_cann.legalization import tf_op_type
from compiler.ir.rewriting import with_loc
from dialects.common import int_array

_CONVS = ("Conv2D", "DepthwiseConv2dNative", "Conv3D")


def _const(v: SSAValue):
    from compiler.interpreters.constant_eval import constant_value

    return constant_value(v)


def _attr_ints(op: Operation, name: str) -> list[int] | None:
    a = op.attributes.get(name, op.properties.get(name))
    if isinstance(a, DenseArrayBase):
        return [int(x) for x in a.get_values()]
    return None


def _attr_str(op: Operation, name: str, default: str) -> str:
    a = op.attributes.get(name, op.properties.get(name))
    return a.data if isinstance(a, StringAttr) else default


def _single_use(v: SSAValue) -> bool:
    return sum(1 for _ in v.uses) == 1


def _shape(v: SSAValue) -> list[int] | None:
    if not isinstance(v.type, TensorType):
        return None
    s = list(v.type.get_shape())
    return None if any(d < 0 for d in s) else s


def _unit_view(op: Operation) -> list[int] | None:
    """For an ExpandDims / Squeeze / Reshape that only inserts or removes size-1 axes: the
    axes (of the larger-rank side) that are inserted or removed, else None."""
    if tf_op_type(op) not in ("ExpandDims", "Squeeze", "Reshape"):
        return None
    xs, ys = _shape(op.operands[0]), _shape(op.results[0])
    if xs is None or ys is None or len(xs) == len(ys):
        return None
    small, big = (xs, ys) if len(xs) < len(ys) else (ys, xs)
    if tf_op_type(op) == "ExpandDims":
        d = _const(op.operands[1])
        if d is None:
            return None
        a = int(d.reshape(-1)[0]) % len(big)
        return [a] if big[:a] + big[a + 1:] == small and big[a] == 1 else None
    if tf_op_type(op) == "Squeeze":
        dims = _attr_ints(op, "squeeze_dims")
        if not dims:
            return None
        axes = sorted(a % len(big) for a in dims)
        kept = [d for i, d in enumerate(big) if i not in axes]
        return axes if kept == small and all(big[a] == 1 for a in axes) else None
    return None  # a Reshape: which unit axis it inserts may be ambiguous


def _view_axes(op: Operation) -> list[int]:
    """`_unit_view` of a view `_match` accepted (never None there)."""
    axes = _unit_view(op)
    assert axes is not None
    return axes


def _axis_map(removed: list[int], big_rank: int) -> list[int]:
    """Index in the larger-rank value of each axis of the smaller-rank one."""
    return [i for i in range(big_rank) if i not in removed]


def _match(b2s: Operation):
    """(s2b, expand, conv, squeeze) of a space-to-batch convolution ending at b2s, else None."""
    y = b2s.operands[0]
    squeeze = y.owner if isinstance(y.owner, Operation) else None
    if squeeze is None or not _single_use(y):
        return None
    conv = squeeze
    if tf_op_type(squeeze) in _CONVS:
        squeeze = None
    else:
        if _unit_view(squeeze) is None:
            return None
        owner = squeeze.operands[0].owner
        if not isinstance(owner, Operation) or tf_op_type(owner) not in _CONVS \
                or not _single_use(squeeze.operands[0]):
            return None
        conv = owner
    u = conv.operands[0]
    expand = u.owner if isinstance(u.owner, Operation) else None
    if expand is None or not _single_use(u):
        return None
    s2b = expand
    if tf_op_type(expand) == "SpaceToBatchND":
        expand = None
    else:
        if _unit_view(expand) is None:
            return None
        owner = expand.operands[0].owner
        if not isinstance(owner, Operation) or tf_op_type(owner) != "SpaceToBatchND" \
                or not _single_use(expand.operands[0]):
            return None
        s2b = owner
    return s2b, expand, conv, squeeze


def _geometry(b2s: Operation, s2b: Operation, expand, conv: Operation, squeeze):
    """(dilations, explicit_paddings) of the equivalent conv, or None when it does not fit."""
    rank = 5 if tf_op_type(conv) == "Conv3D" else 4
    channels_last = "NDHWC" if rank == 5 else "NHWC"
    if _attr_str(conv, "data_format", channels_last) != channels_last \
            or _attr_str(conv, "padding", "") != "VALID":
        return None
    if any(v != 1 for v in (_attr_ints(conv, "strides") or [0])) \
            or any(v != 1 for v in (_attr_ints(conv, "dilations") or [1] * rank)):
        return None
    block, pads = _const(s2b.operands[1]), _const(s2b.operands[2])
    block2, crops = _const(b2s.operands[1]), _const(b2s.operands[2])
    if block is None or pads is None or block2 is None or crops is None:
        return None
    block, block2 = [int(v) for v in block.reshape(-1)], [int(v) for v in block2.reshape(-1)]
    pads, crops = pads.reshape(-1, 2).tolist(), crops.reshape(-1, 2).tolist()
    xs, ws = _shape(s2b.operands[0]), _shape(conv.operands[0])
    if block != block2 or xs is None or ws is None or len(pads) != len(block) \
            or len(crops) != len(block):
        return None
    # where the spatial axes of x (1 .. M) sit in the conv's 4-D input
    amap = list(range(len(ws))) if expand is None else _axis_map(_view_axes(expand), len(ws))
    if len(ws) != rank or len(amap) != len(xs) or amap[0] != 0 or amap[-1] != rank - 1:
        return None
    if squeeze is not None:  # the output view must remove the same axes the input view added
        out_map = _axis_map(_view_axes(squeeze), rank)
        if out_map != amap:
            return None
    dil, ep = [1] * rank, [0] * (2 * rank)
    for i, (k, p, c) in enumerate(zip(block, pads, crops)):
        a = amap[i + 1]
        if not 0 < a < rank - 1:
            return None
        before, after = int(p[0]) - int(c[0]), int(p[1]) - int(c[1])
        if before < 0 or after < 0:
            return None
        dil[a] = k
        ep[2 * a], ep[2 * a + 1] = before, after
    return dil, ep


def _recompose(b2s: Operation) -> bool:
    m = _match(b2s)
    if m is None:
        return False
    s2b, expand, conv, squeeze = m
    g = _geometry(b2s, s2b, expand, conv, squeeze)
    if g is None:
        return False
    dil, ep = g
    x = s2b.operands[0]
    zs = _shape(b2s.results[0])
    xs = _shape(x)
    if zs is None or xs is None:
        return False
    block = s2b.parent
    assert block is not None
    new_ops: list[Operation] = []
    v = x
    if expand is not None:
        big = list(xs)
        for a in _view_axes(expand):
            big.insert(a, 1)
        e = type(expand).create(operands=[x, *expand.operands[1:]],
                                result_types=[TensorType(x.type.element_type, big)],
                                attributes=dict(expand.attributes), properties=dict(expand.properties))
        new_ops.append(e)
        v = e.results[0]
    zbig = list(zs)
    if squeeze is not None:
        for a in _view_axes(squeeze):
            zbig.insert(a, 1)
    attrs = dict(conv.attributes)
    props = dict(conv.properties)
    for d in (attrs, props):
        if "dilations" in d:
            d["dilations"] = int_array(dil)
        if "padding" in d:
            d["padding"] = StringAttr("EXPLICIT")
        if "explicit_paddings" in d:
            d["explicit_paddings"] = int_array(ep)
    if "explicit_paddings" not in attrs and "explicit_paddings" not in props:
        attrs["explicit_paddings"] = int_array(ep)
    c = type(conv).create(operands=[v, *conv.operands[1:]],
                          result_types=[TensorType(conv.results[0].type.element_type, zbig)],
                          attributes=attrs, properties=props)
    new_ops.append(c)
    out = c.results[0]
    if squeeze is not None:
        s = type(squeeze).create(operands=[out, *squeeze.operands[1:]],
                                 result_types=[b2s.results[0].type],
                                 attributes=dict(squeeze.attributes), properties=dict(squeeze.properties))
        new_ops.append(s)
        out = s.results[0]
    for o, old in zip(new_ops, [op for op in (expand, conv, squeeze) if op is not None]):
        with_loc(o, old)
    block.insert_ops_before(new_ops, b2s)
    b2s.results[0].replace_all_uses_with(out)
    for dead in (b2s, squeeze, conv, expand, s2b):
        if dead is not None:
            dead.detach()
            dead.erase(safe_erase=False)
    return True


def recompose_dilated_convs(module: Operation) -> int:
    """Every space-to-batch convolution in the module -> one dilated convolution; the count."""
    found = [op for op in module.walk() if tf_op_type(op) == "BatchToSpaceND"]
    return sum(_recompose(op) for op in found)

