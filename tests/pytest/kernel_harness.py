"""What the kernel-lowering tests share: write a cann-level module, lower it to kernels, print,
re-parse (what cann-run reads) and run it tile by tile."""

from __future__ import annotations

import numpy as np

from compiler.driver.pipelines import run_passes
from compiler.driver.runner import run_module
from compiler.ir.ir_io import make_context, module_to_text, parse_module


def dense(a: np.ndarray) -> str:
    return "dense<" + np.array2string(a, separator=", ", threshold=10**9, floatmode="unique") \
        .replace("\n", "") + ">"


def ty(shape) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def compile_and_run(body: str, args: dict[str, np.ndarray], out_shape, chip="Ascend910B3"):
    sig = ", ".join(f"%{k}: {ty(v.shape)}" for k, v in args.items())
    text = (f'builtin.module attributes {{cann.soc_version = "{chip}"}} {{\n'
            f"func.func @main({sig}) -> {ty(out_shape)} {{\n{body}\n}}\n}}")
    ctx = make_context()
    module, _ = parse_module(ctx, text, "t.mlir")
    run_passes(ctx, module, ["assign-layouts", "cann-to-kernel"])
    out = module_to_text(module)
    module, _ = parse_module(ctx, out, "k.mlir")
    res = run_module(module, {f"arg{i}": v for i, v in enumerate(args.values())})
    assert not [o for o in module.walk() if o.dialect_name() == "cann" and o.name != "cann.Const"]
    return out, next(iter(res.values()))


def om_launches(om) -> int:
    """The perf report's launch count of an .om (Ascend910B3)."""
    from compiler.backend.offline_model import load_offline_model
    from compiler.backend.perf_report import perf_report

    return perf_report(load_offline_model(str(om)).module, "Ascend910B3").launches
