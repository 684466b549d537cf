"""A view that regroups only a matmul's rows sinks below the pointwise ops that read it
(canonicalization.ReshapeSinksThroughPointwise, _keeps_last_axis): Keras' Dense on a 4-D input
is a matmul over [B*H*W, C] viewed as [B, H, W, N]; its bias and activation (a swish, which no
matmul rule takes through the view) then run in the matmul's kernel, and the view meets the next
Dense's flattening view and both fold away.  A small Keras graph through cann-compile and
cann-run --compare-with TensorFlow."""

from __future__ import annotations

from compiler.ir.ir_io import make_context
from tests.pytest.compare import compile_and_compare, freeze_to
from tools.driver.pipelines import run_passes


def _swish_mlp(tmp_path):
    """Dense(64, swish) then Dense(32) on a [1, 4, 16, 32] input (a MobileViT MLP)."""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    k.utils.set_random_seed(5)
    inp = k.Input((4, 16, 32), batch_size=1, name="x")
    y = k.layers.Dense(64, activation="swish")(inp)
    y = k.layers.Dense(32)(y)
    return freeze_to(tmp_path, "swish_mlp", k.Model(inp, y))


def test_swish_after_a_rows_view_is_the_matmul_epilogue(tmp_path, capsys):
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from compiler.transforms.fusion.auto import epilogue_host
    from compiler.transforms.fusion.engine import count_kernels
    from passes import fuse

    pb = _swish_mlp(tmp_path)
    module = import_graphdef_file(pb)
    run_passes(make_context(), module, ("tf-to-cann", "cann-cleanup", "fuse"))
    (fk,) = [o for o in module.walk() if o.name == "cann.FusedKernel"]
    assert epilogue_host(fk) is not None and count_kernels(module) == 2
    assert fuse.LAST_REPORT["auto_fusion"]["unfused"] == []
    compile_and_compare(tmp_path, capsys, pb)
