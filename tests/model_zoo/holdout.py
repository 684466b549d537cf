"""A hold-out set: architectures the zoo (tests/model_zoo/zoo.py) does not have, to check that
the compiler's mechanisms are general (the zoo is what the work was tuned on).

    path = holdout_graphdef("ShuffleNet")                 # cached .pb, built once per cache_dir
    feeds = holdout_inputs("RobertaBackbone")             # valid inputs: ids < vocab, 0/1 masks

Built like the zoo (`zoo.freeze`: weights=None / random, perturbed, batch 1, static shapes; the
cache is the zoo's `$CANN_MODEL_ZOO`, keyed by this file too) from Keras layers, Keras
applications and keras-hub backbones the zoo has not; small inputs and narrow widths.
`benchmarks/zoo.py --holdout` measures them; tests/pytest/test_holdout.py keeps the passing
ones passing.
"""

from __future__ import annotations

import numpy as np

from tests.model_zoo.zoo import (
    HUB_VOCAB,
    Input,
    ZooModel,
    _conv_bn_relu,
    _hub_inputs,
    _image_input,
    _keras,
    frozen_graphdef,
    hub_backbone,
    keras_hub,
    sample_inputs,
)


def _classifier(x, classes=10):
    layers = _keras().layers
    x = layers.GlobalAveragePooling2D(name="gap")(x)
    return layers.Dense(classes, name="logits")(x)


def shufflenet(widths=(48, 96), groups=4, seed=0):
    """ShuffleNet units: grouped 1x1 conv, channel shuffle (Reshape-Transpose-Reshape),
    depthwise 3x3 + BN, grouped 1x1 conv; identity add, or the strided unit's concat with an
    average-pooled shortcut."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input()
    x = _conv_bn_relu(inp, 24, 3, 2, name="stem_")

    def shuffle(t, name):
        h, w, c = t.shape[1:]
        t = layers.Reshape((h, w, groups, c // groups), name=name + "split")(t)
        t = layers.Permute((1, 2, 4, 3), name=name + "swap")(t)
        return layers.Reshape((h, w, c), name=name + "merge")(t)

    for s, width in enumerate(widths):
        for b in range(2):
            n = f"s{s}b{b}_"
            stride = 2 if b == 0 else 1
            out = width - x.shape[-1] if stride == 2 else width
            y = layers.Conv2D(width // 4, 1, groups=groups if s else 1, use_bias=False,
                              name=n + "gconv1")(x)
            y = layers.ReLU(name=n + "relu1")(layers.BatchNormalization(name=n + "bn1")(y))
            y = shuffle(y, n + "shuffle_")
            y = layers.DepthwiseConv2D(3, stride, padding="same", use_bias=False, name=n + "dw")(y)
            y = layers.BatchNormalization(name=n + "bn2")(y)
            y = layers.Conv2D(out, 1, groups=groups, use_bias=False, name=n + "gconv2")(y)
            y = layers.BatchNormalization(name=n + "bn3")(y)
            if stride == 2:
                sc = layers.AveragePooling2D(3, 2, padding="same", name=n + "pool")(x)
                x = layers.ReLU(name=n + "out")(layers.Concatenate(name=n + "cat")([sc, y]))
            else:
                x = layers.ReLU(name=n + "out")(layers.Add(name=n + "add")([x, y]))
    return keras.Model(inp, _classifier(x), name="shufflenet")


def squeezenet(seed=0):
    """SqueezeNet fire modules: squeeze 1x1, expand 1x1 and 3x3 concatenated, max pools, a 1x1
    conv classifier averaged globally, softmax."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input()
    x = layers.Conv2D(32, 3, 2, activation="relu", name="stem")(inp)
    x = layers.MaxPooling2D(3, 2, name="pool0")(x)

    def fire(t, squeeze, expand, name):
        s = layers.Conv2D(squeeze, 1, activation="relu", name=name + "squeeze")(t)
        e1 = layers.Conv2D(expand, 1, activation="relu", name=name + "e1")(s)
        e3 = layers.Conv2D(expand, 3, padding="same", activation="relu", name=name + "e3")(s)
        return layers.Concatenate(name=name + "cat")([e1, e3])

    x = fire(x, 16, 32, "fire2_")
    x = fire(x, 16, 32, "fire3_")
    x = layers.MaxPooling2D(3, 2, name="pool3")(x)
    x = fire(x, 32, 64, "fire4_")
    x = layers.Conv2D(10, 1, activation="relu", name="conv10")(x)
    x = layers.GlobalAveragePooling2D(name="gap")(x)
    return keras.Model(inp, layers.Softmax(name="prob")(x), name="squeezenet")


def se_resnext(widths=(32, 64), groups=4, seed=0):
    """SE-ResNeXt blocks: 1x1 reduce, grouped 3x3 conv, 1x1 expand, a squeeze-excite gate
    (global pool, Dense ReLU, Dense sigmoid, Multiply) before the residual add."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input()
    x = _conv_bn_relu(inp, 32, 3, 2, name="stem_")
    for s, w in enumerate(widths):
        n = f"s{s}_"
        stride = 2 if s else 1
        sc = layers.BatchNormalization(name=n + "sc_bn")(
            layers.Conv2D(2 * w, 1, stride, use_bias=False, name=n + "sc_conv")(x))
        y = _conv_bn_relu(x, w, 1, name=n + "a_")
        y = layers.Conv2D(w, 3, stride, padding="same", groups=groups, use_bias=False,
                          name=n + "gconv")(y)
        y = layers.ReLU(name=n + "b_relu")(layers.BatchNormalization(name=n + "b_bn")(y))
        y = layers.BatchNormalization(name=n + "c_bn")(
            layers.Conv2D(2 * w, 1, use_bias=False, name=n + "c_conv")(y))
        g = layers.GlobalAveragePooling2D(keepdims=True, name=n + "se_pool")(y)
        g = layers.Dense(w // 4, activation="relu", name=n + "se_fc1")(g)
        g = layers.Dense(2 * w, activation="sigmoid", name=n + "se_fc2")(g)
        y = layers.Multiply(name=n + "se_scale")([y, g])
        x = layers.ReLU(name=n + "out")(layers.Add(name=n + "add")([sc, y]))
    return keras.Model(inp, _classifier(x), name="se_resnext")


def tcn(steps=64, channels=8, width=24, seed=0):
    """A temporal conv net: residual blocks of two causal dilated Conv1Ds (dilation 1, 2, 4)
    with ReLU, a 1x1 Conv1D shortcut where the width changes, the last step to a Dense head."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = keras.Input((steps, channels), batch_size=1, name="sequence")
    x = inp
    for i, d in enumerate((1, 2, 4)):
        n = f"block{i}_"
        y = layers.Conv1D(width, 3, padding="causal", dilation_rate=d, activation="relu",
                          name=n + "conv1")(x)
        y = layers.Conv1D(width, 3, padding="causal", dilation_rate=d, activation="relu",
                          name=n + "conv2")(y)
        sc = x if x.shape[-1] == width else layers.Conv1D(width, 1, name=n + "proj")(x)
        x = layers.ReLU(name=n + "out")(layers.Add(name=n + "add")([sc, y]))
    last = layers.Cropping1D((steps - 1, 0), name="last_step")(x)
    last = layers.Flatten(name="flat")(last)
    return keras.Model(inp, layers.Dense(4, name="head")(last), name="tcn")


def _transformer_block(x, heads, key_dim, mlp, name):
    layers = _keras().layers
    y = layers.LayerNormalization(epsilon=1e-6, name=name + "ln1")(x)
    y = layers.MultiHeadAttention(heads, key_dim, attention_axes=(len(x.shape) - 2,),
                                  name=name + "mha")(y, y)
    x = layers.Add(name=name + "res1")([x, y])
    y = layers.LayerNormalization(epsilon=1e-6, name=name + "ln2")(x)
    y = layers.Dense(mlp, activation="swish", name=name + "mlp_in")(y)
    y = layers.Dense(x.shape[-1], name=name + "mlp_out")(y)
    return layers.Add(name=name + "res2")([x, y])


def mobilevit(seed=0):
    """MobileViT-like: conv stem, an inverted residual, a MobileViT block (3x3 conv, 1x1 conv
    to d, unfold into 2x2 patches by Reshape / Transpose, transformer blocks across patches of
    the same pixel position, fold back, 1x1 conv, concatenated with the block input, 3x3
    fusion conv)."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input((32, 32, 3))
    x = _conv_bn_relu(inp, 16, 3, 2, name="stem_")
    y = layers.Conv2D(32, 1, activation="swish", name="mv2_expand")(x)
    y = layers.DepthwiseConv2D(3, padding="same", activation="swish", name="mv2_dw")(y)
    x = layers.Add(name="mv2_add")([x, layers.Conv2D(16, 1, name="mv2_project")(y)])
    h, w, p, d = 16, 16, 2, 32
    local = layers.Conv2D(16, 3, padding="same", activation="swish", name="mvit_local")(x)
    t = layers.Conv2D(d, 1, name="mvit_to_d")(local)
    # unfold: (1, h, w, d) -> (1, p*p, h/p * w/p, d)
    t = layers.Reshape((h // p, p, w // p, p, d), name="unfold_split")(t)
    t = layers.Permute((2, 4, 1, 3, 5), name="unfold_perm")(t)
    t = layers.Reshape((p * p, (h // p) * (w // p), d), name="unfold_merge")(t)
    for i in range(2):
        t = _transformer_block(t, 2, 16, 64, name=f"mvit_t{i}_")
    t = layers.Reshape((p, p, h // p, w // p, d), name="fold_split")(t)
    t = layers.Permute((3, 1, 4, 2, 5), name="fold_perm")(t)
    t = layers.Reshape((h, w, d), name="fold_merge")(t)
    t = layers.Conv2D(16, 1, activation="swish", name="mvit_from_d")(t)
    x = layers.Concatenate(name="mvit_cat")([x, t])
    x = layers.Conv2D(16, 3, padding="same", activation="swish", name="mvit_fuse")(x)
    return keras.Model(inp, _classifier(x), name="mobilevit")


def swin_like(size=16, window=4, dim=32, heads=2, seed=0):
    """Swin-like window attention: patch embedding, LayerNorm, the map cut into 4x4 windows
    (Reshape / Transpose / Reshape), multi-head attention inside each window (windows on the
    batch axis), windows merged back, residual + MLP; then a cyclic shift (tf.roll) of half a
    window and the same again; patch merging by a 2x2 space-to-depth and a Dense."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    tf = __import__("compiler.frontend.tf_loader", fromlist=["tensorflow"]).tensorflow()
    inp = _image_input((32, 32, 3))
    x = layers.Conv2D(dim, 2, 2, name="patch_embed")(inp)
    nw = size // window

    class WindowAttention(layers.Layer):
        def __init__(self, shift, **kw):
            super().__init__(**kw)
            self.shift = shift
            self.norm = layers.LayerNormalization(epsilon=1e-5)
            self.mha = layers.MultiHeadAttention(heads, dim // heads)

        def call(self, t):
            y = self.norm(t)
            if self.shift:
                y = tf.roll(y, (-self.shift, -self.shift), (1, 2))
            y = tf.reshape(y, (1, nw, window, nw, window, dim))
            y = tf.transpose(y, (0, 1, 3, 2, 4, 5))
            y = tf.reshape(y, (nw * nw, window * window, dim))
            y = self.mha(y, y)
            y = tf.reshape(y, (1, nw, nw, window, window, dim))
            y = tf.transpose(y, (0, 1, 3, 2, 4, 5))
            y = tf.reshape(y, (1, size, size, dim))
            if self.shift:
                y = tf.roll(y, (self.shift, self.shift), (1, 2))
            return t + y

    for i, shift in enumerate((0, window // 2)):
        x = WindowAttention(shift, name=f"wattn{i}")(x)
        y = layers.LayerNormalization(epsilon=1e-5, name=f"mlp_ln{i}")(x)
        y = layers.Dense(2 * dim, activation="gelu", name=f"mlp_in{i}")(y)
        x = layers.Add(name=f"mlp_res{i}")([x, layers.Dense(dim, name=f"mlp_out{i}")(y)])
    x = layers.Lambda(lambda t: tf.nn.space_to_depth(t, 2), name="patch_merge")(x)
    x = layers.Dense(2 * dim, use_bias=False, name="merge_proj")(
        layers.LayerNormalization(epsilon=1e-5, name="merge_ln")(x))
    return keras.Model(inp, _classifier(x), name="swin_like")


def attention_rnn(vocab=60, steps=10, seed=0):
    """A text classifier: Embedding, a Bidirectional GRU and a Bidirectional LSTM returning
    sequences, attention pooling (Dense tanh scores, softmax over time, weighted sum), Dense
    head."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = keras.Input((steps,), batch_size=1, dtype="int32", name="tokens")
    x = layers.Embedding(vocab, 16, name="embed")(inp)
    x = layers.Bidirectional(layers.GRU(12, return_sequences=True), name="bigru")(x)
    x = layers.Bidirectional(layers.LSTM(12, return_sequences=True), name="bilstm")(x)
    s = layers.Dense(16, activation="tanh", name="att_hidden")(x)
    s = layers.Dense(1, name="att_score")(s)
    a = layers.Softmax(axis=1, name="att_weights")(s)
    ctx = layers.Dot(axes=1, name="att_pool")([a, x])
    ctx = layers.Flatten(name="flat")(ctx)
    return keras.Model(inp, layers.Dense(3, activation="softmax", name="head")(ctx),
                       name="attention_rnn")


def hrnet_like(widths=(16, 32, 48), seed=0):
    """HRNet-like multi-resolution net: three parallel branches (full, 1/2, 1/4 resolution)
    of residual conv blocks, exchanged by strided 3x3 convs (down) and 1x1 conv + bilinear /
    nearest upsampling (up) summed into each branch; all branches upsampled and concatenated
    for the head."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input()
    x = _conv_bn_relu(inp, widths[0], 3, 2, name="stem_")
    branches = [x]
    for i in range(1, len(widths)):
        branches.append(_conv_bn_relu(branches[-1], widths[i], 3, 2, name=f"to{i}_"))

    def block(t, name):
        y = _conv_bn_relu(t, t.shape[-1], name=name + "a_")
        y = layers.BatchNormalization(name=name + "bn")(
            layers.Conv2D(t.shape[-1], 3, padding="same", use_bias=False, name=name + "conv")(y))
        return layers.ReLU(name=name + "relu")(layers.Add(name=name + "add")([t, y]))

    branches = [block(b, f"b{i}_") for i, b in enumerate(branches)]
    fused = []
    for i, w in enumerate(widths):
        terms = []
        for j, b in enumerate(branches):
            n = f"f{j}to{i}_"
            if j == i:
                terms.append(b)
            elif j > i:
                t = layers.Conv2D(w, 1, name=n + "conv")(b)
                interp = "bilinear" if j - i == 1 else "nearest"
                terms.append(layers.UpSampling2D(2 ** (j - i), interpolation=interp,
                                                 name=n + "up")(t))
            else:
                t = b
                for k in range(i - j):
                    t = layers.Conv2D(w if k == i - j - 1 else t.shape[-1], 3, 2, padding="same",
                                      name=n + f"down{k}")(t)
                terms.append(t)
        fused.append(layers.ReLU(name=f"fuse{i}_relu")(layers.Add(name=f"fuse{i}")(terms)))
    ups = [fused[0]] + [layers.UpSampling2D(2 ** i, interpolation="bilinear", name=f"head_up{i}")(f)
                        for i, f in enumerate(fused) if i]
    x = layers.Concatenate(name="head_cat")(ups)
    x = _conv_bn_relu(x, 32, 1, name="head_")
    return keras.Model(inp, layers.Conv2D(5, 1, name="seg")(x), name="hrnet_like")


def autoencoder(seed=0):
    """A conv autoencoder: ZeroPadding2D, strided Conv2Ds down to a bottleneck, Conv2DTranspose
    (stride 2, 'same' and 'valid') up, Cropping2D back to the input size, sigmoid output."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = _image_input((30, 30, 3))
    x = layers.ZeroPadding2D(1, name="pad")(inp)
    x = layers.Conv2D(16, 3, 2, padding="same", activation="relu", name="enc1")(x)
    x = layers.Conv2D(32, 3, 2, padding="same", activation="relu", name="enc2")(x)
    x = layers.Conv2D(8, 1, activation="relu", name="bottleneck")(x)
    x = layers.Conv2DTranspose(32, 3, 2, padding="same", activation="relu", name="dec1")(x)
    x = layers.Conv2DTranspose(16, 2, 2, padding="valid", activation="relu", name="dec2")(x)
    x = layers.Cropping2D(1, name="crop")(x)
    out = layers.Conv2D(3, 3, padding="same", activation="sigmoid", name="recon")(x)
    return keras.Model(inp, out, name="autoencoder")


def pointnet(points=128, seed=0):
    """PointNet-like: a shared MLP over points as 1x1 Conv1Ds with BN + ReLU, a learned 3x3
    input transform (T-Net: shared MLP, global max pool, Dense to 9, + identity, matmul), global
    max pooling, Dense classifier with dropout."""
    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(seed)
    inp = keras.Input((points, 3), batch_size=1, name="points")

    def mlp(t, width, name):
        t = layers.Conv1D(width, 1, use_bias=False, name=name + "conv")(t)
        return layers.ReLU(name=name + "relu")(layers.BatchNormalization(name=name + "bn")(t))

    t = mlp(mlp(inp, 16, "tnet1_"), 32, "tnet2_")
    t = layers.GlobalMaxPooling1D(name="tnet_pool")(t)
    t = layers.Dense(9, name="tnet_fc")(t)
    t = layers.Reshape((3, 3), name="tnet_mat")(t)
    eye = keras.ops.eye(3)[None]
    t = layers.Lambda(lambda m: m + eye, name="tnet_eye")(t)
    x = layers.Dot(axes=(2, 1), name="transform")([inp, t])
    x = mlp(mlp(mlp(x, 32, "mlp1_"), 64, "mlp2_"), 128, "mlp3_")
    x = layers.GlobalMaxPooling1D(name="global_max")(x)
    x = layers.Dense(32, activation="relu", name="fc1")(x)
    x = layers.Dropout(0.3, name="drop")(x)
    return keras.Model(inp, layers.Dense(6, name="logits")(x), name="pointnet")


def _application(name: str, size: int, seed: int, **options):
    """keras.applications.`name` at size x size, 10 classes, weights=None."""
    keras = _keras()
    keras.utils.set_random_seed(seed)
    return getattr(keras.applications, name)(input_tensor=_image_input((size, size, 3)),
                                             weights=None, classes=10, **options)


def densenet121(seed=0):
    """keras' DenseNet121 at 64x64 (weights=None)."""
    return _application("DenseNet121", 64, seed)


def mobilenet_v3_large(seed=0):
    """keras' MobileNetV3Large at 64x64, alpha 0.75 (weights=None)."""
    return _application("MobileNetV3Large", 64, seed, alpha=0.75, include_preprocessing=False)


def inception_v3(seed=0):
    """keras' InceptionV3 at 75x75 (factorized 1x7 / 7x1 convs, weights=None)."""
    return _application("InceptionV3", 75, seed)


def _electra(seed=0):
    """keras-hub's ElectraBackbone (its own argument names), the zoo's small configuration."""
    hub = keras_hub()
    _keras().utils.set_random_seed(seed)
    return hub.models.ElectraBackbone(vocab_size=HUB_VOCAB, num_layers=2, num_heads=2,
                                      hidden_dim=64, embedding_dim=32, intermediate_dim=128,
                                      max_sequence_length=32)


def _vit_backbone(seed=0):
    """keras-hub's ViTBackbone, 32x32 images in 8x8 patches, 2 layers of width 64."""
    hub = keras_hub()
    _keras().utils.set_random_seed(seed)
    return hub.models.ViTBackbone(image_shape=(32, 32, 3), patch_size=8, num_layers=2,
                                  num_heads=2, hidden_dim=64, mlp_dim=128)


HOLDOUT: dict[str, ZooModel] = {
    "ShuffleNet": ZooModel(shufflenet, "cnn"),
    "SqueezeNet": ZooModel(squeezenet, "cnn"),
    "SEResNeXt": ZooModel(se_resnext, "cnn"),
    "TCN": ZooModel(tcn, "other"),
    "MobileViT": ZooModel(mobilevit, "transformer"),
    "SwinLike": ZooModel(swin_like, "transformer"),
    "AttentionRNN": ZooModel(attention_rnn, "other", (Input("tokens", (1, 10), "int32", "ids", 60),)),
    "HRNetLike": ZooModel(hrnet_like, "cnn"),
    "Autoencoder": ZooModel(autoencoder, "cnn"),
    "PointNet": ZooModel(pointnet, "other"),
    "DenseNet121": ZooModel(densenet121, "cnn"),
    "MobileNetV3Large": ZooModel(mobilenet_v3_large, "cnn"),
    "InceptionV3": ZooModel(inception_v3, "cnn"),
    "RobertaBackbone": ZooModel(lambda: hub_backbone("RobertaBackbone"), "transformer",
                                _hub_inputs("token_ids", "padding_mask")),
    "ElectraBackbone": ZooModel(_electra,
                                "transformer", _hub_inputs("token_ids", "segment_ids",
                                                           "padding_mask")),
    "DebertaV3Backbone": ZooModel(lambda: hub_backbone("DebertaV3Backbone", bucket_size=8),
                                  "transformer", _hub_inputs("token_ids", "padding_mask")),
    "ViTBackbone": ZooModel(_vit_backbone, "transformer"),
}


def holdout_graphdef(name: str, cache_dir: str | None = None) -> str:
    """Path of hold-out model `name`'s frozen GraphDef (the zoo's cache, built on first use)."""
    return frozen_graphdef(name, cache_dir, registry=HOLDOUT)


def holdout_inputs(name: str, seed: int = 0, graph_path: str | None = None) -> dict[str, np.ndarray]:
    """Valid inputs of hold-out model `name` (zoo.sample_inputs)."""
    return sample_inputs(name, seed, graph_path, registry=HOLDOUT)
