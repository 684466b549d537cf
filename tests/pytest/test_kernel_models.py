"""Whole models at the kernel level (issue 6): ResNet50, MobileNetV2, EfficientNetB0 and the
BERT-style encoder through tools.driver.pipelines LEVELS["kernel"] (tf-to-cann, fuse,
assign-layouts, cann-to-kernel), printed and re-parsed as cann-run would read them, executed
kernel by kernel, tile by tile on the device layouts, and compared with TensorFlow on the same
inputs: max abs error <= 1e-4 (fp32).  On the CNNs no TransData kernel remains (the input's runs
in the first conv's GM -> L1 load, the output's in the last kernel's store).  Models are built once into the zoo cache (CANN_MODEL_ZOO)."""

from __future__ import annotations

import time

import pytest

from compiler.ir.ir_io import make_context
from tools.driver.pipelines import LEVELS, run_passes

CNNS = ["ResNet50", "MobileNetV2", "EfficientNetB0"]


#: Models whose offline model (.om) is also run on its planned arena and must equal the
#: kernel-level IR's output exactly (one more whole-model run each).
OM_EXACT = ("MobileNetV2", "BertEncoder2")


@pytest.mark.modelzoo
@pytest.mark.parametrize("name", [*CNNS, "BertEncoder2"])
def test_model_kernel_level_matches_tensorflow(name, tmp_path):
    """The text round trip is the offline model's: kernel IR printed with the weights as
    arguments (raw bytes in the WEIGHTS section) and parsed back - never 100 MB of hex."""
    import numpy as np

    from compiler.backend.offline_model import load_offline_model, run_offline_model, write_offline_model
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.interpreters.execute import random_inputs, run_module
    from tests.model_zoo.zoo import frozen_graphdef
    from tools.driver.runner import compare, run_graphdef

    path = frozen_graphdef(name)
    t0 = time.perf_counter()
    ctx = make_context()
    module = run_passes(ctx, import_graphdef_file(path), [*LEVELS["kernel"], "plan-memory"])
    om_path = str(tmp_path / f"{name}.om")
    write_offline_model(module, om_path)
    om = load_offline_model(om_path)
    t_compile = time.perf_counter() - t0

    names = [op.name for op in om.module.walk()]
    left = sorted({n for n in names if n.split(".")[0] in ("tf", "cann") and n != "cann.Const"})
    assert not left, f"{name}: ops left above the kernel level: {left}"
    assert "kernel.mmad" in names and "kernel.vec_kernel" in names
    if name in CNNS:
        # the input's folds into the first conv's converting GM -> L1 load, the output's into
        # the store of the kernel producing it
        assert names.count("kernel.transdata") == 0, f"{name}: {names.count('kernel.transdata')} TransData"

    inputs = random_inputs(om.module, seed=1)
    t0 = time.perf_counter()
    ours = run_module(om.module, inputs)
    t_run = time.perf_counter() - t0
    if name in OM_EXACT:  # the .om on its arena == the (never printed) kernel-level IR
        planned = run_offline_model(om, inputs)
        for out, v in run_module(module, inputs).items():
            assert np.array_equal(planned[out], v) and np.array_equal(ours[out], v), out
    reference = run_graphdef(path, inputs, list(ours))
    for out, r in compare(ours, reference, atol=1e-4, rtol=1e-4).items():
        print(f"{name}/{out}: max abs {r.max_abs:.2e}, max rel {r.max_rel:.2e}, "
              f"compile {t_compile:.1f} s, kernel-level run {t_run:.1f} s")
        assert r.max_abs <= 1e-4, f"{name}/{out}: max abs error {r.max_abs}"
