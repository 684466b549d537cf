"""Keras' Embedding wraps negative ids (ids < 0 ? ids + n : ids) before its GatherV2: that index
computation runs on the gather kernel's index tile (fusion/auto.py marks it prologue,
cann_to_kernel/gather.py lowers it): one GatherV2D kernel, and the .om matches TensorFlow for
ids in [-n, n), negative ones included (cann-compile, then cann-run --compare-with)."""

from __future__ import annotations

import numpy as np

from tests.pytest.test_grouped_conv import _kinds


def test_embedding_is_one_gather_kernel_and_matches_tensorflow_on_negative_ids(tmp_path, capsys):
    from tests.model_zoo.zoo import _keras, freeze
    from tools import cann_compile, cann_run

    keras = _keras()
    layers = keras.layers
    keras.utils.set_random_seed(2)
    ids = keras.Input((6,), batch_size=1, dtype="int32", name="ids")
    model = keras.Model(ids, layers.Embedding(30, 8)(ids))
    pb = tmp_path / "e.pb"
    pb.write_bytes(freeze(model).SerializeToString())
    om = tmp_path / "e.om"
    rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                            f"--output={om}"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    kinds = [k for k in _kinds(om) if k not in ("kernel.transdata", "kernel.view")]
    assert kinds == ["GatherV2D"], kinds
    npy = tmp_path / "ids.npy"
    np.save(npy, np.array([[-30, -1, 0, 5, 29, -7]], dtype=np.int32))
    rc = cann_run.main([str(om), "--input", f"ids={npy}", "--compare-with", str(pb),
                        "--atol", "1e-4", "--rtol", "1e-3"])
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
