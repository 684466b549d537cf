"""Layout facts against the reference formulas (cann-facts.md sections 2-3).

Each vectorised converter of compiler/target/formats.py is compared with a literal, per-element
implementation of the reference index map (loops over the destination, zero beyond the origin
extent), including C not a multiple of C0, N (Cout) and M not multiples of 16, K not a multiple
of C0, batch dims, int8 (C0 = 32) and grouped / depthwise filters with the enlargement rule.
"""

from __future__ import annotations

import itertools
from math import ceil, gcd

import numpy as np
import pytest

from compiler.target import formats as F
from compiler.target.formats import Format


def rand(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-100, 100, shape).astype(dtype)
    return (rng.standard_normal(shape) + 10.0).astype(dtype)  # nonzero everywhere


# --- C0 -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,c0", [("float16", 16), ("float32", 16), ("int8", 32),
                                      ("uint8", 32), ("bf16", 16), ("i8", 32), ("f16", 16)])
def test_c0_by_dtype(dtype, c0):
    assert F.c0_for(dtype) == c0


def test_format_ids():
    assert [Format(n).ge_id for n in ("NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z", "HWCN",
                                      "FRACTAL_NZ", "NDC1HWC0", "FRACTAL_Z_3D")] == \
        [0, 1, 2, 3, 4, 16, 29, 32, 33]


# --- NC1HWC0 ----------------------------------------------------------------------------------

def ref_nc1hwc0(src_nchw, c0):
    n, c, h, w = src_nchw.shape
    c1 = ceil(c / c0)
    dst = np.empty((n, c1, h, w, c0), src_nchw.dtype)
    for a, b, i, j, k in itertools.product(range(n), range(c1), range(h), range(w), range(c0)):
        ch = b * c0 + k
        dst[a, b, i, j, k] = src_nchw[a, ch, i, j] if ch < c else 0
    return dst


@pytest.mark.parametrize("shape,dtype", [((2, 3, 4, 5), np.float32), ((1, 17, 3, 2), np.float16),
                                         ((1, 33, 2, 2), np.int8), ((2, 32, 2, 3), np.float32),
                                         ((1, 16, 1, 1), np.float16)])
def test_nc1hwc0_index_map(shape, dtype):
    x = rand(shape, dtype)
    c0 = F.c0_for(dtype)
    want = ref_nc1hwc0(x, c0)
    got = F.nchw_to_nc1hwc0(x, c0)
    assert got.shape == F.nc1hwc0_shape(*shape, c0) == want.shape
    np.testing.assert_array_equal(got, want)
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(F.nhwc_to_nc1hwc0(nhwc, c0), want)
    np.testing.assert_array_equal(F.to_storage(nhwc, Format.NC1HWC0, Format.NHWC), want)
    np.testing.assert_array_equal(F.nc1hwc0_to_nchw(got, shape[1]), x)
    np.testing.assert_array_equal(
        F.from_storage(got, Format.NC1HWC0, Format.NHWC, nhwc.shape), nhwc)
    assert F.storage_shape(Format.NC1HWC0, Format.NHWC, nhwc.shape, dtype) == want.shape


def test_ndc1hwc0_index_map():
    x = rand((1, 2, 3, 2, 20))  # NDHWC
    got = F.ndhwc_to_ndc1hwc0(x, 16)
    assert got.shape == (1, 2, 2, 3, 2, 16)
    for n, d, c1, h, w, c0 in itertools.product(*map(range, got.shape)):
        c = c1 * 16 + c0
        assert got[n, d, c1, h, w, c0] == (x[n, d, h, w, c] if c < 20 else 0)
    np.testing.assert_array_equal(F.ndc1hwc0_to_ndhwc(got, 20), x)
    assert F.storage_shape(Format.NDC1HWC0, Format.ND, x.shape, np.float32) == got.shape
    np.testing.assert_array_equal(F.to_storage(x, Format.NDC1HWC0, Format.ND), got)
    np.testing.assert_array_equal(F.from_storage(got, Format.NDC1HWC0, Format.ND, x.shape), x)


def test_ndc1hwc0_is_nc1hwc0_of_the_batch_view():
    """NDC1HWC0 of [N, D, H, W, C] holds the bytes of NC1HWC0 of [N*D, H, W, C]: folding (N, D)
    into the batch (cann.Conv3D's views) moves no byte."""
    x = rand((2, 3, 4, 5, 20))
    nd = F.ndhwc_to_ndc1hwc0(x, 16)
    nc = F.nhwc_to_nc1hwc0(x.reshape(6, 4, 5, 20), 16)
    np.testing.assert_array_equal(nd.reshape(-1), nc.reshape(-1))


def test_fractal_z_3d_index_map():
    """FRACTAL_Z_3D of DHWCN (kd, kh, kw, C, O): row (d*C1 + c1)*kh*kw + h*kw + w, fractal
    (n1, n0, c0) = w[d, h, w, c1*C0 + c0, n1*16 + n0], 0 past C and O."""
    kd, kh, kw, c, o = 2, 3, 2, 20, 18
    w = rand((kd, kh, kw, c, o))
    got = F.to_storage(w, Format.FRACTAL_Z_3D, Format.ND)
    assert got.shape == F.storage_shape(Format.FRACTAL_Z_3D, Format.ND, w.shape, np.float32) \
        == (kd * 2 * kh * kw, 2, 16, 16)
    for d, c1, i, j, n1, n0, k in itertools.product(range(kd), range(2), range(kh), range(kw),
                                                    range(2), range(16), range(16)):
        ci, co = c1 * 16 + k, n1 * 16 + n0
        want = w[d, i, j, ci, co] if ci < c and co < o else 0
        assert got[((d * 2 + c1) * kh + i) * kw + j, n1, n0, k] == want
    np.testing.assert_array_equal(F.from_storage(got, Format.FRACTAL_Z_3D, Format.ND, w.shape), w)


# --- FRACTAL_Z ----------------------------------------------------------------------------------

def ref_fractal_z(w_nchw, c0):
    n, c, h, w = w_nchw.shape
    c1, n1 = ceil(c / c0), ceil(n / 16)
    dst = np.empty((c1 * h * w, n1, 16, c0), w_nchw.dtype)
    for a, i, j, b, m, k in itertools.product(range(c1), range(h), range(w), range(n1),
                                              range(16), range(c0)):
        co, ci = b * 16 + m, a * c0 + k
        dst[(a * h + i) * w + j, b, m, k] = w_nchw[co, ci, i, j] if co < n and ci < c else 0
    return dst


@pytest.mark.parametrize("hwcn,dtype", [((3, 3, 3, 20), np.float32), ((1, 1, 17, 33), np.float16),
                                        ((2, 3, 40, 5), np.int8), ((3, 3, 16, 16), np.float32)])
def test_fractal_z_index_map(hwcn, dtype):
    w = rand(hwcn, dtype)
    c0 = F.c0_for(dtype)
    nchw = w.transpose(3, 2, 0, 1)
    want = ref_fractal_z(nchw, c0)
    got = F.hwcn_to_fractal_z(w, c0)
    kh, kw, cin, cout = hwcn
    assert got.shape == want.shape == F.fractal_z_shape(cout, cin, kh, kw, c0)
    assert F.storage_shape(Format.FRACTAL_Z, Format.HWCN, hwcn, dtype) == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(F.nchw_to_fractal_z(np.ascontiguousarray(nchw), c0), want)
    np.testing.assert_array_equal(F.from_storage(got, Format.FRACTAL_Z, Format.HWCN, hwcn), w)


def lcm(a, b):
    return a * b // gcd(a, b)


def ref_group_shape(groups, cin_ori, cout_ori, kh, kw, c0):
    """Literally the reference's TransShapeToFzWithGroups formulas."""
    e_mult = min(lcm(lcm(cin_ori, c0) // cin_ori, lcm(cout_ori, 16) // cout_ori), groups)
    cin_opt = ceil(e_mult * cin_ori / c0) * c0
    c1 = cin_opt // c0
    g_dim = ceil(groups / e_mult)
    n1 = ceil(cout_ori * e_mult / 16)
    return (g_dim * c1 * kh * kw, n1, 16, c0), e_mult, c1


def ref_fractal_z_groups(w_hwcn, groups, c0):
    """Per element: group gi = g*e_mult + e sits block-diagonally in enlarged group g."""
    kh, kw, cin_ori, cout = w_hwcn.shape
    cout_ori = cout // groups
    shape, e_mult, c1 = ref_group_shape(groups, cin_ori, cout_ori, kh, kw, c0)
    dst = np.zeros(shape, w_hwcn.dtype)
    for row, n1, n0, k0 in itertools.product(*map(range, shape)):
        gc1, rem = divmod(row, kh * kw)
        g, a = divmod(gc1, c1)
        h, x = divmod(rem, kw)
        ci, co = a * c0 + k0, n1 * 16 + n0
        e_in, i = divmod(ci, cin_ori)
        e_out, o = divmod(co, cout_ori)
        gi = g * e_mult + e_in
        if e_in == e_out and e_in < e_mult and gi < groups:
            dst[row, n1, n0, k0] = w_hwcn[h, x, i, gi * cout_ori + o]
    return dst


@pytest.mark.parametrize("groups,cin_ori,cout_ori,k,dtype", [
    (32, 1, 1, 3, np.float32),     # depthwise, 32 channels: e_mult = 16, g_dim = 2
    (24, 1, 1, 3, np.float32),     # depthwise, C not a multiple of 16: last group partial
    (8, 1, 2, 3, np.float16),      # depthwise multiplier 2
    (4, 3, 5, 1, np.float32),      # grouped, Cin/Cout per group not aligned
    (2, 8, 8, 3, np.float32),      # e_mult limited by groups
    (3, 20, 16, 1, np.float32),    # e_mult = 1 (cin_ori > C0)
    (40, 1, 1, 3, np.int8),        # depthwise int8: C0 = 32
])
def test_fractal_z_groups(groups, cin_ori, cout_ori, k, dtype):
    c0 = F.c0_for(dtype)
    w = rand((k, k, cin_ori, groups * cout_ori), dtype)
    want = ref_fractal_z_groups(w, groups, c0)
    shape, e_mult, _ = ref_group_shape(groups, cin_ori, cout_ori, k, k, c0)
    e = F.group_enlargement(groups, cin_ori, cout_ori, c0)
    assert e["e_mult"] == e_mult
    assert F.fractal_z_group_shape(groups * cout_ori, cin_ori, k, k, groups, c0) == shape
    assert F.storage_shape(Format.FRACTAL_Z, Format.HWCN, w.shape, dtype, groups) == shape
    got = F.to_storage(w, Format.FRACTAL_Z, Format.HWCN, groups)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        F.from_storage(got, Format.FRACTAL_Z, Format.HWCN, w.shape, groups), w)


def test_depthwise_enlargement_numbers():
    # MobileNetV2-style depthwise on 32 channels, fp16: every 16 channels share one fractal.
    e = F.group_enlargement(32, 1, 1, 16)
    assert (e["e_mult"], e["cin_opt"], e["c1"], e["g_dim"], e["n1"]) == (16, 16, 1, 2, 1)
    assert F.fractal_z_group_shape(32, 1, 3, 3, 32, 16) == (18, 1, 16, 16)
    w = rand((3, 3, 32, 1))
    g = F.depthwise_to_grouped_hwcn(w)
    assert g.shape == (3, 3, 1, 32) and g[1, 2, 0, 7] == w[1, 2, 7, 0]


def test_nd2_fractal_z():
    x = rand((40, 20))  # d0 = K = 40 (not a multiple of 16), d1 = N = 20
    got = F.nd2_to_fractal_z(x, 16)
    assert got.shape == F.nd2_fractal_z_shape(40, 20, 16) == (3, 2, 16, 16)
    for i1, j1, j0, i0 in itertools.product(*map(range, got.shape)):
        i, j = i1 * 16 + i0, j1 * 16 + j0
        assert got[i1, j1, j0, i0] == (x[i, j] if i < 40 and j < 20 else 0)
    np.testing.assert_array_equal(F.from_storage(got, Format.FRACTAL_Z, Format.ND, (40, 20)), x)
    assert F.storage_shape(Format.FRACTAL_Z, Format.ND, (40, 20), "float32") == (3, 2, 16, 16)


# --- FRACTAL_NZ ---------------------------------------------------------------------------------

def ref_fractal_nz(x, c0):
    *batch, m, k = x.shape
    k1, m1 = ceil(k / c0), ceil(m / 16)
    dst = np.empty((*batch, k1, m1, 16, c0), x.dtype)
    for bidx in itertools.product(*map(range, batch)):
        for a, b, i, j in itertools.product(range(k1), range(m1), range(16), range(c0)):
            r, c = b * 16 + i, a * c0 + j
            dst[(*bidx, a, b, i, j)] = x[(*bidx, r, c)] if r < m and c < k else 0
    return dst


@pytest.mark.parametrize("shape,dtype", [((17, 33), np.float32), ((2, 3, 5, 7), np.float16),
                                         ((16, 32), np.float32), ((40, 50), np.int8),
                                         ((3, 1, 20), np.float32)])
def test_fractal_nz_index_map(shape, dtype):
    x = rand(shape, dtype)
    c0 = F.c0_for(dtype)
    want = ref_fractal_nz(x, c0)
    got = F.nd_to_fractal_nz(x, c0)
    assert got.shape == want.shape == F.fractal_nz_shape(shape, c0)
    assert F.storage_shape(Format.FRACTAL_NZ, Format.ND, shape, dtype) == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(F.from_storage(got, Format.FRACTAL_NZ, Format.ND, shape), x)


def test_bad_rules():
    with pytest.raises(ValueError):
        F.storage_shape(Format.FRACTAL_NZ, Format.ND, (5,), "float32")
    with pytest.raises(ValueError):
        F.storage_shape(Format.NC1HWC0, Format.ND, (1, 2, 3), "float32")
    with pytest.raises(ValueError):
        F.fractal_z_group_shape(10, 1, 3, 3, 4, 16)  # Cout not a multiple of groups


def test_depthwise_origin_descriptor():
    """A TF depthwise filter (kh, kw, C, mult) stored with groups = C round-trips."""
    w = rand((3, 3, 24, 2))
    fz = F.to_storage(w, Format.FRACTAL_Z, Format.HWCN, 24)
    assert fz.shape == F.storage_shape(Format.FRACTAL_Z, Format.HWCN, w.shape, "float32", 24)
    np.testing.assert_array_equal(fz, ref_fractal_z_groups(F.depthwise_to_grouped_hwcn(w), 24, 16))
    np.testing.assert_array_equal(F.from_storage(fz, Format.FRACTAL_Z, Format.HWCN, w.shape, 24), w)
