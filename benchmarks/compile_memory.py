"""Memory plans: arena vs the live-set lower bound and vs the naive sum, side by side.

    python benchmarks/compile_memory.py [--zoo DIR] [--models ResNet50,MobileNetV2,...]

Targets (issue 7): arena <= 1.05 x live-set bound and <= 0.5 x naive sum.  Each model is
compiled to the kernel level and planned there; a model that does not reach the kernel level
yet is planned at the deepest level it reaches (every op one launch, elementwise ops in place)
and the row says which level.  Also: the example conv block (fused and unfused) and synthetic
kernel IR (a ResNet-like residual chain with workspaces), which need no model zoo.
Model GraphDefs come from tests/model_zoo/zoo.py (built once into --zoo, default /tmp/zoo).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from compiler.backend import memory_plan as mp  # noqa: E402
from compiler.ir.diagnostics import CompileError, OpError  # noqa: E402
from compiler.ir.entry import main_func  # noqa: E402
from compiler.ir.ir_io import make_context  # noqa: E402
from tools.driver.pipelines import PipelineOptions, build_pipeline  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["ResNet50", "MobileNetV2", "EfficientNetB0", "BertEncoder2"]


def plan_at_deepest_level(module, passes):
    """Run passes (the pipeline builder's, configured) one by one; plan at the kernel level,
    else at the deepest level reached."""
    ctx = make_context()
    level, last, note = "tf", None, ""
    for p in passes:
        try:
            p.apply(ctx, module)
        except (CompileError, OpError, Exception) as e:  # noqa: BLE001 - report and go on
            msg = (str(e).strip().splitlines() or [type(e).__name__])[0]
            note = f"{p.name} failed: {msg[:90]}"
            break
        level, last = p.name, p
    fn = main_func(module)
    if last is passes[-1]:
        c = mp.collect(fn)
        lvl = "kernel"
    else:
        c = mp.collect(fn, any_op=True)
        lvl = f"after {level} (proxy)"
    mp.choose_aliases(c)
    plan = mp.plan_tensors(c.reqs)
    problems = mp.check_plan(c.reqs, plan.offsets, plan.arena, plan.alignment, c.allowed)
    assert not problems, problems[0]
    return plan, lvl, note


def synthetic_resnet(blocks: int = 16, hw: int = 56, c1: int = 4) -> str:
    """Kernel IR (unregistered `kernel.*` ops, planned generically): per block conv-bn-relu x3
    + a residual add, each conv with a GM workspace; spatial size halves every 4 blocks."""
    lines = ['builtin.module attributes {cann.soc_version = "Ascend910B3"} {']
    t = lambda c, s: f"tensor<1x{c}x{s}x{s}x16xf16>"  # noqa: E731
    lines.append(f"func.func @main(%x: {t(c1, hw)}) -> {t(c1 * 8, hw // 8)} {{")
    cur, c, s, n = "%x", c1, hw, 0
    for b in range(blocks):
        if b and b % 4 == 0 and b < 16:
            lines.append(f'%v{n} = "kernel.conv"({cur}) {{workspace = 65536 : i64}} : '
                         f'({t(c, s)}) -> {t(c * 2, s // 2)}')
            cur, c, s, n = f"%v{n}", c * 2, s // 2, n + 1
        skip = cur
        for _ in range(3):
            lines.append(f'%v{n} = "kernel.conv"({cur}) {{workspace = 32768 : i64}} : ({t(c, s)}) -> {t(c, s)}')
            lines.append(f'%v{n + 1} = "kernel.eltwise"(%v{n}) {{fn = "Relu"}} : ({t(c, s)}) -> {t(c, s)}')
            cur, n = f"%v{n + 1}", n + 2
        lines.append(f'%v{n} = "kernel.eltwise"({cur}, {skip}) {{fn = "Add"}} : ({t(c, s)}, {t(c, s)}) -> {t(c, s)}')
        cur, n = f"%v{n}", n + 1
    lines.append(f'%v{n} = "kernel.conv"({cur}) : ({t(c, s)}) -> {t(c1 * 8, hw // 8)}')
    lines.append(f"func.return %v{n} : {t(c1 * 8, hw // 8)}")
    lines += ["}", "}"]
    return "\n".join(lines)


def row(name, plan, level, note="", dt=None):
    rb = plan.arena / plan.live_bound if plan.live_bound else 1.0
    rn = plan.arena / plan.naive if plan.naive else 1.0
    ok = "OK" if rb <= 1.05 and rn <= 0.5 else ("OK(bound)" if rb <= 1.05 else "MISS")
    t = f" {dt:6.2f}s" if dt is not None else ""
    print(f"{name:<22} {level:<26} {plan.arena:>12} {plan.live_bound:>12} {plan.naive:>13} "
          f"{rb:>7.3f} {rn:>7.3f}  {ok}{t}" + (f"  [{note}]" if note else ""))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--zoo", default="/tmp/zoo")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--no-zoo", action="store_true", help="only the example and synthetic IR")
    args = ap.parse_args()
    print(f"{'model':<22} {'planned at':<26} {'arena B':>12} {'live bound B':>12} "
          f"{'naive sum B':>13} {'/bound':>7} {'/naive':>7}  target(<=1.05x bound, <=0.5x naive)")
    from compiler.ir.ir_io import load_module

    for fused in (True, False):
        module, _ = load_module(os.path.join(ROOT, "examples", "conv_block.tf.mlir"))
        kernel = build_pipeline(PipelineOptions(level="kernel"))
        passes = kernel if fused else tuple(p for p in kernel if p.name != "fuse")
        plan, lvl, note = plan_at_deepest_level(module, passes)
        row(f"conv_block{'' if fused else ' (unfused)'}", plan, lvl, note)
    from xdsl.parser import Parser

    ctx = make_context()
    ctx.allow_unregistered = True
    for blocks in (4, 16):
        module = Parser(ctx, synthetic_resnet(blocks)).parse_module()
        plan = mp.plan_function(main_func(module))
        row(f"synthetic resnet x{blocks}", plan, "kernel (hand-made)")
    if args.no_zoo:
        return 0
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from tests.model_zoo.zoo import frozen_graphdef

    for name in [m for m in args.models.split(",") if m]:
        t0 = time.perf_counter()
        try:
            module = import_graphdef_file(frozen_graphdef(name, args.zoo))
        except CompileError as e:
            print(f"{name:<22} import failed: {e.messages[0][:120]}")
            continue
        plan, lvl, note = plan_at_deepest_level(module, build_pipeline(PipelineOptions(level="kernel")))
        row(name, plan, lvl, note, time.perf_counter() - t0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
