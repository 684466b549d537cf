"""The end-to-end check the tests share: cann-compile a frozen graph, then cann-run its .om
against TensorFlow (atol 1e-4, rtol 1e-3)."""

from __future__ import annotations

import numpy as np


def freeze_to(tmp_path, name: str, model) -> str:
    """The Keras `model` frozen (tests.model_zoo.zoo.freeze) to tmp_path/`name`.pb; its path."""
    from tests.model_zoo.zoo import freeze

    path = tmp_path / f"{name}.pb"
    path.write_bytes(freeze(model).SerializeToString())
    return str(path)


def run_and_compare(om, pb, tmp_path, capsys, inputs=None, label: str = "") -> str:
    """cann-run `om` against `pb` (on `inputs`, name -> array, saved as .npy; else cann-run's own
    random inputs); asserts it passes; cann-run's output."""
    from tools import cann_run

    feeds: list[str] = []
    for key, value in (inputs or {}).items():
        npy = tmp_path / f"{key}.npy"
        np.save(npy, value)
        feeds += ["--input", f"{key}={npy}"]
    rc = cann_run.main([str(om), *feeds, "--compare-with", str(pb), "--atol", "1e-4",
                        "--rtol", "1e-3"])
    out = capsys.readouterr()
    assert rc == 0, f"cann-run {label}: {out.out}{out.err}"
    return out.out


def compile_om(pb, om, capsys, *options, label: str = ""):
    """cann-compile `pb` for the Ascend910B3 into `om` (asserts it succeeds); `om`."""
    from tools import cann_compile

    rc = cann_compile.main([f"--model={pb}", "--framework=3", "--soc_version=Ascend910B3",
                            f"--output={om}", *options])
    out = capsys.readouterr()
    assert rc == 0, f"cann-compile {label}: {out.err}"
    return om


def compile_and_compare(tmp_path, capsys, pb, *options, inputs=None):
    """cann-compile the graph, then cann-run its .om against TensorFlow; the .om's path."""
    om = compile_om(pb, tmp_path / "m.om", capsys, *options)
    run_and_compare(om, pb, tmp_path, capsys, inputs)
    return om
