"""What the kernel-lowering tests share: write a cann-level module, lower it to kernels, print,
re-parse (what cann-run reads) and run it tile by tile."""

from __future__ import annotations

import numpy as np

from compiler.interpreters.execute import run_module
from compiler.ir.ir_io import make_context, module_to_text, parse_module
from tools.driver.pipelines import run_passes


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


def compile_on_off(tmp_path, capsys, model, switches: str,
                   common: str = "LaunchPacking:off\n") -> tuple:
    """The Keras `model` frozen and compiled by cann-compile twice for the Ascend910B3: with the
    fusion switch file `common` ("on") and with `common` + `switches` ("off"); (the .pb,
    {"on": .om, "off": .om}).  By default both compile with launch packing off
    (compiler/transforms/launch_packing.py), so a launch count compares one fusion alone."""
    from tests.model_zoo.zoo import freeze
    from tools import cann_compile

    pb = tmp_path / "model.pb"
    pb.write_bytes(freeze(model).SerializeToString())
    on, off = tmp_path / "on.cfg", tmp_path / "off.cfg"
    on.write_text(common or "# nothing off\n")
    off.write_text(common + switches)
    oms = {}
    for name, extra in (("on", [f"--fusion_switch_file={on}"]),
                        ("off", [f"--fusion_switch_file={off}"])):
        oms[name] = tmp_path / f"{name}.om"
        rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                                f"--output={oms[name]}", *extra])
        out = capsys.readouterr()
        assert rc == 0, out.err
    return pb, oms


def om_matches_tf(tmp_path, capsys, model, om, pb) -> None:
    """cann-run `om` on a random input of the model's (one) input shape, --compare-with `pb` at
    atol 1e-4 / rtol 1e-3 passes."""
    import numpy as np

    from tools import cann_run

    npy = tmp_path / "x.npy"
    shape = [1, *model.inputs[0].shape[1:]]
    np.save(npy, np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    rc = cann_run.main([str(om), "--input", f"{model.inputs[0].name.split(':')[0]}={npy}",
                        "--compare-with", str(pb), "--atol", "1e-4", "--rtol", "1e-3"])
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
