"""Real models, built locally: a zoo of Keras / keras-hub architectures as frozen GraphDefs.

Nothing is downloaded: `weights=None`, then every variable whose value is one repeated number
(fresh BatchNorm gamma=1, beta=0, mean=0, var=1, zero biases) is perturbed so the graph looks
trained (tf-graphs.md: otherwise constant folding deletes the patterns fusion must see).
Variances stay positive.  Frozen with `convert_variables_to_constants_v2` on a concrete function
with a static input signature (batch 1), as the reference measurements were.

    path = frozen_graphdef("ResNet50", cache_dir)      # cached .pb, built once per cache_dir
    feeds = sample_inputs("BertBackbone")               # valid inputs: ids < vocab, 0/1 masks

Each model of `ZOO` has a builder and, when the Keras model's own inputs do not say it (dynamic
dimensions, int ids), an explicit static input signature (`Input`s: name, shape with batch 1,
dtype, and the range valid values come from).  The new models are small (64x64 images, few
blocks, narrow widths) but keep the features of their architecture; the four first models
(ResNet50, MobileNetV2, EfficientNetB0, BertEncoder2) are the full-size ones.
keras-hub is imported lazily, with the TensorFlow Keras backend.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from compiler.frontend.tf_loader import tensorflow

#: name -> (builder, input shape without batch)
KERAS_APPLICATIONS = {
    "ResNet50": ("ResNet50", (224, 224, 3)),
    "MobileNetV2": ("MobileNetV2", (224, 224, 3)),
    "EfficientNetB0": ("EfficientNetB0", (224, 224, 3)),
}


def perturb_variables(model, seed: int = 0) -> int:
    """Give every constant-valued variable non-trivial values; return how many were changed."""
    rng = np.random.default_rng(seed)
    changed = 0
    for v in model.variables:
        value = v.numpy()
        if value.size == 0 or not np.issubdtype(value.dtype, np.floating):
            continue
        flat = value.reshape(-1)
        if not np.all(flat == flat[0]):
            continue
        name = v.path if hasattr(v, "path") else v.name
        if "variance" in name:
            new = rng.uniform(0.5, 1.5, value.shape)
        elif "gamma" in name or "scale" in name:
            new = rng.uniform(0.5, 1.5, value.shape)
        else:
            new = value + rng.normal(0.0, 0.1, value.shape)
        v.assign(new.astype(value.dtype))
        changed += 1
    return changed


def bert_encoder(layers: int = 2, seq: int = 128, hidden: int = 256, heads: int = 4,
                 ffn: int = 1024, activation: str = "gelu", seed: int = 0):
    """A BERT/GPT-style encoder from Keras layers: MultiHeadAttention, LayerNormalization,
    Dense with GELU (erf form by default; "gelu_tanh" for the tanh form)."""
    tf = tensorflow()
    keras = tf.keras
    keras.utils.set_random_seed(seed)
    x_in = keras.Input((seq, hidden), batch_size=1, name="x")
    x = x_in
    for i in range(layers):
        att = keras.layers.MultiHeadAttention(heads, hidden // heads, name=f"attention_{i}")(x, x)
        x = keras.layers.LayerNormalization(epsilon=1e-12, name=f"ln_att_{i}")(x + att)
        if activation == "gelu_tanh":
            act = lambda t: keras.activations.gelu(t, approximate=True)  # noqa: E731
        else:
            act = "gelu"
        h = keras.layers.Dense(ffn, activation=act, name=f"ffn_in_{i}")(x)
        h = keras.layers.Dense(hidden, name=f"ffn_out_{i}")(h)
        x = keras.layers.LayerNormalization(epsilon=1e-12, name=f"ln_ffn_{i}")(x + h)
    return keras.Model(x_in, x, name=f"encoder{layers}")


def keras_application(name: str, seed: int = 0):
    tf = tensorflow()
    builder, shape = KERAS_APPLICATIONS[name]
    tf.keras.utils.set_random_seed(seed)
    return getattr(tf.keras.applications, builder)(weights=None, input_tensor=_image_input(shape))


# --- the zoo's other architectures (small, with the features of their family) ----------------

def _keras():
    return tensorflow().keras


def _conv_bn_relu(x, filters, kernel=3, strides=1, name=""):
    layers = _keras().layers
    x = layers.Conv2D(filters, kernel, strides, padding="same", use_bias=False, name=f"{name}conv")(x)
    x = layers.BatchNormalization(name=f"{name}bn")(x)
    return layers.ReLU(name=f"{name}relu")(x)


def _image_input(shape=(64, 64, 3)):
    """The model's input, named: an unnamed Keras input is `keras_tensor_<n>`, n counting every
    tensor the process made before it, so a cached graph's input name would depend on what was
    built first."""
    return _keras().Input(shape, batch_size=1, name="image")


def _classifier(x, classes=10):
    layers = _keras().layers
    x = layers.GlobalAveragePooling2D(name="gap")(x)
    return layers.Dense(classes, activation="softmax", name="logits")(x)


def preact_resnet(widths=(16, 32, 64), blocks=2, seed=0):
    """Pre-activation residual CNN (ResNet v2): BN-ReLU-Conv inside the block, identity and
    strided 1x1-projection shortcuts, the residual add after the second conv."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input()
    x = layers.Conv2D(widths[0], 3, padding="same", name="stem")(inp)
    for s, w in enumerate(widths):
        for b in range(blocks):
            n = f"s{s}b{b}_"
            stride = 2 if (b == 0 and s > 0) else 1
            pre = layers.ReLU(name=n + "relu1")(layers.BatchNormalization(name=n + "bn1")(x))
            shortcut = x
            if stride != 1 or x.shape[-1] != w:
                shortcut = layers.Conv2D(w, 1, stride, name=n + "proj")(pre)
            y = layers.Conv2D(w, 3, stride, padding="same", use_bias=False, name=n + "conv1")(pre)
            y = layers.ReLU(name=n + "relu2")(layers.BatchNormalization(name=n + "bn2")(y))
            y = layers.Conv2D(w, 3, padding="same", name=n + "conv2")(y)
            x = layers.Add(name=n + "add")([shortcut, y])
    x = layers.ReLU(name="post_relu")(layers.BatchNormalization(name="post_bn")(x))
    return keras.Model(inp, _classifier(x), name="preact_resnet")


def densenet(blocks=(4, 4), growth=12, seed=0):
    """Densely connected CNN: BN-ReLU-Conv1x1-BN-ReLU-Conv3x3 layers, each output concatenated
    onto the block's features; transitions BN-ReLU-Conv1x1-AvgPool."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input()
    x = layers.Conv2D(2 * growth, 3, padding="same", use_bias=False, name="stem")(inp)
    for bi, n_layers in enumerate(blocks):
        for li in range(n_layers):
            n = f"d{bi}l{li}_"
            y = layers.ReLU(name=n + "relu1")(layers.BatchNormalization(name=n + "bn1")(x))
            y = layers.Conv2D(4 * growth, 1, use_bias=False, name=n + "conv1")(y)
            y = layers.ReLU(name=n + "relu2")(layers.BatchNormalization(name=n + "bn2")(y))
            y = layers.Conv2D(growth, 3, padding="same", use_bias=False, name=n + "conv2")(y)
            x = layers.Concatenate(name=n + "concat")([x, y])
        if bi + 1 < len(blocks):
            n = f"t{bi}_"
            x = layers.ReLU(name=n + "relu")(layers.BatchNormalization(name=n + "bn")(x))
            x = layers.Conv2D(x.shape[-1] // 2, 1, use_bias=False, name=n + "conv")(x)
            x = layers.AveragePooling2D(2, name=n + "pool")(x)
    x = layers.ReLU(name="post_relu")(layers.BatchNormalization(name="post_bn")(x))
    return keras.Model(inp, _classifier(x), name="densenet")


def inception(blocks=3, seed=0):
    """Multi-branch inception-style CNN: per block a 1x1 branch, 1x1->3x3, 1x1->3x3->3x3 (the
    factorized 5x5) and 3x3 max pool->1x1, concatenated; Conv-BN-ReLU everywhere."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input()
    x = _conv_bn_relu(inp, 32, 3, 2, name="stem_")
    for b in range(blocks):
        n = f"mixed{b}_"
        b1 = _conv_bn_relu(x, 16, 1, name=n + "b1_")
        b2 = _conv_bn_relu(_conv_bn_relu(x, 12, 1, name=n + "b2a_"), 16, 3, name=n + "b2b_")
        b3 = _conv_bn_relu(x, 8, 1, name=n + "b3a_")
        b3 = _conv_bn_relu(_conv_bn_relu(b3, 12, 3, name=n + "b3b_"), 12, 3, name=n + "b3c_")
        b4 = layers.MaxPooling2D(3, 1, padding="same", name=n + "pool")(x)
        b4 = _conv_bn_relu(b4, 8, 1, name=n + "b4_")
        x = layers.Concatenate(name=n + "concat")([b1, b2, b3, b4])
        if b == 0:
            x = layers.MaxPooling2D(3, 2, padding="same", name="reduce_pool")(x)
    return keras.Model(inp, _classifier(x), name="inception")


def _keras_src_application(module: str, fn: str, **kwargs):
    """A Keras application's generic builder (keras.src.applications.<module>.<fn>): the real
    architecture at a small configuration the public named variants do not offer."""
    import importlib

    tensorflow()
    return getattr(importlib.import_module(f"keras.src.applications.{module}"), fn)(**kwargs)


def nasnet(seed=0):
    """NASNet-A mobile cells (keras' NASNet): separable convs, many adds and concats, reduction
    cells; one normal cell per stage, 96 penultimate filters."""
    _keras().utils.set_random_seed(seed)
    return _keras_src_application("nasnet", "NASNet", input_shape=(64, 64, 3), penultimate_filters=96,
                                  num_blocks=1, stem_block_filters=16, weights=None, classes=10)


def xception_like(widths=(32, 64, 96), middle=1, seed=0):
    """Separable-conv CNN in Xception's shape: entry blocks of ReLU-SeparableConv-BN pairs with a
    strided max pool and a strided 1x1-conv shortcut, middle blocks of three separable convs with
    an identity shortcut."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input()
    x = _conv_bn_relu(inp, 16, 3, 2, name="stem_")
    for i, w in enumerate(widths):
        n = f"entry{i}_"
        shortcut = layers.BatchNormalization(name=n + "sc_bn")(
            layers.Conv2D(w, 1, 2, padding="same", use_bias=False, name=n + "sc_conv")(x))
        y = x
        for j in range(2):
            if i > 0 or j > 0:
                y = layers.ReLU(name=n + f"relu{j}")(y)
            y = layers.SeparableConv2D(w, 3, padding="same", use_bias=False, name=n + f"sep{j}")(y)
            y = layers.BatchNormalization(name=n + f"bn{j}")(y)
        y = layers.MaxPooling2D(3, 2, padding="same", name=n + "pool")(y)
        x = layers.Add(name=n + "add")([y, shortcut])
    for i in range(middle):
        n = f"middle{i}_"
        y = x
        for j in range(3):
            y = layers.ReLU(name=n + f"relu{j}")(y)
            y = layers.SeparableConv2D(widths[-1], 3, padding="same", use_bias=False,
                                       name=n + f"sep{j}")(y)
            y = layers.BatchNormalization(name=n + f"bn{j}")(y)
        x = layers.Add(name=n + "add")([y, x])
    x = layers.ReLU(name="exit_relu")(x)
    return keras.Model(inp, _classifier(x), name="xception_like")


def resnext(widths=(32, 64), groups=8, seed=0):
    """ResNeXt bottleneck blocks: 1x1 reduce, grouped 3x3 conv (cardinality 8), 1x1 expand,
    BN everywhere, projection shortcut, residual add + ReLU."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input()
    x = _conv_bn_relu(inp, 32, 3, 2, name="stem_")
    for s, w in enumerate(widths):
        for b in range(2):
            n = f"s{s}b{b}_"
            stride = 2 if (b == 0 and s > 0) else 1
            shortcut = x
            if stride != 1 or x.shape[-1] != 2 * w:
                shortcut = layers.BatchNormalization(name=n + "sc_bn")(
                    layers.Conv2D(2 * w, 1, stride, use_bias=False, name=n + "sc_conv")(x))
            y = _conv_bn_relu(x, w, 1, name=n + "a_")
            y = layers.Conv2D(w, 3, stride, padding="same", groups=groups, use_bias=False,
                              name=n + "gconv")(y)
            y = layers.ReLU(name=n + "b_relu")(layers.BatchNormalization(name=n + "b_bn")(y))
            y = layers.BatchNormalization(name=n + "c_bn")(
                layers.Conv2D(2 * w, 1, use_bias=False, name=n + "c_conv")(y))
            x = layers.ReLU(name=n + "out")(layers.Add(name=n + "add")([shortcut, y]))
    return keras.Model(inp, _classifier(x), name="resnext")


def mobilenet_v3_small(seed=0):
    """keras' MobileNetV3Small at 96x96: hard-swish, hard-sigmoid squeeze-excite, depthwise convs."""
    keras = _keras()
    keras.utils.set_random_seed(seed)
    return keras.applications.MobileNetV3Small(input_tensor=_image_input((96, 96, 3)), weights=None,
                                               classes=10)


def convnext(seed=0):
    """keras' ConvNeXt at a small configuration (depths 1,1,2,1, widths 16-64, 64x64): 7x7
    depthwise conv, LayerNorm over channels, Dense 4x with GELU, layer scale, residual adds,
    LayerNorm + 2x2 strided conv downsampling."""
    _keras().utils.set_random_seed(seed)
    return _keras_src_application("convnext", "ConvNeXt", depths=[1, 1, 2, 1],
                                  projection_dims=[16, 32, 48, 64], default_size=64,
                                  input_tensor=_image_input(), weights=None, classes=10,
                                  name="convnext_small_zoo")


def efficientnet_v2_b0(seed=0):
    """keras' EfficientNetV2B0 at 64x64: fused MBConv (expand conv 3x3) and MBConv with SE."""
    keras = _keras()
    keras.utils.set_random_seed(seed)
    return keras.applications.EfficientNetV2B0(input_tensor=_image_input(), weights=None,
                                               classes=10)


def unet(widths=(16, 32, 48, 64), seed=0):
    """U-Net-style encoder-decoder: Conv-BN-ReLU pairs, max-pool down, three ways up (a stride-2
    Conv2DTranspose, UpSampling2D nearest, UpSampling2D bilinear), skip concatenations, a
    stride-1 Conv2DTranspose refinement and a 1x1 per-pixel sigmoid head."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input()
    x, skips = inp, []
    for i, w in enumerate(widths[:-1]):
        x = _conv_bn_relu(_conv_bn_relu(x, w, name=f"enc{i}a_"), w, name=f"enc{i}b_")
        skips.append(x)
        x = layers.MaxPooling2D(2, name=f"down{i}")(x)
    x = _conv_bn_relu(x, widths[-1], name="mid_")
    ups = {0: lambda t, w: layers.UpSampling2D(2, interpolation="bilinear", name="up_bilinear")(t),
           1: lambda t, w: layers.UpSampling2D(2, interpolation="nearest", name="up_nearest")(t),
           2: lambda t, w: layers.Conv2DTranspose(w, 2, 2, padding="same", name="up_transpose")(t)}
    for i, skip in reversed(list(enumerate(skips))):
        x = layers.Concatenate(name=f"skip{i}")([ups[i](x, widths[i]), skip])
        x = _conv_bn_relu(x, widths[i], name=f"dec{i}_")
    x = layers.Conv2DTranspose(widths[0], 3, 1, padding="same", name="refine_transpose")(x)
    out = layers.Conv2D(1, 1, activation="sigmoid", name="mask")(x)
    return keras.Model(inp, out, name="unet")


def vit(patch=8, hidden=64, heads=4, layers_n=2, mlp=128, seed=0):
    """A ViT from Keras layers: patch embedding by a strided conv, a learned class token
    concatenated in front, a learned position embedding added, pre-LN transformer blocks
    (MultiHeadAttention, GELU MLP), the class token's LayerNorm -> Dense head."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)

    class ClassToken(layers.Layer):
        def build(self, input_shape):
            self.token = self.add_weight(shape=(1, 1, input_shape[-1]), initializer="zeros",
                                         name="token")

        def call(self, x):
            token = keras.ops.broadcast_to(self.token, (keras.ops.shape(x)[0], 1, x.shape[-1]))
            return keras.ops.concatenate([token, x], axis=1)

    class PositionEmbedding(layers.Layer):
        def build(self, input_shape):
            self.pos = self.add_weight(shape=(1, *input_shape[1:]), initializer="zeros",
                                       name="position")

        def call(self, x):
            return x + self.pos

    inp = _image_input()
    x = layers.Conv2D(hidden, patch, patch, name="patch_embed")(inp)
    x = layers.Reshape((-1, hidden), name="patches")(x)
    x = PositionEmbedding(name="pos_embed")(ClassToken(name="cls_token")(x))
    for i in range(layers_n):
        y = layers.LayerNormalization(epsilon=1e-6, name=f"ln1_{i}")(x)
        y = layers.MultiHeadAttention(heads, hidden // heads, name=f"mha_{i}")(y, y)
        x = layers.Add(name=f"res1_{i}")([x, y])
        y = layers.LayerNormalization(epsilon=1e-6, name=f"ln2_{i}")(x)
        y = layers.Dense(mlp, activation="gelu", name=f"mlp_in_{i}")(y)
        y = layers.Dense(hidden, name=f"mlp_out_{i}")(y)
        x = layers.Add(name=f"res2_{i}")([x, y])
    x = layers.LayerNormalization(epsilon=1e-6, name="ln_final")(x)
    cls = layers.Lambda(lambda t: t[:, 0], name="cls")(x)
    return keras.Model(inp, layers.Dense(10, name="head")(cls), name="vit")


def keras_hub():
    """keras_hub with the TensorFlow backend (imported on first use only)."""
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    tensorflow()
    import keras_hub as hub

    return hub


#: the keras-hub backbones' small configuration (random weights)
HUB_VOCAB, HUB_SEQ = 1000, 16


def hub_backbone(cls: str, seed=0, **config):
    hub = keras_hub()
    import keras

    keras.utils.set_random_seed(seed)
    base = {"vocabulary_size": HUB_VOCAB, "num_layers": 2, "num_heads": 2, "hidden_dim": 64,
            "intermediate_dim": 128, "max_sequence_length": 32}
    return getattr(hub.models, cls)(**{**base, **config})


def recommender(users=500, items=800, categories=20, dim=16, seed=0):
    """A recommender: Embedding tables for user, item and category ids, the user x item dot
    product beside an MLP over the concatenated embeddings (int32 inputs), sigmoid score."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    user = keras.Input((1,), batch_size=1, dtype="int32", name="user_id")
    item = keras.Input((1,), batch_size=1, dtype="int32", name="item_id")
    cats = keras.Input((4,), batch_size=1, dtype="int32", name="item_categories")
    u = layers.Flatten(name="u_flat")(layers.Embedding(users, dim, name="user_table")(user))
    i = layers.Flatten(name="i_flat")(layers.Embedding(items, dim, name="item_table")(item))
    c = layers.GlobalAveragePooling1D(name="c_mean")(layers.Embedding(categories, dim, name="cat_table")(cats))
    dot = layers.Dot(axes=1, name="dot")([u, i])
    h = layers.Concatenate(name="features")([u, i, c])
    h = layers.Dense(64, activation="relu", name="mlp1")(h)
    h = layers.Dense(32, activation="relu", name="mlp2")(h)
    h = layers.Concatenate(name="wide_deep")([h, dot])
    out = layers.Dense(1, activation="sigmoid", name="score")(h)
    return keras.Model([user, item, cats], out, name="recommender")


def conv1d_sequence(steps=128, channels=16, seed=0):
    """A 1-D conv sequence model: Conv1D + BN + ReLU, a dilated Conv1D, MaxPooling1D,
    AveragePooling1D, a residual separable Conv1D, global max + average pooling, Dense head."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = keras.Input((steps, channels), batch_size=1, name="sequence")
    x = layers.Conv1D(32, 5, padding="same", use_bias=False, name="conv1")(inp)
    x = layers.ReLU(name="relu1")(layers.BatchNormalization(name="bn1")(x))
    x = layers.Conv1D(32, 3, padding="same", dilation_rate=2, activation="relu", name="dilated")(x)
    x = layers.MaxPooling1D(2, name="maxpool")(x)
    y = layers.SeparableConv1D(32, 3, padding="same", activation="relu", name="sep")(x)
    x = layers.Add(name="res")([x, y])
    x = layers.Conv1D(48, 3, strides=2, padding="valid", activation="relu", name="strided")(x)
    x = layers.AveragePooling1D(2, name="avgpool")(x)
    x = layers.Concatenate(name="pools")([layers.GlobalMaxPooling1D(name="gmax")(x),
                                          layers.GlobalAveragePooling1D(name="gavg")(x)])
    return keras.Model(inp, layers.Dense(5, activation="softmax", name="head")(x), name="conv1d_seq")


def video3d(seed=0):
    """A video classifier of 3-D layers: Conv3D + BN + ReLU, MaxPooling3D, a (2+1)-D block (a
    1x3x3 spatial Conv3D then a 3x1x1 temporal one, dilated in depth), a strided Conv3D,
    AveragePooling3D, GlobalAveragePooling3D, Dense head."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = keras.Input((8, 32, 32, 3), batch_size=1, name="video")
    x = layers.Conv3D(16, 3, padding="same", use_bias=False, name="conv1")(inp)
    x = layers.ReLU(name="relu1")(layers.BatchNormalization(name="bn1")(x))
    x = layers.MaxPooling3D((1, 2, 2), name="pool1")(x)
    x = layers.Conv3D(32, (1, 3, 3), padding="same", activation="relu", name="spatial")(x)
    x = layers.Conv3D(32, (3, 1, 1), padding="same", dilation_rate=(2, 1, 1), activation="relu",
                      name="temporal")(x)
    x = layers.Conv3D(48, 3, strides=2, padding="same", activation="relu", name="strided")(x)
    x = layers.AveragePooling3D(2, name="pool2")(x)
    x = layers.GlobalAveragePooling3D(name="gap")(x)
    return keras.Model(inp, layers.Dense(5, activation="softmax", name="head")(x), name="video3d")


# --- the registry --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Input:
    """One input of a zoo model's static signature.  values: "normal" (float, N(0, 1)), "ids"
    (ints uniform in [0, high)), "mask" (a padding mask: 1 for a random-length prefix, then 0)."""
    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    values: str = "normal"
    high: int = 0


@dataclass(frozen=True)
class ZooModel:
    build: Callable[[], object]
    family: str  # "cnn" | "transformer" | "other": which targets of issue 12 apply
    #: the static signature (batch 1); empty: the Keras model's own inputs, float, N(0, 1)
    inputs: tuple[Input, ...] = ()


def _hub_inputs(*names: str) -> tuple[Input, ...]:
    kinds = {"token_ids": Input("token_ids", (1, HUB_SEQ), "int32", "ids", HUB_VOCAB),
             "padding_mask": Input("padding_mask", (1, HUB_SEQ), "int32", "mask"),
             "segment_ids": Input("segment_ids", (1, HUB_SEQ), "int32", "ids", 2)}
    return tuple(kinds[n] for n in names)


ZOO: dict[str, ZooModel] = {
    **{n: ZooModel(lambda n=n: keras_application(n), "cnn") for n in KERAS_APPLICATIONS},
    "BertEncoder2": ZooModel(lambda: bert_encoder(layers=2), "transformer"),
    "PreActResNet": ZooModel(preact_resnet, "cnn"),
    "DenseNet": ZooModel(densenet, "cnn"),
    "Inception": ZooModel(inception, "cnn"),
    "NASNet": ZooModel(nasnet, "cnn"),
    "XceptionLike": ZooModel(xception_like, "cnn"),
    "ResNeXt": ZooModel(resnext, "cnn"),
    "MobileNetV3Small": ZooModel(mobilenet_v3_small, "cnn"),
    "ConvNeXt": ZooModel(convnext, "cnn"),
    "EfficientNetV2B0": ZooModel(efficientnet_v2_b0, "cnn"),
    "UNet": ZooModel(unet, "cnn"),
    "ViT": ZooModel(vit, "transformer"),
    "BertBackbone": ZooModel(lambda: hub_backbone("BertBackbone"), "transformer",
                             _hub_inputs("token_ids", "segment_ids", "padding_mask")),
    "GPT2Backbone": ZooModel(lambda: hub_backbone("GPT2Backbone"), "transformer",
                             _hub_inputs("token_ids", "padding_mask")),
    "DistilBertBackbone": ZooModel(lambda: hub_backbone("DistilBertBackbone"), "transformer",
                                   _hub_inputs("token_ids", "padding_mask")),
    "AlbertBackbone": ZooModel(lambda: hub_backbone("AlbertBackbone", embedding_dim=32),
                               "transformer", _hub_inputs("token_ids", "segment_ids", "padding_mask")),
    "Recommender": ZooModel(recommender, "other",
                            (Input("user_id", (1, 1), "int32", "ids", 500),
                             Input("item_id", (1, 1), "int32", "ids", 800),
                             Input("item_categories", (1, 4), "int32", "ids", 20))),
    "Conv1DSequence": ZooModel(conv1d_sequence, "other"),
    "Video3D": ZooModel(video3d, "cnn"),
}

#: name -> builder (the Keras model, not yet frozen)
MODELS: dict[str, Callable[[], object]] = {n: z.build for n, z in ZOO.items()}


def _signature(model, inputs: tuple[Input, ...]) -> tuple[Input, ...]:
    if inputs:
        return inputs
    return tuple(Input(inp.name.split(":")[0], (1, *inp.shape[1:]), str(inp.dtype))
                 for inp in model.inputs)


def freeze(model, seed: int = 0, inputs: tuple[Input, ...] = ()):
    """A frozen GraphDef (batch 1, static shapes) of a Keras model; `inputs` gives the static
    signature when the model's own inputs have dynamic dimensions (each Input's name is also
    its key when the model takes a dict)."""
    tf = tensorflow()
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    perturb_variables(model, seed)
    signature = _signature(model, inputs)
    specs = [tf.TensorSpec(i.shape, i.dtype, name=i.name) for i in signature]
    takes_dict = isinstance(getattr(model, "input", None), dict)

    def call(*xs):
        if takes_dict:
            return model({i.name: x for i, x in zip(signature, xs, strict=True)}, training=False)
        return model(list(xs) if len(xs) > 1 else xs[0], training=False)

    concrete = tf.function(call).get_concrete_function(*specs)
    frozen = convert_variables_to_constants_v2(concrete)
    return frozen.graph.as_graph_def()


def sample_inputs(name: str, seed: int = 0, graph_path: str | None = None,
                  registry: dict[str, ZooModel] | None = None) -> dict[str, np.ndarray]:
    """Inputs of zoo model `name` (of `registry`, default `ZOO`) that mean something: floats
    N(0, 1) (as cann-run draws them), ids in their table's range, padding masks of 1s then 0s.
    Shapes and dtypes of a model without an explicit signature are read from its frozen graph's
    placeholders."""
    rng = np.random.default_rng(seed)
    signature = (registry or ZOO)[name].inputs
    if not signature:
        from compiler.frontend.tf_loader import read_graphdef_file

        gd = read_graphdef_file(graph_path or frozen_graphdef(name, registry=registry))
        tf = tensorflow()
        signature = tuple(
            Input(n.name, tuple(d.size for d in n.attr["shape"].shape.dim),
                  tf.dtypes.as_dtype(n.attr["dtype"].type).name)
            for n in gd.node if n.op == "Placeholder")
    out = {}
    for i in signature:
        if i.values == "ids":
            v = rng.integers(0, i.high, i.shape)
        elif i.values == "mask":
            v = np.zeros(i.shape)
            for row in v.reshape(-1, i.shape[-1]):
                row[: rng.integers(1, i.shape[-1] + 1)] = 1
        else:
            v = rng.standard_normal(i.shape)
        out[i.name] = v.astype(i.dtype)
    return out


def default_cache_dir() -> str:
    """`$CANN_MODEL_ZOO`, else a folder in the system's temp dir (nothing is downloaded: the
    cache only saves rebuilding the models between runs)."""
    return os.environ.get("CANN_MODEL_ZOO") or os.path.join(tempfile.gettempdir(), "cann-mlir-zoo")


def _recipe_digest(recipe: str | None = None) -> str:
    """Changes whenever this file, the registry's module `recipe` or the TensorFlow, Keras or
    keras-hub version changes: a stale graph is never reused."""
    from importlib import metadata

    h = hashlib.sha256(open(__file__, "rb").read())
    if recipe:
        h.update(open(recipe, "rb").read())
    h.update(tensorflow().__version__.encode())
    for dist in ("keras", "keras-hub"):
        try:
            h.update(f"{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            pass
    return h.hexdigest()[:12]


def frozen_graphdef(name: str, cache_dir: str | None = None,
                    registry: dict[str, ZooModel] | None = None) -> str:
    """Path of `name`'s frozen GraphDef under cache_dir, building it on first use.  `registry`
    (default `ZOO`) is a dict of `ZooModel`s of another module (tests/model_zoo/holdout.py):
    its graphs are keyed by that module's source too."""
    cache_dir = cache_dir or default_cache_dir()
    models = registry or ZOO
    recipe = None if registry is None else sys.modules[next(iter(models.values())).build.__module__].__file__
    path = os.path.join(cache_dir, f"{name}-{_recipe_digest(recipe)}.pb")
    if not os.path.exists(path):
        os.makedirs(cache_dir, exist_ok=True)
        graph_def = freeze(models[name].build(), inputs=models[name].inputs)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(graph_def.SerializeToString())
        os.replace(tmp, path)
    return path
