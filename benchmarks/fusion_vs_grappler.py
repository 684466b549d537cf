"""Kernel counts after our fusion vs after TensorFlow's Grappler, on the same frozen GraphDefs.

    python benchmarks/fusion_vs_grappler.py [--models ResNet50,MobileNetV2,EfficientNetB0,BertEncoder2]
                                            [--cache-dir .modelzoo] [--check] [--report-dir D]

For each model-zoo model (tests/model_zoo/zoo.py, built and cached on first use):
  ours      import -> tf-to-cann -> fuse; "kernels" = cann ops that launch a device kernel
            (not constants, not views, by their op-kind traits: compiler.transforms.fusion.engine.is_kernel)
  grappler  tensorflow.python.grappler.tf_optimizer.OptimizeGraph, default config, every node
            placed on /device:CPU:0 (without a device string Grappler fuses nothing); its kernels
            = nodes other than Const/Identity/Placeholder/NoOp and reshape-like views
and prints both counts, the ratio and the targets (issue 5).  `--check` also runs the fused
module and compares with TensorFlow on the same random input (max abs error, target <= 1e-4).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TARGETS = {"ResNet50": 60, "MobileNetV2": 60, "EfficientNetB0": 120, "BertEncoder2": 16}
TF_NON_KERNEL = {"Const", "Identity", "IdentityN", "Placeholder", "NoOp", "Reshape", "Squeeze",
                 "ExpandDims", "StopGradient", "Snapshot", "Shape", "PreventGradient"}


def grappler_optimize(graph_def, outputs: list[str]):
    """(Grappler's optimized GraphDef, seconds): TensorFlow's meta-optimizer, default config, on
    a copy of graph_def with every node placed on /device:CPU:0 (without a device string Grappler
    fuses nothing), `outputs` fetched."""
    import tensorflow as tf
    from tensorflow.core.protobuf import config_pb2, meta_graph_pb2
    from tensorflow.python.grappler import tf_optimizer

    gd = graph_def.__class__()
    gd.CopyFrom(graph_def)
    for node in gd.node:
        node.device = "/device:CPU:0"
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(gd, name="")
        meta = tf.compat.v1.train.export_meta_graph(graph_def=graph.as_graph_def(), graph=graph)
    fetch = meta_graph_pb2.CollectionDef()
    for o in outputs:
        fetch.node_list.value.append(o)
    meta.collection_def["train_op"].CopyFrom(fetch)
    config = config_pb2.ConfigProto()
    t0 = time.perf_counter()
    out = tf_optimizer.OptimizeGraph(config, meta)
    return out, time.perf_counter() - t0


def tf_kernel_count(graph_def) -> tuple[int, dict[str, int]]:
    """(kernels, op histogram) of a TensorFlow graph: nodes other than TF_NON_KERNEL."""
    ops: dict[str, int] = {}
    for n in graph_def.node:
        ops[n.op] = ops.get(n.op, 0) + 1
    return sum(c for op, c in ops.items() if op not in TF_NON_KERNEL), ops


def grappler_kernels(graph_def, outputs: list[str]) -> tuple[int, float, dict[str, int]]:
    out, dt = grappler_optimize(graph_def, outputs)
    kernels, ops = tf_kernel_count(out)
    return kernels, dt, ops


def our_kernels(path: str, report_path: str | None):
    """cann-compile's pipeline (tools/driver/pipelines.py) up to the fused level; "unfused" counts
    the kernels that enter fuse, the time is fuse's."""
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.ir.ir_io import make_context
    from compiler.transforms.fusion.engine import count_kernels
    from tools.driver.pipelines import PipelineOptions, build_pipeline, run_pipeline

    ctx = make_context()
    module = import_graphdef_file(path)
    seen: dict[str, float] = {}

    def around_fuse(p, when: str) -> None:
        if p.name == "fuse" and when == "before":
            seen["before"], seen["t0"] = count_kernels(module), time.perf_counter()
        elif p.name == "fuse":
            seen["dt"] = time.perf_counter() - seen["t0"]

    passes = build_pipeline(PipelineOptions(level="fused", fusion_report=report_path or ""))
    run_pipeline(ctx, module, passes, callback=around_fuse)
    ops: dict[str, int] = {}
    for op in module.walk():
        if op.name.startswith("cann."):
            ops[op.name] = ops.get(op.name, 0) + 1
    return module, int(seen["before"]), count_kernels(module), seen["dt"], ops


def output_names(graph_def) -> list[str]:
    consumed = {i.split(":")[0].lstrip("^") for n in graph_def.node for i in n.input}
    return [n.name for n in graph_def.node if n.name not in consumed and n.op not in ("Const", "NoOp")]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="ResNet50,MobileNetV2,EfficientNetB0,BertEncoder2")
    ap.add_argument("--cache-dir", default=os.environ.get("CANN_MODELZOO_CACHE", ".modelzoo"))
    ap.add_argument("--check", action="store_true", help="also compare outputs with TensorFlow")
    ap.add_argument("--report-dir", default=None, help="write each model's fusion report (JSON)")
    ap.add_argument("--verbose", action="store_true", help="print op histograms")
    args = ap.parse_args(argv)

    from compiler.frontend.tf_loader import read_graphdef_file
    from tests.model_zoo.zoo import frozen_graphdef

    rows = []
    for name in [m for m in args.models.split(",") if m]:
        path = frozen_graphdef(name, args.cache_dir)
        gd = read_graphdef_file(path)
        outs = output_names(gd)
        g_k, g_t, g_ops = grappler_kernels(gd, outs)
        report = os.path.join(args.report_dir, f"{name}.fusion.json") if args.report_dir else None
        try:
            module, before, ours, o_t, o_ops = our_kernels(path, report)
            err = ""
        except Exception as e:  # noqa: BLE001 - a model the pipeline cannot take yet
            module, before, ours, o_t, o_ops = None, -1, -1, 0.0, {}
            err = (str(e).strip().splitlines() or [type(e).__name__])[0][:160]
        max_abs = None
        if args.check and module is not None:
            from compiler.interpreters.execute import random_inputs, run_module
            from tools.driver.runner import run_graphdef

            inputs = random_inputs(module)
            mine = run_module(module, inputs)
            ref = run_graphdef(path, inputs, list(mine))
            max_abs = max(float(abs(mine[k].astype("float64") - ref[k]).max()) for k in ref)
        rows.append((name, before, ours, g_k, o_t, g_t, max_abs, err))
        if args.verbose:
            print(f"{name}: ours {sorted(o_ops.items(), key=lambda t: -t[1])}")
            print(f"{name}: grappler {sorted(g_ops.items(), key=lambda t: -t[1])}")

    print(f"{'model':<16} {'unfused':>8} {'ours':>6} {'grappler':>9} {'ours/grappler':>14} "
          f"{'target':>7} {'fuse s':>7} {'grappler s':>10} {'max abs':>9}")
    for name, before, ours, g, ot, gt, ma, err in rows:
        ratio = f"{ours / g:.2f}" if ours >= 0 and g else "-"
        tgt = TARGETS.get(name, "")
        ma_s = f"{ma:.2e}" if ma is not None else "-"
        print(f"{name:<16} {before:>8} {ours:>6} {g:>9} {ratio:>14} {tgt!s:>7} {ot:>7.2f} {gt:>10.2f} {ma_s:>9}")
        if err:
            print(f"  {name}: our pipeline failed: {err}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
