"""Shape ranges (issue 16 part 2): one range compile per model, then per shape the dispatch's
cost, the estimate of the kernels tiled at dispatch against a static compile at that shape, and
the max abs error against TensorFlow.

    python benchmarks/shape_ranges.py [--zoo /tmp/zoo]

Models: tests/model_zoo/ranged.py (RangedCNN with `x:1~16,32,32,3`, RangedEncoder with
`x:1,1~32,32`).  Per shape:
  miss s      Dispatcher.kernels on a new shape: shape inference on the cann semantics, then the
              recorded passes fuse .. plan-memory (tools/driver/runtime_tiling.py)
  hit us      the same call again (the shape cache)
  est us      the perf report of the kernels tiled at dispatch / of `cann-compile --input_shape`
              at that shape (tools/driver/shape_ranges.py `shape_reports` does the former)
  max abs     the dispatched kernels run on their planned arena vs TensorFlow, same inputs
Nothing is asserted (tests/pytest/test_shape_ranges.py asserts).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE)]

MODELS = {"RangedCNN": ("x:1~16,32,32,3", [(1, 32, 32, 3), (3, 32, 32, 3), (4, 32, 32, 3),
                                           (9, 32, 32, 3), (16, 32, 32, 3)]),
          "RangedEncoder": ("x:1,1~32,32", [(1, 1, 32), (1, 5, 32), (1, 13, 32), (1, 24, 32),
                                            (1, 32, 32)])}


def _compile(argv) -> None:
    from tools.cann_compile import main as compile_main

    if compile_main(["--framework=3", "--soc_version=Ascend910B3", *argv]) != 0:
        raise SystemExit(f"cann-compile {' '.join(argv)} failed")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zoo", default=None, help="model cache directory (default $CANN_MODEL_ZOO)")
    args = ap.parse_args()
    import contextlib
    import io
    import json

    import numpy as np

    from compiler.backend.offline_model import load_offline_model, run_planned
    from compiler.backend.perf_report import perf_report
    from tests.model_zoo.ranged import ranged_graphdef
    from tools.driver.runner import compare, run_graphdef
    from tools.driver.runtime_tiling import Dispatcher

    print("| model | range | shape | miss s | hit us | est us ranged / static (ratio) | max abs vs TF |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (spec, shapes) in MODELS.items():
            pb = ranged_graphdef(name, args.zoo)
            om = os.path.join(tmp, name)
            with contextlib.redirect_stdout(io.StringIO()):
                _compile([f"--model={pb}", f"--input_shape={spec}", f"--output={om}"])
            d = Dispatcher.of_kernel_module(load_offline_model(f"{om}.om").module, f"{om}.om")
            for shape in shapes:
                t0 = time.perf_counter()
                kernels = d.kernels({"x": list(shape)})
                miss = time.perf_counter() - t0
                t0 = time.perf_counter()
                d.kernels({"x": list(shape)})
                hit = time.perf_counter() - t0
                ours = perf_report(kernels).latency_us
                static = os.path.join(tmp, "static.json")
                with contextlib.redirect_stdout(io.StringIO()):
                    _compile([f"--model={pb}", f"--input_shape=x:{','.join(map(str, shape))}",
                              f"--output={os.path.join(tmp, 'static')}", f"--report-json={static}"])
                theirs = json.load(open(static))["latency_us"]
                x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
                outs = run_planned(kernels, {"x": x})
                ref = run_graphdef(pb, {"x": x}, list(outs))
                err = max(c.max_abs for c in compare(outs, ref, 1e-4, 1e-3).values())
                print(f"| {name} | {spec} | {list(shape)} | {miss:.2f} | {hit * 1e6:.0f} | "
                      f"{ours:.3f} / {theirs:.3f} ({ours / theirs:.3f}) | {err:.2g} |")
            print(f"<!-- {name}: {d.stats_line()} -->")
    return 0


if __name__ == "__main__":
    sys.exit(main())
