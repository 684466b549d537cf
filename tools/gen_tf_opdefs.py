"""Generate `dialects/tf_opdefs.py` from TensorFlow's op registry.

    python -m tools.gen_tf_opdefs            # rewrites dialects/tf_opdefs.py
    python -m tools.gen_tf_opdefs --check    # exit 1 if the committed file is stale

The spec is plain Python (dicts, lists, strings, numbers): `dialects/tf.py` builds one typed IRDL
op per entry at import time, without TensorFlow.  Which ops get a typed class is the list `OPS`
below: every op type of the model zoo graphs (ResNet50, MobileNetV2, EfficientNetB0, the BERT
encoder), what BERT/GPT encoders and Keras applications use beyond them, and control flow
(functional and TF1).  Any other op still imports generically (see dialects/tf.py).
"""

from __future__ import annotations

import argparse
import os
import pprint
import sys

OPS = sorted(set("""
Const Identity IdentityN Placeholder PlaceholderWithDefault NoOp StopGradient PreventGradient Snapshot
Reshape Squeeze ExpandDims Transpose ConcatV2 Pack Unpack Split SplitV Slice StridedSlice GatherV2
GatherNd ScatterNd Tile Fill ZerosLike OnesLike Shape ShapeN Size Rank BroadcastTo BroadcastArgs
Range OneHot Pad PadV2 MirrorPad Cast Bitcast Where SelectV2 Select Cumsum ReverseV2 TopKV2 ArgMax
ArgMin Einsum
Mul AddV2 Add AddN Sub RealDiv Div DivNoNan FloorDiv FloorMod Maximum Minimum Pow SquaredDifference
Neg Abs Sqrt Rsqrt Square Exp Log Log1p Erf Erfc Tanh Sigmoid Reciprocal Sign Floor Ceil Round Sin
Cos ClipByValue Equal NotEqual Less LessEqual Greater GreaterEqual LogicalAnd LogicalOr LogicalNot
IsNan IsInf IsFinite Expm1 Rint Atan2 Cumprod
Mean Sum Max Min Prod All Any
BiasAdd Conv2D DepthwiseConv2dNative Conv2DBackpropInput Conv3D Conv3DBackpropInputV2 Relu Relu6 Elu Selu LeakyRelu
Softplus Softsign Softmax LogSoftmax MaxPool AvgPool MaxPool3D AvgPool3D MatMul BatchMatMul
BatchMatMulV2 BatchMatMulV3 FusedBatchNorm FusedBatchNormV3 ResizeBilinear ResizeNearestNeighbor
DepthToSpace SpaceToDepth LRN
If StatelessIf While StatelessWhile Case StatelessCase PartitionedCall StatefulPartitionedCall
Switch Merge Enter Exit NextIteration LoopCond
Assert CheckNumerics EnsureShape ReadVariableOp VarHandleOp
""".split()))

#: TF attribute types carried over as they are.
ATTR_TYPES = ("int", "float", "bool", "string", "type", "shape", "tensor", "func",
              "list(int)", "list(float)", "list(bool)", "list(string)", "list(type)",
              "list(shape)", "list(tensor)", "list(func)")


def _dtype_name(tf, enum: int) -> str:
    return tf.dtypes.as_dtype(enum).name


def _default(tf, attr_type: str, value) -> object:
    """An AttrValue default as plain Python (dtype names for types, None for an unknown rank)."""
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "list":
        lst = value.list
        for field in ("s", "i", "f", "b", "type", "shape", "func", "tensor"):
            items = list(getattr(lst, field))
            if items:
                if field == "s":
                    return [x.decode() for x in items]
                if field == "type":
                    return [_dtype_name(tf, x) for x in items]
                if field == "shape":
                    return [None if s.unknown_rank else [d.size for d in s.dim] for s in items]
                if field in ("func", "tensor"):
                    return None
                return [type(x)(x) if field != "f" else float(x) for x in items]
        return []
    if kind == "s":
        return value.s.decode()
    if kind == "type":
        return _dtype_name(tf, value.type)
    if kind == "shape":
        return None if value.shape.unknown_rank else [d.size for d in value.shape.dim]
    if kind in ("i", "b"):
        return getattr(value, kind)
    if kind == "f":
        return float(value.f)
    return None


def _arg(tf, a) -> dict:
    d: dict = {"name": a.name}
    if a.type_attr:
        d["type_attr"] = a.type_attr
    elif a.type_list_attr:
        d["type_list_attr"] = a.type_list_attr
    else:
        d["type"] = _dtype_name(tf, a.type)
    if a.number_attr:
        d["number_attr"] = a.number_attr
    if a.is_ref:
        d["is_ref"] = True
    return d


def op_spec(tf, op_def) -> dict:
    attrs = []
    for a in op_def.attr:
        d: dict = {"name": a.name, "type": a.type}
        if a.HasField("default_value"):
            d["default"] = _default(tf, a.type, a.default_value)
            d["has_default"] = True
        allowed = a.allowed_values.list
        if a.HasField("allowed_values"):
            if a.type in ("type", "list(type)"):
                d["allowed"] = [_dtype_name(tf, t) for t in allowed.type]
            elif a.type in ("string", "list(string)"):
                d["allowed"] = [s.decode() for s in allowed.s]
        if a.has_minimum:
            d["minimum"] = int(a.minimum)
        attrs.append(d)
    return {
        "inputs": [_arg(tf, a) for a in op_def.input_arg],
        "outputs": [_arg(tf, a) for a in op_def.output_arg],
        "attrs": attrs,
        "stateful": bool(op_def.is_stateful),
    }


def generate() -> str:
    from compiler.frontend.tf_loader import tensorflow

    tf = tensorflow()
    from tensorflow.python.framework import op_def_registry

    specs = {}
    missing = []
    for name in OPS:
        op_def = op_def_registry.get(name)
        if op_def is None:
            missing.append(name)
            continue
        specs[name] = op_spec(tf, op_def)
    if missing:
        raise SystemExit(f"gen_tf_opdefs: error: not in TensorFlow's op registry: {', '.join(missing)}")
    body = pprint.pformat(specs, width=110, sort_dicts=False)
    return (
        '"""TensorFlow op definitions for the tf dialect: GENERATED by `python -m tools.gen_tf_opdefs`\n'
        f'from TensorFlow {tf.__version__}\'s op registry.  Do not edit by hand.\n\n'
        "OPDEFS[op type] = {inputs, outputs: [{name, type | type_attr | type_list_attr, number_attr?}],\n"
        "attrs: [{name, type, default?, has_default?, allowed?, minimum?}], stateful}.\n"
        'Types are TensorFlow dtype names (float32, int64, ...)."""\n\n'
        f"TF_VERSION = {tf.__version__!r}\n\n"
        f"OPDEFS = {body}\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="gen_tf_opdefs", description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="compare with the committed file")
    p.add_argument("-o", "--output", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "dialects", "tf_opdefs.py"))
    args = p.parse_args(argv)
    text = generate()
    if args.check:
        with open(args.output) as f:
            if f.read() != text:
                print(f"{args.output} is stale: run python -m tools.gen_tf_opdefs", file=sys.stderr)
                return 1
        return 0
    with open(args.output, "w") as f:
        f.write(text)
    print(f"wrote {args.output}: {text.count(chr(10))} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
