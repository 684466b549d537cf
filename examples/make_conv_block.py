"""Write examples/conv_block.pbtxt: a small Conv2D + BiasAdd + Relu GraphDef (text protobuf).

    python examples/make_conv_block.py [output.pbtxt]

Input `x` 1x8x8x3 (NHWC, f32), filter 3x3x3x4, SAME padding, stride 1, bias of 4, Relu, and an
Identity `output`.  Weights are random with a fixed seed and rounded to 3 decimals, so the file is
reproducible, readable (float_val lists instead of packed bytes) and the values are exact in f32.
They are deliberately not one repeated number (see docs on freshly initialised weights).
"""

from __future__ import annotations

import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

SEED = 20240601


def build_graph_def():
    import tensorflow as tf

    rng = np.random.default_rng(SEED)
    filt = np.round(rng.normal(0.0, 0.5, size=(3, 3, 3, 4)), 3).astype(np.float32)
    bias = np.round(rng.uniform(-0.5, 0.5, size=(4,)), 3).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [1, 8, 8, 3], name="x")
        w = tf.constant(filt, name="conv1/filter")
        b = tf.constant(bias, name="conv1/bias")
        y = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME", name="conv1/Conv2D")
        y = tf.nn.bias_add(y, b, name="conv1/BiasAdd")
        y = tf.nn.relu(y, name="conv1/Relu")
        tf.identity(y, name="output")
    graph_def = g.as_graph_def()
    # Readable weights: float_val lists instead of the packed tensor_content bytes.
    for node in graph_def.node:
        if node.op == "Const":
            tensor = node.attr["value"].tensor
            values = tf.make_ndarray(tensor)
            tensor.ClearField("tensor_content")
            tensor.float_val.extend(values.ravel().tolist())
            assert np.array_equal(tf.make_ndarray(tensor), values)
    return graph_def


def main(argv: list[str]) -> int:
    from google.protobuf import text_format

    out = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "conv_block.pbtxt")
    with open(out, "w") as f:
        f.write(text_format.MessageToString(build_graph_def()))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
