"""Tiling solver vs exhaustive search under the same cost model (issue #6).

For every conv / matmul shape of the models (ResNet50, MobileNetV2, EfficientNetB0 at 224x224,
batch 1, and a BERT-style encoder seq 128 hidden 256 ffn 1024 heads 4), this compares the solver's
tiling (compiler/target/tiling.py) with the best tiling found by exhaustive search over every core split
(bDim, mDim, nDim) and every base block (baseM, baseN multiples of 16 that fit L0A/L0B/L0C with the
solver's double buffering) under the same cost model (compiler/target/tiling.tiling_cost).  It prints
the worst and median ratio best/solver (1.0 = the solver is optimal; goal >= 0.9 worst) and the
solver's time per op (cold cache, i.e. a miss).

    python benchmarks/tiling_search.py [--chip Ascend910B3] [--from-models]

The shapes are the implicit-GEMM extents (M = N*Ho*Wo, N = Cout, K = Cin*kh*kw padded to C0;
depthwise: per enlarged group, batch = g_dim) written out from the architectures; --from-models
reads them from the frozen GraphDefs instead (needs TensorFlow and the model zoo cache).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from compiler.target import tiling  # noqa: E402
from compiler.target.chips import CHIPS, get_chip  # noqa: E402
from compiler.target.formats import ceil_div, group_enlargement  # noqa: E402

FP32 = 4


def conv(h, cin, cout, k, s, c0=16):
    ho = ceil_div(h, s)
    return ("Conv2D", ho * ho, cout, ceil_div(cin, c0) * c0 * k * k, 1)


def dw(h, c, k, s, c0=16):
    ho = ceil_div(h, s)
    e = group_enlargement(c, 1, 1, c0)
    return ("DepthwiseConv2D", ho * ho, e["n1"] * 16, e["c1"] * k * k * c0, e["g_dim"])


def resnet50():
    shapes = [conv(224, 3, 64, 7, 2)]
    h, cin = 56, 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for b in range(blocks):
            s = stride if b == 0 else 1
            shapes += [conv(h, cin, width, 1, 1), conv(h, width, width, 3, s),
                       conv(ceil_div(h, s), width, width * 4, 1, 1)]
            if b == 0:
                shapes.append(conv(h, cin, width * 4, 1, s))
            h, cin = ceil_div(h, s), width * 4
    shapes.append(("MatMulV2", 1, 1000, 2048, 1))
    return shapes


def mobilenetv2():
    shapes = [conv(224, 3, 32, 3, 2)]
    h, cin = 112, 32
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                       (6, 160, 3, 2), (6, 320, 1, 1)):
        for i in range(n):
            st = s if i == 0 else 1
            hid = cin * t
            if t != 1:
                shapes.append(conv(h, cin, hid, 1, 1))
            shapes.append(dw(h, hid, 3, st))
            h = ceil_div(h, st)
            shapes.append(conv(h, hid, c, 1, 1))
            cin = c
    shapes += [conv(7, 320, 1280, 1, 1), ("MatMulV2", 1, 1000, 1280, 1)]
    return shapes


def efficientnetb0():
    shapes = [conv(224, 3, 32, 3, 2)]
    h, cin = 112, 32
    for t, k, c, n, s in ((1, 3, 16, 1, 1), (6, 3, 24, 2, 2), (6, 5, 40, 2, 2), (6, 3, 80, 3, 2),
                          (6, 5, 112, 3, 1), (6, 5, 192, 4, 2), (6, 3, 320, 1, 1)):
        for i in range(n):
            st = s if i == 0 else 1
            hid = cin * t
            if t != 1:
                shapes.append(conv(h, cin, hid, 1, 1))
            shapes.append(dw(h, hid, k, st))
            h = ceil_div(h, st)
            se = max(1, cin // 4)
            shapes += [conv(1, hid, se, 1, 1), conv(1, se, hid, 1, 1), conv(h, hid, c, 1, 1)]
            cin = c
    shapes += [conv(7, 320, 1280, 1, 1), ("MatMulV2", 1, 1000, 1280, 1)]
    return shapes


def bert(seq=128, hidden=256, ffn=1024, heads=4, layers=2):
    d = hidden // heads
    one = [("MatMulV2", seq, hidden, hidden, 1)] * 4 + [
        ("BatchMatMulV2", seq, seq, d, heads), ("BatchMatMulV2", seq, d, seq, heads),
        ("MatMulV2", seq, ffn, hidden, 1), ("MatMulV2", seq, hidden, ffn, 1)]
    return one * layers


MODELS = {"ResNet50": resnet50, "MobileNetV2": mobilenetv2, "EfficientNetB0": efficientnetb0,
          "BERT-encoder": bert}


def model_gemms(names, cache_dir):
    """{model: () -> [(kind, M, N, K, batch)]} read from the frozen GraphDefs: each model is
    compiled to the kernel level (tools.driver.pipelines.build_pipeline) and every cube kernel's
    GEMM is taken from its tiling (M, N, Ka, batchNum): exactly the problems the solver served,
    including the GEMMs an attention is decomposed into."""
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.ir.ir_io import make_context
    from dialects import kernel
    from tests.model_zoo.zoo import frozen_graphdef
    from tools.driver.pipelines import PipelineOptions, build_pipeline, run_pipeline

    out = {}
    for name in names:
        module = import_graphdef_file(frozen_graphdef(name, cache_dir))
        run_pipeline(make_context(), module, build_pipeline(PipelineOptions(level="kernel")))
        shapes = []
        for op in module.walk():
            if isinstance(op, kernel.CubeKernelOp):
                f = op.tiling.as_dict()
                shapes.append((op.kind.data, f["M"], f["N"], f["Ka"], f.get("batchNum", 1)))
        out[name] = (lambda s=shapes: s)
    return out


def exhaustive(chip, kind, m, n, k, batch, in_bytes=FP32, c0=16):
    """The best cost over every core split and every fitting base block."""
    base_k = min(128 * 8 // (in_bytes * 8), tiling.align(k, c0))
    best = None
    for b_dim, m_dim, n_dim in tiling.candidate_splits(chip, batch, m, n):
        single_m = tiling.align(ceil_div(m, m_dim), 16)
        single_n = tiling.align(ceil_div(n, n_dim), 16)
        b_used = ceil_div(batch, ceil_div(batch, b_dim))
        for bm in range(16, min(256, single_m) + 1, 16):
            if bm * base_k * in_bytes * 2 > chip.l0a:
                break
            for bn in range(16, min(256, single_n) + 1, 16):
                if bn * base_k * in_bytes * 2 > chip.l0b or bm * bn * 4 > chip.l0c:
                    break
                c = tiling.tiling_cost(chip, batch, m, n, k, in_bytes, b_used, single_m,
                                       single_n, bm, bn)
                if best is None or c < best:
                    best = c
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chip", default="Ascend910B3", choices=list(CHIPS))
    ap.add_argument("--from-models", action="store_true",
                    help="read the conv / matmul shapes from the model zoo's frozen GraphDefs")
    ap.add_argument("--models", default="ResNet50,MobileNetV2,EfficientNetB0,BertEncoder2",
                    help="with --from-models: the model zoo names (comma-separated)")
    ap.add_argument("--zoo", default=None,
                    help="with --from-models: the model zoo cache directory (default: "
                         "tests.model_zoo.zoo.default_cache_dir())")
    args = ap.parse_args(argv)
    chip = get_chip(args.chip)
    models = model_gemms(args.models.split(","), args.zoo) if args.from_models else MODELS
    ratios, times, rows = [], [], []
    for model, fn in models.items():
        shapes = sorted(set(fn()))
        mr = []
        for kind, m, n, k, batch in shapes:
            tiling.cache_clear()
            t0 = time.perf_counter()
            t = tiling.cube_tiling(kind, m, n, k, FP32, 16, chip, batch)
            times.append(time.perf_counter() - t0)
            best = exhaustive(chip, kind, m, n, k, batch)
            r = best / t.est_cycles
            ratios.append(r)
            mr.append(r)
            rows.append((r, model, kind, m, n, k, batch, t.est_cycles, best))
        print(f"{model:15s} {len(shapes):3d} distinct GEMMs  worst {min(mr):.3f}  median "
              f"{statistics.median(mr):.3f}")
    rows.sort()
    print("\nworst cases (ratio, model, op, M, N, K, batch, solver cycles, best cycles):")
    for r in rows[:5]:
        print("  " + "  ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in r))
    print(f"\n{args.chip}: {len(ratios)} GEMMs, worst ratio {min(ratios):.3f}, median "
          f"{statistics.median(ratios):.3f} (best/solver under compiler/target/tiling.tiling_cost; "
          f"fp32)")
    print(f"solver time per op: median {statistics.median(times) * 1e3:.2f} ms, max "
          f"{max(times) * 1e3:.2f} ms (cache miss)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
