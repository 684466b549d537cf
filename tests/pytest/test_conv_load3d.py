"""Convs whose A operand reaches L1 as x's rows and is expanded by Load3D on the L1 -> L0A path
(compiler/target/conv_geometry.py, the tiling's fmapRows, views fmap and load3d): the window
bound holds for every block of output pixels, the tiling takes the path where the cost model
finds it cheaper, and the kernels compute TensorFlow's conv (windows across images, strides,
dilations, pads), run tile by tile by the kernel interpreter."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from kernel_harness import compile_and_run, dense, ty

from compiler.target.chips import get_chip
from compiler.target.conv_geometry import fmap_rows, fmap_window_rows, out_size
from compiler.target.tiling import cube_tiling


def test_window_bound_covers_every_block():
    """fmap_window_rows(bm, start_align) >= the rows any bm consecutive output pixels starting at
    a multiple of start_align read (brute force over small geometries with 1-3 images, every
    such start)."""
    for n, h, kh, sh, dh, pt, pb in itertools.product((1, 2, 3), (1, 2, 5, 7), (1, 3), (1, 2),
                                                      (1, 2), (0, 1), (0, 2)):
        dk = dh * (kh - 1) + 1
        if h + pt + pb < dk:
            continue
        ho = out_size(h, kh, sh, dh, pt, pb)
        for wo, bm in itertools.product((1, 3, 4), (1, 2, 5, 16, 33)):
            m = n * ho * wo
            for align in (1, 2, 3, 4, 8, 12):  # blocks starting at multiples of align
                bound = fmap_window_rows(bm, n, h, ho, wo, kh, sh, dh, align)
                for lo in range(0, m, align):
                    r_lo, r_hi = fmap_rows(lo, min(lo + bm, m), h, ho, wo, kh, sh, dh, pt)
                    assert r_hi - r_lo <= bound, (n, h, kh, sh, dh, pt, wo, bm, align, lo)


def test_window_of_blocks_starting_at_row_starts_has_no_spare_row():
    """Blocks of 4 output rows of 64 pixels (3x3 conv, stride 1) read 4 + 2 rows when they start
    at a row's first pixel (starts multiples of 64), 7 when a block may start anywhere."""
    assert fmap_window_rows(256, 1, 64, 64, 64, 3, 1, 1, 256) == 6
    assert fmap_window_rows(256, 1, 64, 64, 64, 3, 1, 1) == 7


def test_tiling_takes_load3d_where_cheaper():
    """A 3x3 conv (img2col reads each x element 9 times) gets the window; a 1x1 stride-1 conv
    whose core has one N block (the img2col tile is x's rows already) keeps the A tiles."""
    chip = get_chip("Ascend910B3")
    t3 = cube_tiling("Conv2D", 56 * 56, 64, 4 * 9 * 16, 4, 16, chip,
                     fmap=(1, 58, 58, 4, 56, 56, 3, 1, 1))
    assert t3.fields["fmapRows"] > 0 and [b.role for b in t3.buffers][0] == "fmap"
    plain = cube_tiling("Conv2D", 56 * 56, 64, 4 * 9 * 16, 4, 16, chip)
    assert t3.est_cycles < plain.est_cycles and "fmapRows" not in plain.fields
    t1 = cube_tiling("Conv2D", 56 * 56, 64, 4 * 16, 4, 16, chip,
                     fmap=(1, 56, 56, 4, 56, 56, 1, 1, 1))
    assert "fmapRows" not in t1.fields


def tf():
    from compiler.frontend.tf_loader import tensorflow
    return tensorflow()


CONVS = [  # (N, H, W, Cin, Cout, k, stride, dilation, pads)
    (2, 16, 16, 3, 40, 3, 1, 1, (1, 1, 1, 1)),
    (3, 9, 7, 20, 24, 3, 2, 1, (1, 1, 0, 1)),
    (2, 12, 11, 17, 33, 3, 1, 2, (2, 2, 2, 2)),
    (1, 30, 30, 3, 16, 7, 2, 1, (3, 3, 3, 3)),
]


@pytest.mark.parametrize("n,h,w,cin,cout,k,s,d,pads", CONVS)
def test_load3d_conv_matches_tf(n, h, w, cin, cout, k, s, d, pads):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((n, h, w, cin)).astype(np.float32)
    f = rng.normal(0, 0.5, (k, k, cin, cout)).astype(np.float32)
    b = rng.normal(0, 0.5, (cout,)).astype(np.float32)
    pt, pb, pl, pr = pads
    ho, wo = out_size(h, k, s, d, pt, pb), out_size(w, k, s, d, pl, pr)
    yshape = (n, ho, wo, cout)
    body = f"""
  %w = cann.Const {dense(f)} : {ty(f.shape)}
  %y = cann.FusedConv2D %x, %w, %b {{strides = array<i64: 1, {s}, {s}, 1>, pads = array<i64: {pt}, {pb}, {pl}, {pr}>, dilations = array<i64: 1, {d}, {d}, 1>, groups = 1 : i64, data_format = "NHWC", activation = "Relu"}} : ({ty(x.shape)}, {ty(f.shape)}, {ty(b.shape)}) -> {ty(yshape)}
  func.return %y : {ty(yshape)}"""
    text, y = compile_and_run(body, {"x": x, "b": b}, yshape)
    assert 'view = "fmap"' in text and 'view = "load3d"' in text
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    want = tf().nn.relu(tf().nn.bias_add(tf().nn.conv2d(xp, f, s, "VALID", dilations=d), b)).numpy()
    assert np.abs(y - want).max() <= 1e-4


CONVS3D = [  # (N, D, H, W, Cin, Cout, (kd, kh, kw), (sd, sh), (dd, dh), (pf, pb), (pt, pb, pl, pr))
    (2, 4, 32, 32, 3, 16, (3, 3, 3), (1, 1), (1, 1), (1, 1), (1, 1, 1, 1)),
    (1, 6, 16, 16, 20, 8, (3, 3, 3), (1, 1), (2, 1), (2, 2), (1, 1, 1, 1)),
    (2, 7, 16, 15, 5, 24, (3, 3, 3), (2, 2), (1, 1), (1, 1), (1, 1, 1, 0)),
    (1, 5, 20, 20, 16, 16, (2, 3, 3), (1, 1), (1, 2), (0, 1), (0, 0, 2, 2)),
]


@pytest.mark.parametrize("n,d,h,w,cin,cout,k,s,dil,dpads,pads", CONVS3D)
def test_load3d_conv3d_plane_windows_match_tf(n, d, h, w, cin, cout, k, s, dil, dpads, pads):
    """A Conv3D whose every M block lies in one output plane takes one 2-D window per depth tap
    (fmapPlaneRows: conv_geometry.py fmap3d_plane_rows) and computes TensorFlow's conv3d (depth
    pads, depth dilation and stride, several clips, odd channels and widths)."""
    rng = np.random.default_rng(5)
    (kd, kh, kw), (sd, sh), (dd, dh), (pf, pbk), (pt, pb, pl, pr) = k, s, dil, dpads, pads
    x = rng.standard_normal((n * d, h, w, cin)).astype(np.float32)
    f = rng.normal(0, 0.5, (kd, kh, kw, cin, cout)).astype(np.float32)
    do = out_size(d, kd, sd, dd, pf, pbk)
    ho, wo = out_size(h, kh, sh, dh, pt, pb), out_size(w, kw, 1, 1, pl, pr)
    yshape = (n * do, ho, wo, cout)
    body = f"""
  %w = cann.Const {dense(f)} : {ty(f.shape)}
  %y = cann.Conv3D %x, %w {{strides = array<i64: 1, {sh}, 1, 1>, pads = array<i64: {pt}, {pb}, {pl}, {pr}>, dilations = array<i64: 1, {dh}, 1, 1>, groups = 1 : i64, data_format = "NHWC", depth = array<i64: {d}, {do}, {kd}, {sd}, {dd}, {pf}, {pbk}>}} : ({ty(x.shape)}, {ty(f.shape)}) -> {ty(yshape)}
  func.return %y : {ty(yshape)}"""
    text, y = compile_and_run(body, {"x": x}, yshape)
    assert "fmapPlaneRows" in text and "plane_rows" in text
    xp = np.pad(x.reshape(n, d, h, w, cin), ((0, 0), (pf, pbk), (pt, pb), (pl, pr), (0, 0)))
    want = tf().nn.conv3d(xp, f, [1, sd, sh, 1, 1], "VALID", dilations=[1, dd, dh, 1, 1]).numpy()
    assert np.abs(y - want.reshape(yshape)).max() <= 1e-4
