"""The model zoo (tests/model_zoo/zoo.py) against TensorFlow's Grappler: one row per model.

    python benchmarks/zoo.py [--models ResNet50,UNet,...] [--json out.json] [--zoo /tmp/zoo]
                             [--soc Ascend910B3] [--holdout]

--holdout measures the hold-out set instead (tests/model_zoo/holdout.py `HOLDOUT`: architectures
the zoo does not have, built and cached the same way).

Per model (frozen GraphDef built and cached on first use, `CANN_MODEL_ZOO` or --zoo):
  kernels    ours: cann ops that launch a kernel after the pipeline up to `fuse`
             (tools.driver.pipelines LEVELS["fused"], compiler.transforms.fusion.engine.count_kernels);
             Grappler's: nodes of its optimized graph that are kernels
             (benchmarks/fusion_vs_grappler.py: grappler_optimize, tf_kernel_count)
  TransData  kernel.transdata in the compiled module (after assign-layouts: cann.TransData, when
             the compile stops before the kernel level)
  alone      pointwise ops the automatic fusion left as kernels of their own (the fusion
             report's `unfused` list, compiler/transforms/fusion/auto.py; each with its reasons
             in the JSON rows, `left_alone`)
  launches   the perf report's launch count (compiler/backend/perf_report.py)
  arena      the memory plan of @main (compiler/backend/memory_plan.py, `mem.plan`): arena MiB
             and arena / live-set bound (issue 12: <= 1.05)
  latency    ours: the perf report's estimate; Grappler's graph: the same per-kernel cost model
             op by op (benchmarks/compile_vs_grappler.py: estimate_tf_graph)
  compile    ours: cann-compile's work end to end in this process, the .om written
             (compile_vs_grappler.TimedCompile); Grappler's: its OptimizeGraph call
  max abs    the .om run on its planned arena (as `cann-run model.om` runs it) vs TensorFlow on
             the same inputs (tests.model_zoo.zoo.sample_inputs: ids in range, 0/1 masks); `ok`
             at atol 1e-4 / rtol 1e-3 (issue 12's bar)
A model that fails at some stage keeps its row: the stage and the first line of the error; the
run goes on with the next model.  Nothing is asserted (tests/pytest/test_zoo.py asserts).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]  # the repository, and this folder's benchmarks

from compile_vs_grappler import TimedCompile, estimate_tf_graph  # noqa: E402 (sys.path above)
from fusion_vs_grappler import grappler_optimize, output_names, tf_kernel_count  # noqa: E402

ATOL, RTOL = 1e-4, 1e-3


def first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def _count(module, name: str) -> int:
    return sum(1 for op in module.walk() if op.name == name)


def measure(name: str, zoo: str, soc: str, registry: dict | None = None) -> dict:
    """One row; on failure `stage` and `error` say where and why, the rest stays None.
    `registry`: the models' dict (default the zoo's `ZOO`; the hold-out set's `HOLDOUT`)."""
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.frontend.tf_loader import read_graphdef_file
    from compiler.ir.ir_io import make_context
    from compiler.target.chips import get_chip
    from compiler.transforms.fusion.engine import count_kernels
    from passes import fuse
    from tests.model_zoo.zoo import ZOO, frozen_graphdef, sample_inputs
    from tools.driver.pipelines import LEVELS, run_passes

    models = registry or ZOO
    row: dict = {"model": name, "family": models[name].family, "stage": None, "error": None}
    for k in ("kernels", "grappler_kernels", "transdata", "alone", "left_alone", "launches",
              "arena_mib", "arena_live", "latency_us", "grappler_latency_us", "compile_s",
              "grappler_s", "max_abs", "ok"):
        row[k] = None

    def fail(stage: str, e: BaseException) -> dict:
        row["stage"], row["error"] = stage, first_line(e)[:200]
        return row

    try:
        t0 = time.perf_counter()
        path = frozen_graphdef(name, zoo, registry=registry)
        row["build_s"] = time.perf_counter() - t0
        gd = read_graphdef_file(path)
    except Exception as e:  # noqa: BLE001
        return fail("build", e)

    try:
        optimized, row["grappler_s"] = grappler_optimize(gd, output_names(gd))
        row["grappler_kernels"], _ = tf_kernel_count(optimized)
        row["grappler_latency_us"], _ = estimate_tf_graph(optimized, get_chip(soc))
    except Exception as e:  # noqa: BLE001
        return fail("grappler", e)

    # the pipeline's first levels (untimed): kernels after fusion, TransData after layouts.  A
    # failure here is reported by the timed compile below, which fails at the same pass with
    # cann-compile's diagnostic (file and TF node).
    ctx = make_context()
    try:
        module = import_graphdef_file(path)
        for i, p in enumerate(LEVELS["layouts"]):
            run_passes(ctx, module, (p,))
            if i + 1 == len(LEVELS["fused"]):
                row["kernels"] = count_kernels(module)
                auto = (fuse.LAST_REPORT or {}).get("auto_fusion") or {"unfused": []}
                row["left_alone"] = auto["unfused"]
                row["alone"] = len(auto["unfused"])
        row["transdata"] = _count(module, "cann.TransData")
    except Exception as e:  # noqa: BLE001
        row["untimed_error"] = first_line(e)[:200]
    module = None

    # cann-compile, timed; then the .om against TensorFlow
    timed = TimedCompile()
    with tempfile.TemporaryDirectory() as tmp:
        om_path = os.path.join(tmp, f"{name}.om")
        try:
            module = timed.run(path, soc, om_path)
        except Exception as e:  # noqa: BLE001
            # cann-compile's steps: import, the kernel level's passes, plan-memory, the .om
            stages = ["import", *LEVELS["kernel"], "plan-memory", "write .om"]
            return fail(next((s for s in stages if s not in timed.steps), "cann-compile"), e)
        row["compile_s"] = timed.wall
        row["transdata"] = _count(module, "kernel.transdata")
        try:
            from compiler.backend.memory_plan import read_plan_info
            from compiler.ir.entry import main_func

            info = read_plan_info(main_func(module))
            row["arena_mib"] = info["arena"] / 2**20
            row["arena_live"] = info["arena"] / info["live_bound"] if info["live_bound"] else 1.0
        except Exception as e:  # noqa: BLE001
            return fail("plan-memory", e)
        try:
            from compiler.backend.perf_report import perf_report

            rep = perf_report(module, soc)
            row["launches"], row["latency_us"] = rep.launches, rep.latency_us
        except Exception as e:  # noqa: BLE001
            return fail("perf-report", e)
        del module
        try:
            from compiler.backend.offline_model import load_offline_model, run_planned
            from tools.driver.runner import compare, run_graphdef

            om = load_offline_model(om_path).module
            inputs = sample_inputs(name, graph_path=path, registry=registry)
            ours = run_planned(om, inputs)
            ref = run_graphdef(path, inputs, list(ours))
            results = compare(ours, ref, ATOL, RTOL)
            row["max_abs"] = max(c.max_abs for c in results.values())
            row["ok"] = all(c.ok for c in results.values())
        except Exception as e:  # noqa: BLE001
            return fail("run .om", e)
    return row


def _ratio(a, b) -> str:
    return f"{a / b:.2f}" if a is not None and b else "-"


def _f(v, fmt: str) -> str:
    return "-" if v is None else format(v, fmt)


def table(rows: list[dict]) -> str:
    head = (f"{'model':<19}{'family':<12}{'kernels':>8}{'grap':>6}{'ratio':>6}{'TransD':>7}"
            f"{'alone':>6}{'launch':>7}{'arena':>7}{'/live':>6}{'est us':>9}{'grap us':>9}{'ratio':>6}"
            f"{'comp s':>7}{'grap s':>7}{'ratio':>6}{'max abs':>9}  result")
    lines = [head, "-" * len(head)]
    for r in rows:
        if r["stage"]:
            result = f"FAIL at {r['stage']}"
        elif r["ok"]:
            result = "ok"
        else:
            result = "FAIL: error above atol/rtol"
        lines.append(
            f"{r['model']:<19}{r['family']:<12}{_f(r['kernels'], 'd'):>8}"
            f"{_f(r['grappler_kernels'], 'd'):>6}{_ratio(r['kernels'], r['grappler_kernels']):>6}"
            f"{_f(r['transdata'], 'd'):>7}{_f(r['alone'], 'd'):>6}{_f(r['launches'], 'd'):>7}"
            f"{_f(r['arena_mib'], '.1f'):>7}{_f(r['arena_live'], '.2f'):>6}"
            f"{_f(r['latency_us'], '.1f'):>9}{_f(r['grappler_latency_us'], '.1f'):>9}"
            f"{_ratio(r['latency_us'], r['grappler_latency_us']):>6}"
            f"{_f(r['compile_s'], '.2f'):>7}{_f(r['grappler_s'], '.2f'):>7}"
            f"{_ratio(r['compile_s'], r['grappler_s']):>6}{_f(r['max_abs'], '.1e'):>9}  {result}")
    failed = [r for r in rows if r["stage"]]
    if failed:
        lines.append("")
        lines.append("failures (model: stage: first line of the error)")
        lines += [f"  {r['model']}: {r['stage']}: {r['error']}" for r in failed]
    ok = sum(1 for r in rows if r["ok"])
    lines.append("")
    lines.append(f"{ok} of {len(rows)} models compile and match TensorFlow "
                 f"(atol {ATOL:g}, rtol {RTOL:g})")
    return "\n".join(lines)


def main(argv=None) -> int:
    from tests.model_zoo.zoo import ZOO, default_cache_dir

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=None, help="comma-separated (default: all)")
    ap.add_argument("--json", default=None, metavar="FILE", help="also write the rows as JSON")
    ap.add_argument("--zoo", default=None, help="cache of built models (default: $CANN_MODEL_ZOO)")
    ap.add_argument("--soc", default="Ascend910B3")
    ap.add_argument("--holdout", action="store_true",
                    help="the hold-out set (tests/model_zoo/holdout.py) instead of the zoo")
    args = ap.parse_args(argv)
    registry = None
    if args.holdout:
        from tests.model_zoo.holdout import HOLDOUT as registry
    models = registry or ZOO
    names = [m for m in (args.models or ",".join(models)).split(",") if m]
    unknown = [m for m in names if m not in models]
    if unknown:
        print(f"zoo.py: error: unknown model {unknown[0]}; the {'hold-out set' if registry else 'zoo'}"
              f" has {', '.join(models)}", file=sys.stderr)
        return 1
    from compiler.frontend.tf_loader import tensorflow

    tensorflow()  # imported before any clock starts
    zoo = args.zoo or default_cache_dir()
    rows = []
    for name in names:
        row = measure(name, zoo, args.soc, registry)
        rows.append(row)
        print(f"# {name}: {row['stage'] and 'FAIL at ' + row['stage'] or 'done'}", file=sys.stderr,
              flush=True)
        gc.collect()
    print(f"model {'hold-out set' if registry else 'zoo'} on {args.soc} (benchmarks/zoo.py"
          f"{' --holdout' if registry else ''})")
    print(table(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
