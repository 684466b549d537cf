"""Whole models at the kernel level (issue 6): ResNet50, MobileNetV2, EfficientNetB0 and the
BERT-style encoder through compiler.pipelines LEVELS["kernel"] (tf-to-cann, fuse,
assign-layouts, cann-to-kernel), printed and re-parsed as cann-run would read them, executed
kernel by kernel, tile by tile on the device layouts, and compared with TensorFlow on the same
inputs: max abs error <= 1e-4 (fp32).  On the CNNs exactly two TransData remain (model input and
output).  Models are built once into the zoo cache (CANN_MODEL_ZOO)."""

from __future__ import annotations

import time

import pytest

from compiler.ir_io import make_context, module_to_text, parse_module
from compiler.pipelines import LEVELS, run_passes

CNNS = ["ResNet50", "MobileNetV2", "EfficientNetB0"]


@pytest.mark.modelzoo
@pytest.mark.parametrize("name", [*CNNS, "BertEncoder2"])
def test_model_kernel_level_matches_tensorflow(name):
    from compiler.importers.graphdef import import_graphdef_file
    from compiler.model_zoo import frozen_graphdef
    from compiler.runner import compare, random_inputs, run_graphdef, run_module

    path = frozen_graphdef(name)
    t0 = time.perf_counter()
    ctx = make_context()
    module = run_passes(ctx, import_graphdef_file(path), LEVELS["kernel"])
    text = module_to_text(module)
    module, _ = parse_module(ctx, text, f"{name}.kernel.mlir")
    t_compile = time.perf_counter() - t0

    left = sorted({op.name for op in module.walk() if op.dialect_name() in ("tf", "cann")
                   and op.name != "cann.Const"})
    assert not left, f"{name}: ops left above the kernel level: {left}"
    assert "kernel.mmad" in text and "kernel.vec_kernel" in text
    if name in CNNS:
        assert text.count("kernel.transdata") == 2, f"{name}: {text.count('kernel.transdata')} TransData"

    inputs = random_inputs(module, seed=1)
    t0 = time.perf_counter()
    ours = run_module(module, inputs)
    t_run = time.perf_counter() - t0
    reference = run_graphdef(path, inputs, list(ours))
    for out, r in compare(ours, reference, atol=1e-4, rtol=1e-4).items():
        print(f"{name}/{out}: max abs {r.max_abs:.2e}, max rel {r.max_rel:.2e}, "
              f"compile {t_compile:.1f} s, kernel-level run {t_run:.1f} s")
        assert r.max_abs <= 1e-4, f"{name}/{out}: max abs error {r.max_abs}"
