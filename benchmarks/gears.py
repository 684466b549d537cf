"""Shape gears: a 4-gear .om against one static .om, in file size and compile time, for a CNN
(--dynamic_batch_size) and a transformer encoder from Keras layers (--dynamic_dims on the
sequence axis).  Ratios are printed; nothing is asserted.

    python benchmarks/gears.py [--runs 3] [--dir /tmp/gears-bench]

Issue 16's targets: the 4-gear .om <= 1.1x one static .om (the weights are stored once), and
compiling 4 gears <= 2x one static compile.  Each compile is `cann-compile` as a user runs it: a
fresh process, TensorFlow's import included.  Wall time depends on what else the machine runs;
the CPU time (user + system of the child) is the steadier measure and is printed beside it.
The static compile is gear 0's shape; the best of --runs of each is taken.  The size ratio in
parentheses is the 4-gear .om's with its per-gear sections inflated (without the zlib streams).  The models are built
locally (tests/model_zoo/gear_models.py).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

CASES = [
    # name, builder, static --input_shape, gear options
    ("CNN (batch 1,2,4,8)", "cnn_graphdef", ["--input_shape=x:1,32,32,3"],
     ["--input_shape=x:-1,32,32,3", "--dynamic_batch_size=1,2,4,8"]),
    ("encoder (seq 16,32,48,64)", "encoder_graphdef",
     ["--input_shape=x:1,16,64", "--input_format=ND"],
     ["--input_shape=x:1,-1,64", "--input_format=ND", "--dynamic_dims=16;32;48;64"]),
]


def _compile(model: str, out: str, extra: list[str]) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of one cann-compile process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "tools.cann_compile", f"--model={model}", "-o", out,
                        *extra], cwd=ROOT, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"cann-compile failed: {r.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r.stdout


def uncompressed_size(path: str) -> int:
    """The multi-gear .om's bytes with its per-gear sections inflated (what it would be without
    compiler/backend/gear_model.py's zlib streams; section padding aside)."""
    import zlib

    from compiler.backend import offline_model as om
    from compiler.backend.gear_model import GEARS

    data = open(path, "rb").read()
    header = om.parse_header(data, path)
    total = om.HEADER_SIZE
    for (kind, _), v in om.read_section_table(data, header, path).items():
        total += len(v) if kind in (GEARS, om.WEIGHTS) else len(zlib.decompress(bytes(v)))
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default="/tmp/gears-bench")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    from tests.model_zoo import gear_models

    print("| model | static .om B | 4-gear .om B | size ratio (uncompressed gears) "
          "| static compile s (wall / CPU) | 4-gear compile s (wall / CPU) "
          "| compile ratio (wall / CPU) |")
    print("|---|---|---|---|---|---|---|")
    for name, builder, static_args, gear_args in CASES:
        model = getattr(gear_models, builder)(os.path.join(args.dir, builder + ".pb"))
        static_om = os.path.join(args.dir, builder + "_static.om")
        gears_om = os.path.join(args.dir, builder + "_gears.om")
        static = [_compile(model, static_om, static_args)[:2] for _ in range(args.runs)]
        gears = [_compile(model, gears_om, gear_args)[:2] for _ in range(args.runs)]
        sw, sc = min(t[0] for t in static), min(t[1] for t in static)
        gw, gc = min(t[0] for t in gears), min(t[1] for t in gears)
        s_size, g_size = os.path.getsize(static_om), os.path.getsize(gears_om)
        raw = uncompressed_size(gears_om)
        print(f"| {name} | {s_size} | {g_size} | {g_size / s_size:.3f} ({raw / s_size:.3f}) "
              f"| {sw:.2f} / {sc:.2f} "
              f"| {gw:.2f} / {gc:.2f} | {gw / sw:.2f} / {gc / sc:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
