"""The model zoo (issue 12): every model `cann-compile`s and its .om matches TensorFlow under
`cann-run --compare-with` at atol 1e-4 / rtol 1e-3 (fp32).

The tools' main() run in this process (TensorFlow imported once).  Inputs are the zoo's
`sample_inputs` (floats N(0, 1), ids inside their table, padding masks of 1s then 0s), given to
cann-run with --input: its own random inputs are N(0, 1) cast to the input's dtype, negative ids
that TensorFlow's Gather rejects.  Models are built once into the zoo cache (CANN_MODEL_ZOO).

Models that do not pass yet are in NOT_PASSING_YET with the failure measured today; they are not
run here (benchmarks/zoo.py measures them) and move into the tested list as they are fixed.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.model_zoo.zoo import ZOO

#: model -> the failure today (stage: first line of the error, from benchmarks/zoo.py)
NOT_PASSING_YET: dict[str, str] = {
    # empty: all 22 pass (benchmarks/zoo.py).  A model that regresses or a new one
    # that fails goes here as "stage: first line of the error".
}

TESTED = [n for n in ZOO if n not in NOT_PASSING_YET]


def test_zoo_has_twenty_architectures_and_the_failure_list_names_zoo_models():
    assert len(ZOO) >= 20
    assert set(NOT_PASSING_YET) <= set(ZOO)
    assert {z.family for z in ZOO.values()} <= {"cnn", "transformer", "other"}


def test_sample_inputs_of_an_int_signature_are_valid_ids_and_masks():
    """No model is built: the keras-hub backbones declare their signature."""
    from tests.model_zoo.zoo import HUB_SEQ, HUB_VOCAB, sample_inputs

    feeds = sample_inputs("BertBackbone", seed=3)
    assert sorted(feeds) == ["padding_mask", "segment_ids", "token_ids"]
    for v in feeds.values():
        assert v.shape == (1, HUB_SEQ) and v.dtype == np.int32
    assert 0 <= feeds["token_ids"].min() and feeds["token_ids"].max() < HUB_VOCAB
    assert set(np.unique(feeds["segment_ids"])) <= {0, 1}
    mask = feeds["padding_mask"][0]
    n = int(mask.sum())
    assert n >= 1 and mask[:n].all() and not mask[n:].any()  # 1s, then 0s


#: model -> (its .om, cann-compile's stderr when it failed): each model is compiled once for the
#: tests below
_COMPILED: dict[str, tuple[str, str | None]] = {}


def _compiled(name: str, tmp_path_factory, capsys) -> str:
    """The model's .om (cann-compile run once per model and session)."""
    from tests.model_zoo.zoo import frozen_graphdef
    from tools import cann_compile

    if name not in _COMPILED:
        om = tmp_path_factory.mktemp("zoo") / f"{name}.om"
        rc = cann_compile.main([f"--model={frozen_graphdef(name)}", "--framework=3",
                                "--soc_version=Ascend910B3", f"--output={om}"])
        err = capsys.readouterr().err
        _COMPILED[name] = (str(om), None if rc == 0 else err)
    om, err = _COMPILED[name]
    assert err is None, f"cann-compile {name}: {err}"
    return om


@pytest.mark.modelzoo
@pytest.mark.parametrize("name", TESTED)
def test_zoo_model_compiles_and_matches_tensorflow(name, tmp_path, tmp_path_factory, capsys):
    from tests.model_zoo.zoo import frozen_graphdef, sample_inputs
    from tests.pytest.compare import run_and_compare

    path = frozen_graphdef(name)
    om = _compiled(name, tmp_path_factory, capsys)
    print(run_and_compare(om, path, tmp_path, capsys, sample_inputs(name, graph_path=path), name))


@pytest.mark.modelzoo
@pytest.mark.parametrize("name", TESTED)
def test_zoo_model_arena_is_within_5_percent_of_the_live_set_bound(name, tmp_path_factory, capsys):
    """Issue 12: arena <= 1.05 x the live-set bound (compiler/backend/memory_plan.py) of @main."""
    from compiler.backend.memory_plan import read_plan_info
    from compiler.backend.offline_model import load_offline_model
    from compiler.ir.entry import main_func

    info = read_plan_info(main_func(load_offline_model(_compiled(name, tmp_path_factory, capsys)).module))
    assert info["arena"] <= 1.05 * info["live_bound"], info
