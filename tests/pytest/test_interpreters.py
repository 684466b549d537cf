"""Executable semantics at every level (tf, cann, kernel) and the cann-run tool.

Every level's conv + bias + relu is held against TensorFlow's tf.nn.conv2d + bias_add + relu
(|error| <= 1e-5 + 1e-6*|ref|: see assert_close), on hand-built modules: the passes that produce cann/kernel IR are tested
elsewhere.  Channels that are not multiples of 16 (Cin 3, 17; Cout 20), SAME/VALID, stride 2
and dilation 2 are covered.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Block, Region

from compiler.interpreters import numerics
from compiler.interpreters.execute import make_interpreter, random_inputs, run_module
from compiler.ir.diagnostics import OpError
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from compiler.target.formats import Format, ceil_div, hwcn_to_fractal_z, nhwc_to_nc1hwc0
from dialects import cann, kernel
from dialects import tf as tfd
from dialects.common import dense_from_numpy, int_array
from dialects.kernel import BufferAttr, TilingAttr
from tools.driver.runner import compare

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
f32 = Float32Type()
SOC = {"cann.soc_version": StringAttr("Ascend910B3")}


@pytest.fixture(scope="module")
def tf():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow

    return tensorflow


# --- problems --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Conv:
    n: int
    h: int
    w: int
    cin: int
    cout: int
    k: int
    stride: int
    padding: str
    dilation: int = 1
    seed: int = 0

    @property
    def pads(self) -> tuple[int, int, int, int]:
        if self.padding == "VALID":
            return (0, 0, 0, 0)
        return (*numerics.same_pads(self.h, self.k, self.stride, self.dilation),
                *numerics.same_pads(self.w, self.k, self.stride, self.dilation))

    @property
    def out_hw(self) -> tuple[int, int]:
        t, b, l, r = self.pads
        return (numerics.conv_out_size(self.h, self.k, self.stride, self.dilation, t, b),
                numerics.conv_out_size(self.w, self.k, self.stride, self.dilation, l, r))

    @property
    def x_shape(self):
        return (self.n, self.h, self.w, self.cin)

    @property
    def y_shape(self):
        return (self.n, *self.out_hw, self.cout)

    @property
    def m(self) -> int:
        return self.n * self.out_hw[0] * self.out_hw[1]

    @property
    def k_gemm(self) -> int:
        return ceil_div(self.cin, 16) * self.k * self.k * 16

    def data(self):
        rng = np.random.default_rng(self.seed)
        x = rng.standard_normal(self.x_shape).astype(np.float32)
        w = rng.standard_normal((self.k, self.k, self.cin, self.cout)).astype(np.float32)
        b = rng.standard_normal(self.cout).astype(np.float32)
        return x, w, b


CASES = [
    Conv(1, 8, 8, 3, 20, 3, 1, "SAME"),            # M = 64, Cin 3 / Cout 20 not multiples of 16
    Conv(2, 9, 9, 3, 20, 3, 2, "SAME", seed=1),    # stride 2, odd size, batch 2: M = 50
    Conv(1, 8, 8, 17, 20, 3, 1, "VALID", seed=2),  # C1 = 2: M = 36
    Conv(1, 10, 10, 16, 32, 3, 1, "VALID", dilation=2, seed=3),
    Conv(1, 7, 7, 5, 8, 1, 2, "VALID", seed=4),    # 1x1 kernel, stride 2
]
IDS = [f"n{c.n}h{c.h}c{c.cin}o{c.cout}k{c.k}s{c.stride}{c.padding}d{c.dilation}" for c in CASES]


def tf_reference(tf, c: Conv) -> np.ndarray:
    x, w, b = c.data()
    y = tf.nn.conv2d(x, w, strides=c.stride, padding=c.padding, dilations=c.dilation)
    return tf.nn.relu(tf.nn.bias_add(y, b)).numpy()


# --- IR builders -----------------------------------------------------------------------------

def T(shape, enc=None) -> TensorType:
    return TensorType(f32, list(shape)) if enc is None else TensorType(f32, list(shape), enc)


def stored(shape, fmt: str, origin: str) -> TensorType:
    return cann.storage_type(T(shape), Format(fmt), Format(origin))


def make_module(arg_types, build, names=("x", "Relu")) -> ModuleOp:
    """`build(block_args) -> (ops, results)`; @main returns the results."""
    block = Block(arg_types=list(arg_types))
    ops, results = build(block.args)
    block.add_ops([*ops, func.ReturnOp(*results)])
    fn = func.FuncOp("main", (list(arg_types), [r.type for r in results]), Region(block))
    fn.attributes["tf.entry_function"] = DictionaryAttr(
        {"inputs": StringAttr(names[0]), "outputs": StringAttr(names[1])})
    module = ModuleOp([fn], attributes=dict(SOC))
    module.verify()
    return module


def tf_module(c: Conv) -> ModuleOp:
    x, w, b = c.data()

    def build(args):
        ph = tfd.PlaceholderOp(operands=[args[0]], result_types=[T(c.x_shape)])
        wc, bc = tfd.ConstOp(dense_from_numpy(w)), tfd.ConstOp(dense_from_numpy(b))
        s, d = c.stride, c.dilation
        conv = tfd.Conv2DOp(operands=[ph.output, wc.output], result_types=[T(c.y_shape)], properties={
            "strides": int_array([1, s, s, 1]), "dilations": int_array([1, d, d, 1]),
            "padding": StringAttr(c.padding), "data_format": StringAttr("NHWC")})
        ba = tfd.BiasAddOp(operands=[conv.output, bc.output], result_types=[T(c.y_shape)],
                           properties={"data_format": StringAttr("NHWC")})
        relu = tfd.ReluOp(operands=[ba.output], result_types=[T(c.y_shape)])
        ident = tfd.IdentityOp(operands=[relu.y], result_types=[T(c.y_shape)])
        return [ph, wc, bc, conv, ba, relu, ident], [ident.output]

    return make_module([T(c.x_shape)], build)


def conv_props(c: Conv, data_format="NHWC"):
    s, d = c.stride, c.dilation
    four = (lambda v: [1, v, v, 1]) if data_format == "NHWC" else (lambda v: [1, 1, v, v])
    return {"strides": int_array(four(s)), "dilations": int_array(four(d)),
            "pads": int_array(c.pads), "groups": IntegerAttr(1, i64),
            "data_format": StringAttr(data_format)}


def cann_nhwc_module(c: Conv, fused: bool) -> ModuleOp:
    """cann ops on plain NHWC / HWCN / ND types."""
    x, w, b = c.data()

    def build(args):
        wc = cann.ConstOp(dense_from_numpy(w))
        bc = cann.ConstOp(dense_from_numpy(b))
        yt = T(c.y_shape)
        if fused:
            conv = cann.FusedConv2DOp(operands=[args[0], wc.output, bc.output], result_types=[yt],
                                      properties={**conv_props(c), "activation": StringAttr("Relu")})
            return [wc, bc, conv], [conv.y]
        conv = cann.Conv2DOp(operands=[args[0], wc.output, []], result_types=[yt],
                             properties=conv_props(c))
        ba = cann.BiasAddOp(operands=[conv.y, bc.output], result_types=[yt],
                            properties={"data_format": StringAttr("NHWC")})
        relu = cann.ReluOp(operands=[ba.y], result_types=[yt])
        return [wc, bc, conv, ba, relu], [relu.y]

    return make_module([T(c.x_shape)], build)


def transdata(cls, src, dst_type, src_fmt, dst_fmt, extra=None):
    props = {"src_format": StringAttr(src_fmt), "dst_format": StringAttr(dst_fmt)}
    if cls is cann.TransDataOp:
        props["groups"] = IntegerAttr(1, i64)
    props.update(extra or {})
    return cls(operands=[src], result_types=[dst_type], properties=props)


def weights_storage(c: Conv):
    """The FRACTAL_Z filter const (converted on the host) and the ND bias const."""
    x, w, b = c.data()
    fz_t = stored(w.shape, "FRACTAL_Z", "HWCN")
    fz = hwcn_to_fractal_z(w, 16)
    return cann.ConstOp(dense_from_numpy(fz), fz_t), cann.ConstOp(dense_from_numpy(b))


def cann_storage_module(c: Conv, fused: bool) -> ModuleOp:
    """cann ops on NC1HWC0 / FRACTAL_Z types, TransData at the edges."""
    x5_t, y5_t = stored(c.x_shape, "NC1HWC0", "NHWC"), stored(c.y_shape, "NC1HWC0", "NHWC")

    def build(args):
        tin = transdata(cann.TransDataOp, args[0], x5_t, "NHWC", "NC1HWC0")
        wc, bc = weights_storage(c)
        if fused:
            conv = cann.FusedConv2DOp(operands=[tin.dst, wc.output, bc.output], result_types=[y5_t],
                                      properties={**conv_props(c), "activation": StringAttr("Relu")})
            body = [conv]
            last = conv.y
        else:
            conv = cann.Conv2DOp(operands=[tin.dst, wc.output, []], result_types=[y5_t],
                                 properties=conv_props(c))
            ba = cann.BiasAddOp(operands=[conv.y, bc.output], result_types=[y5_t],
                                properties={"data_format": StringAttr("NHWC")})
            relu = cann.ReluOp(operands=[ba.y], result_types=[y5_t])
            body = [conv, ba, relu]
            last = relu.y
        tout = transdata(cann.TransDataOp, last, T(c.y_shape), "NC1HWC0", "NHWC")
        return [tin, wc, bc, *body, tout], [tout.dst]

    return make_module([T(c.x_shape)], build)


def cube_tiling(c: Conv, cores_m=1, cores_n=1, base_m=16, base_n=16, base_k=32, order=0,
                **override) -> dict[str, int]:
    """A hand-computed TCubeTiling: M split over cores_m cores, N over cores_n."""
    n_pad = ceil_div(c.cout, 16) * 16
    sc_m = ceil_div(ceil_div(c.m, cores_m), 16) * 16
    sc_n = ceil_div(ceil_div(n_pad, cores_n), 16) * 16
    t = dict(usedCoreNum=ceil_div(c.m, sc_m) * ceil_div(c.cout, sc_n), M=c.m, N=c.cout,
             Ka=c.k_gemm, Kb=c.k_gemm, singleCoreM=sc_m, singleCoreN=sc_n, singleCoreK=c.k_gemm,
             baseM=base_m, baseN=base_n, baseK=base_k, depthA1=2, depthB1=2, stepM=1, stepN=1,
             stepKa=1, stepKb=1, iterateOrder=order, dbL0A=2, dbL0B=2, dbL0C=1)
    t.update(override)
    return t


def kernel_props(tiling: dict[str, int], block_dim: int | None = None, buffers=()):
    return {"block_dim": IntegerAttr(block_dim if block_dim is not None else tiling.get(
                "usedCoreNum", 1), i64),
            "tiling": TilingAttr(tiling),
            "buffers": ArrayAttr([BufferAttr(*b) for b in buffers])}


def kernel_module(c: Conv, tiling: dict[str, int], epilogue: str = "fused",
                  block_dim: int | None = None, vec_tiling=None) -> ModuleOp:
    """kernel.transdata -> kernel.cube_conv2d [-> kernel.vector BiasAdd -> Relu] -> transdata.

    epilogue "fused": bias + Relu inside the cube kernel; "vector": separate vector kernels."""
    x5_t, y5_t = stored(c.x_shape, "NC1HWC0", "NHWC"), stored(c.y_shape, "NC1HWC0", "NHWC")
    elems = int(np.prod(y5_t.get_shape()))
    vec_tiling = vec_tiling or {"tileElems": 256, "tilesPerCore": ceil_div(ceil_div(elems, 256), 2)}
    vec_bd = ceil_div(ceil_div(elems, vec_tiling["tileElems"]), vec_tiling["tilesPerCore"])
    bm, bn, bk = tiling["baseM"], tiling["baseN"], tiling["baseK"]
    cube_buffers = [("L0A", bm * bk * 4 * 2, "A"), ("L0B", bk * bn * 4 * 2, "B"),
                    ("L0C", bm * bn * 4, "C"), ("UB", bm * bn * 4, "epilogue")]
    geo = {"strides": int_array([c.stride] * 2), "dilations": int_array([c.dilation] * 2),
           "pads": int_array(c.pads), "kernel_hw": int_array([c.k, c.k])}

    def build(args):
        tin = transdata(kernel.TransDataOp, args[0], x5_t, "NHWC", "NC1HWC0",
                        kernel_props({"tileElems": 1024, "tilesPerCore": 1}, 1))
        wc, bc = weights_storage(c)
        fused = epilogue == "fused"
        conv = kernel.CubeConv2DOp(
            operands=[tin.dst, wc.output, [bc.output] if fused else []], result_types=[y5_t],
            properties={**geo, **kernel_props(tiling, block_dim, cube_buffers),
                        "activation": StringAttr("Relu" if fused else "none")})
        ops, last = [tin, wc, bc, conv], conv.y
        if not fused:
            vp = kernel_props(vec_tiling, vec_bd, [("UB", vec_tiling["tileElems"] * 4 * 2, "x")])
            ba = kernel.VectorOp(operands=[[last, bc.output]], result_types=[y5_t],
                                 properties={**vp, "fn": StringAttr("BiasAdd")})
            relu = kernel.VectorOp(operands=[[ba.y]], result_types=[y5_t],
                                   properties={**vp, "fn": StringAttr("Relu")})
            ops += [ba, relu]
            last = relu.y
        tout = transdata(kernel.TransDataOp, last, T(c.y_shape), "NC1HWC0", "NHWC",
                         kernel_props({"tileElems": 1024, "tilesPerCore": 1}, 1))
        return [*ops, tout], [tout.dst]

    return make_module([T(c.x_shape)], build)


def run(module: ModuleOp, c: Conv) -> np.ndarray:
    x, _, _ = c.data()
    return run_module(module, {"x": x})["Relu"]


def assert_close(ours, ref, atol=1e-5, rtol=1e-6):
    """|ours - ref| <= atol + rtol*|ref|.  The rtol term is fp32 rounding: with Cin 16 outputs
    reach ~40 and TensorFlow itself is 1.2e-5 away from the exact (float64) result there, while
    the tiled kernel, accumulating in baseK chunks, is 0.65e-5 away."""
    assert ours.shape == ref.shape
    diff = np.abs(ours.astype(np.float64) - ref)
    bad = diff > atol + rtol * np.abs(ref)
    assert not bad.any(), f"max abs error {diff.max()} (at |ref| = {np.abs(ref)[bad].max()})"


# --- numerics and layouts --------------------------------------------------------------------

@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_numpy_reference_conv_matches_tf(tf, c):
    x, w, b = c.data()
    y = numerics.activate(numerics.bias_add(
        numerics.conv2d_nhwc(x, w, (c.stride,) * 2, (c.dilation,) * 2, c.pads), b), "Relu")
    assert_close(y, tf_reference(tf, c))
    y_nchw = numerics.conv2d_nchw(x.transpose(0, 3, 1, 2), w, (c.stride,) * 2, (c.dilation,) * 2, c.pads)
    assert_close(numerics.activate(numerics.bias_add(y_nchw, b, "NCHW"), "Relu").transpose(0, 2, 3, 1),
                 tf_reference(tf, c))


# --- tf level --------------------------------------------------------------------------------

@pytest.mark.parametrize("c", CASES[:2], ids=IDS[:2])
def test_tf_level(tf, c):
    assert_close(run(tf_module(c), c), tf_reference(tf, c))


HAND_WRITTEN_TF = """
func.func @main(%arg0: tensor<1x8x8x3xf32>) -> tensor<1x8x8x4xf32> {
  %0 = tf.Placeholder %arg0 {shape = "1,8,8,3"} : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32> loc("x")
  %1 = tf.Const dense<1.0> : tensor<3x3x3x4xf32> loc("w")
  %b = tf.Const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %2 = tf.Conv2D %0, %1 {strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC", dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x8x8x4xf32> loc("conv")
  %3 = tf.BiasAdd %2, %b {data_format = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  %4 = tf.Relu %3 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %5 = tf.Identity %4 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  func.return %5 : tensor<1x8x8x4xf32>
}
"""


def test_hand_written_tf_module_runs(tf, tmp_path):
    from compiler.ir.ir_io import load_module

    path = tmp_path / "conv_block.tf.mlir"
    path.write_text(HAND_WRITTEN_TF)
    module, _ = load_module(str(path))
    inputs = random_inputs(module, seed=3)
    out = run_module(module, inputs)
    (name, y), = out.items()
    assert name == "out0"  # no tf.entry_function: fallback names
    w = np.ones((3, 3, 3, 4), np.float32)
    ref = tf.nn.relu(tf.nn.conv2d(inputs["arg0"], w, 1, "SAME") + np.arange(1, 5, dtype=np.float32))
    assert_close(y, ref.numpy())


# --- cann level ------------------------------------------------------------------------------

@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_cann_level_nhwc(tf, c, fused):
    assert_close(run(cann_nhwc_module(c, fused), c), tf_reference(tf, c))


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_cann_level_storage_formats(tf, c, fused):
    assert_close(run(cann_storage_module(c, fused), c), tf_reference(tf, c))


def test_cann_padded_channels_are_zero():
    """A storage-format result holds zeros in the channels beyond Cout (the NC1HWC0 rule)."""
    c = CASES[0]
    module = cann_storage_module(c, fused=False)
    fn = module.ops.first
    # return the NC1HWC0 value itself (the op before the final TransData)
    ret = fn.body.block.last_op
    tout = ret.operands[0].owner
    interp = make_interpreter(module)
    seen = {}

    class Spy(type(interp).Listener):
        def did_interpret_op(self, op, results):
            seen[op] = results

    interp.listeners = (Spy(),)
    x, _, _ = c.data()
    interp.call_op(fn, (x,))
    y5 = seen[tout.operands[0].owner][0]
    assert y5.shape == (1, 2, 8, 8, 16)
    assert np.all(y5[:, 1, :, :, c.cout - 16:] == 0)
    assert np.any(y5[:, 1, :, :, : c.cout - 16] != 0)


def test_cann_transdata_nchw_origin():
    """TransData honours an NCHW origin: NHWC-typed data would give a different array."""
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 5)).astype(np.float32)
    t5 = stored(x.shape, "NC1HWC0", "NCHW")

    def build(args):
        a = transdata(cann.TransDataOp, args[0], t5, "NCHW", "NC1HWC0")
        r = cann.ReluOp(operands=[a.dst], result_types=[t5])
        b = transdata(cann.TransDataOp, r.y, T(x.shape), "NC1HWC0", "NCHW")
        return [a, r, b], [b.dst]

    out = run_module(make_module([T(x.shape)], build), {"x": x})["Relu"]
    np.testing.assert_array_equal(out, np.maximum(x, 0))


# --- kernel level ----------------------------------------------------------------------------

KERNEL_TILINGS = {
    "1core": dict(),
    "2coresM": dict(cores_m=2),                      # M = 64 -> singleCoreM 32, 2 base blocks each
    "2coresN_order1": dict(cores_n=2, order=1),
    "bigBase": dict(base_m=128, base_n=256, base_k=32),
    "4cores": dict(cores_m=2, cores_n=2, base_k=16),
}


@pytest.mark.parametrize("tiling", list(KERNEL_TILINGS), ids=list(KERNEL_TILINGS))
@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_kernel_level_fused_epilogue(tf, c, tiling):
    t = cube_tiling(c, **KERNEL_TILINGS[tiling])
    assert_close(run(kernel_module(c, t), c), tf_reference(tf, c))


@pytest.mark.parametrize("c", CASES[:3], ids=IDS[:3])
def test_kernel_level_vector_epilogue(tf, c):
    t = cube_tiling(c, cores_m=2)
    assert_close(run(kernel_module(c, t, epilogue="vector"), c), tf_reference(tf, c))


def test_kernel_m64_two_cores_by_hand(tf):
    """M = 64 split over 2 cores, written out by hand: Cin 3 -> K = 1*3*3*16 = 144, baseK 48."""
    c = CASES[0]
    t = dict(usedCoreNum=2, M=64, N=20, Ka=144, Kb=144, singleCoreM=32, singleCoreN=32,
             singleCoreK=144, baseM=16, baseN=32, baseK=48, depthA1=2, depthB1=2, stepM=1,
             stepN=1, stepKa=1, stepKb=1, iterateOrder=0, dbL0A=2, dbL0B=2, dbL0C=1)
    module = kernel_module(c, t)
    assert_close(run(module, c), tf_reference(tf, c))
    # the textual form round-trips and still runs
    text = module_to_text(module)
    reparsed, _ = parse_module(make_context(), text, "<test>")
    assert_close(run(reparsed, c), tf_reference(tf, c))


def test_kernel_cube_on_storage_layouts_matches_cann():
    """cube_conv2d on NC1HWC0/FRACTAL_Z data equals the cann-level semantics, padding included."""
    c = CASES[2]
    x, w, b = c.data()
    cube_mod = kernel_module(c, cube_tiling(c, cores_m=2))
    fn = cube_mod.ops.first
    cube = next(op for op in fn.walk() if isinstance(op, kernel.CubeConv2DOp))
    from compiler.interpreters.kernel_impl import cube_conv2d

    y5 = cube_conv2d(cube, nhwc_to_nc1hwc0(x, 16), hwcn_to_fractal_z(w, 16), b)
    ref = numerics.activate(numerics.bias_add(
        numerics.conv2d_nhwc(x, w, (c.stride,) * 2, (c.dilation,) * 2, c.pads), b), "Relu")
    np.testing.assert_allclose(y5, nhwc_to_nc1hwc0(ref, 16), atol=1e-5)
    assert np.all(y5[:, 1, :, :, 4:] == 0)  # Cout 20: channels 20..31 are padding


@pytest.mark.parametrize("override, message", [
    (dict(singleCoreM=16), "usedCoreNum = 2"),       # 4 core blocks needed, 2 cores run
    (dict(usedCoreNum=4), "differs from block_dim"),  # block_dim stays 2
    (dict(M=48), "tiling M = 48"),
    (dict(N=16), "tiling N = 16"),
    (dict(singleCoreK=64), "singleCoreK = 64"),
    (dict(baseM=24), "multiples of 16"),
])
def test_kernel_wrong_tiling_is_an_error(override, message):
    c = CASES[0]
    t = cube_tiling(c, cores_m=2, **override)
    module = kernel_module(c, t, block_dim=2)
    with pytest.raises(OpError) as e:
        run(module, c)
    (op, msg), = e.value.items
    assert isinstance(op, kernel.CubeConv2DOp)
    assert message in msg, msg


def test_kernel_tiling_is_followed_not_ignored(monkeypatch):
    """The cube kernel runs exactly the tiles its tiling describes (counted at the Mmad step)."""
    from compiler.interpreters import kernel_impl

    c = CASES[0]  # M = 64, N = 20, K = 144
    calls = []
    real = kernel_impl.mmad
    monkeypatch.setattr(kernel_impl, "mmad",
                        lambda l0c, a, b: (calls.append((a.shape, b.shape)), real(l0c, a, b)))
    t = cube_tiling(c, cores_m=2, base_m=16, base_n=16, base_k=32)
    assert (t["singleCoreM"], t["usedCoreNum"]) == (32, 2)
    assert_close(run(kernel_module(c, t), c), run(cann_nhwc_module(c, True), c))
    # 2 cores x 2 M blocks x 2 N blocks (16 + 4 columns, clipped at N = 20) x 5 K chunks (4x32 + 16)
    assert len(calls) == 2 * 2 * 2 * 5
    assert {a for a, _ in calls} == {(16, 32), (16, 16)}
    assert {b for _, b in calls} == {(32, 16), (16, 16), (32, 4), (16, 4)}


def test_vector_tiling_too_small_is_an_error():
    c = CASES[0]
    module = kernel_module(c, cube_tiling(c), epilogue="vector",
                           vec_tiling={"tileElems": 256, "tilesPerCore": 1})
    # vec block_dim = 8 tiles / 1 per core = 8 cores; shrink it to 3 cores
    for op in module.walk():
        if isinstance(op, kernel.VectorOp):
            op.properties["block_dim"] = IntegerAttr(3, i64)
    with pytest.raises(OpError) as e:
        run(module, c)
    (op, msg), = e.value.items
    assert isinstance(op, kernel.VectorOp) and "768 elements, the tensor has 2048" in msg


def test_vector_bias_add_nhwc_and_nd():
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 5)).astype(np.float32)
    b = np.arange(5, dtype=np.float32)
    vt = {"tileElems": 32, "tilesPerCore": 2}

    def build(args):
        bc = cann.ConstOp(dense_from_numpy(b))
        v = kernel.VectorOp(operands=[[args[0], bc.output]], result_types=[T(x.shape)],
                            properties={**kernel_props(vt, 2), "fn": StringAttr("BiasAdd")})
        return [bc, v], [v.y]

    out = run_module(make_module([T(x.shape)], build), {"x": x})["Relu"]
    np.testing.assert_array_equal(out, x + b)


def test_kernel_level_needs_no_tensorflow():
    code = ("import sys, numpy as np\n"
            "sys.path.insert(0, 'tests/pytest')\n"
            "import test_interpreters as t\n"
            "c = t.CASES[1]\n"
            "y = t.run(t.kernel_module(c, t.cube_tiling(c, cores_m=2)), c)\n"
            "assert y.shape == c.y_shape\n"
            "assert 'tensorflow' not in sys.modules, 'tensorflow was imported'\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# --- comparison ------------------------------------------------------------------------------

def test_compare_semantics():
    ref = {"a": np.array([1.0, 0.0, -2.0], np.float32)}
    res = compare({"a": ref["a"] + np.array([1e-6, 1e-6, 0], np.float32)}, ref, 1e-5, 1e-5)
    assert res["a"].ok and res["a"].max_abs == pytest.approx(1e-6, rel=1e-2)
    assert res["a"].max_rel > 1  # |0 + 1e-6 - 0| / tiny
    res = compare({"a": ref["a"] * 1.1}, ref, 1e-5, 1e-5)
    assert not res["a"].ok and res["a"].max_rel == pytest.approx(0.1, rel=1e-5)
    res = compare({"a": np.zeros(2)}, ref)
    assert not res["a"].ok and "shape" in res["a"].note


# --- cann-run --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def model_dir(tf, tmp_path_factory):
    """A small conv GraphDef built with TensorFlow (.pb and .pbtxt) and modules at each level."""
    c = CASES[0]
    x, w, b = c.data()
    d = tmp_path_factory.mktemp("model")
    g = tf.Graph()
    with g.as_default():
        xp = tf.compat.v1.placeholder(tf.float32, c.x_shape, name="x")
        y = tf.nn.conv2d(xp, tf.constant(w), strides=1, padding="SAME")
        tf.nn.relu(tf.nn.bias_add(y, tf.constant(b)), name="Relu")
    gd = g.as_graph_def()
    (d / "model.pb").write_bytes(gd.SerializeToString())
    (d / "model.pbtxt").write_text(str(gd))
    (d / "tf.mlir").write_text(module_to_text(tf_module(c)))
    (d / "kernel.mlir").write_text(module_to_text(kernel_module(c, cube_tiling(c, cores_m=2))))
    # a wrong model: the bias differs (cann level)
    module = cann_nhwc_module(c, fused=True)
    for op in module.walk():
        if isinstance(op, cann.ConstOp) and op.value.type.get_shape() == (20,):
            op.properties["value"] = dense_from_numpy(b + 0.5)
    (d / "wrong.mlir").write_text(module_to_text(module))
    np.save(d / "x.npy", x)
    np.save(d / "bad_shape.npy", x[..., :2])
    (d / "notnpy.npy").write_text("hello")
    return d


def cann_run(*args) -> tuple[int, str, str]:
    import contextlib
    import io

    from tools.cann_run import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in args])
    return rc, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("level", ["tf", "kernel"])
@pytest.mark.parametrize("graph", ["model.pb", "model.pbtxt"])
def test_cann_run_compare_ok(model_dir, level, graph, tmp_path):
    rc, out, err = cann_run(model_dir / f"{level}.mlir", "--input", f"x={model_dir / 'x.npy'}",
                            "--compare-with", model_dir / graph, "--output-dir", tmp_path)
    assert rc == 0, err
    assert out.startswith("Relu: max_abs=") and out.rstrip().endswith("OK"), out
    assert "(atol=1e-05, rtol=1e-05)" in out
    assert np.load(tmp_path / "Relu.npy").shape == CASES[0].y_shape


def test_cann_run_compare_random_inputs(model_dir):
    rc, out, _ = cann_run(model_dir / "kernel.mlir", "--seed", "7", "--compare-with",
                          model_dir / "model.pb")
    assert rc == 0 and "OK" in out


def test_cann_run_compare_fail(model_dir):
    rc, out, _ = cann_run(model_dir / "wrong.mlir", "--input", f"x={model_dir / 'x.npy'}",
                          "--compare-with", model_dir / "model.pb")
    assert rc == 1
    assert out.startswith("Relu: max_abs=0.5") and out.rstrip().endswith("FAIL"), out


def test_cann_run_summary(model_dir):
    rc, out, err = cann_run(model_dir / "kernel.mlir")
    assert rc == 0, err
    assert out.startswith("Relu: shape=[1, 8, 8, 20] dtype=float32 min=")


def one_error_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ": error:" in ln]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_cann_run_bad_inputs(model_dir, tmp_path):
    k = model_dir / "kernel.mlir"
    rc, _, err = cann_run(k, "--input", f"y={model_dir / 'x.npy'}")
    assert rc == 1 and "unknown input 'y'; the model's inputs are x" in one_error_line(err)
    rc, _, err = cann_run(k, "--input", f"x={model_dir / 'bad_shape.npy'}")
    assert rc == 1 and ("input 'x' has shape [1, 8, 8, 2], the model expects [1, 8, 8, 3]"
                        in one_error_line(err))
    rc, _, err = cann_run(k, "--input", f"x={model_dir / 'notnpy.npy'}")
    assert rc == 1 and "not a .npy file" in one_error_line(err)
    rc, _, err = cann_run(k, "--input", f"x={tmp_path / 'missing.npy'}")
    assert rc == 1 and "missing.npy: error: no such file" in one_error_line(err)
    rc, _, err = cann_run(k, "--input", "x")
    assert rc == 1 and "NAME=FILE.npy" in one_error_line(err)
    rc, _, err = cann_run(tmp_path / "nope.mlir")
    assert rc == 1 and "nope.mlir: error: no such file" in one_error_line(err)
    rc, _, err = cann_run(k, "--compare-with", tmp_path / "nope.pb")
    assert rc == 1 and "nope.pb: error: no such file" in one_error_line(err)


def test_cann_run_malformed_ir(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                   "  %0 = cann.Relu %a : (tensor<2xf32>) -> \n}\n")
    rc, _, err = cann_run(bad)
    line = one_error_line(err)
    assert rc == 1 and line.startswith(f"{bad}:3:1: error:"), line


def test_cann_run_runtime_error_names_the_op(model_dir, tmp_path):
    text = (model_dir / "kernel.mlir").read_text().replace("usedCoreNum = 2", "usedCoreNum = 1", 1)
    p = tmp_path / "bad_tiling.mlir"
    p.write_text(text)
    rc, _, err = cann_run(p)
    line = one_error_line(err)
    assert rc == 1 and "kernel.cube_conv2d: tiling usedCoreNum = 1 differs from block_dim = 2" in line
    assert line.startswith(f"{p}:") and line.split(":")[1].isdigit(), line
