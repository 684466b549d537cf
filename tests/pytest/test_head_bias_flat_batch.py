"""A projection's head bias after a head split that also regroups the leading axes
(MatMulReshapeHeadBiasFusionPass, helpers.last_dim_to_last_axes): Keras' MultiHeadAttention
with `attention_axes` on a 4-D input projects q, k and v as one matmul over the flattened
batch, [B*P*S, C] -> [B, P, S, N, D], then adds the [N, D] bias; the bias goes into the matmul
(no Add is left a kernel of its own).  A small Keras graph through cann-compile and cann-run
--compare-with TensorFlow."""

from __future__ import annotations

from compiler.ir.ir_io import make_context
from tests.pytest.compare import compile_and_compare, freeze_to
from tools.driver.pipelines import run_passes


def _axes_attention(tmp_path):
    """MultiHeadAttention over axis 2 of a [1, 4, 16, 32] input (attention across positions of
    one patch slot, MobileViT's form), 2 heads of 16."""
    from tests.model_zoo.zoo import tensorflow

    k = tensorflow().keras
    k.utils.set_random_seed(3)
    inp = k.Input((4, 16, 32), batch_size=1, name="x")
    y = k.layers.MultiHeadAttention(2, 16, attention_axes=(2,))(inp, inp)
    return freeze_to(tmp_path, "axes_attention", k.Model(inp, y))


def test_head_bias_of_a_flat_batch_projection_is_in_the_matmul(tmp_path, capsys):
    from compiler.frontend.importers.graphdef import import_graphdef_file
    from passes import fuse

    pb = _axes_attention(tmp_path)
    module = import_graphdef_file(pb)
    run_passes(make_context(), module, ("tf-to-cann", "cann-cleanup", "fuse"))
    assert not [o for o in module.walk() if o.name == "cann.Add"]
    assert fuse.LAST_REPORT["auto_fusion"]["unfused"] == []
    compile_and_compare(tmp_path, capsys, pb)
