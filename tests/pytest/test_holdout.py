"""The hold-out set (tests/model_zoo/holdout.py: architectures the zoo does not have, to check
that the mechanisms are general): every model that passes `cann-compile`s and its .om matches
TensorFlow under `cann-run --compare-with` at atol 1e-4 / rtol 1e-3, so it stays passing.

In process, as tests/pytest/test_zoo.py; inputs are `holdout_inputs` (ids in range, 0/1
masks); graphs are built once into the zoo cache (CANN_MODEL_ZOO).  `benchmarks/zoo.py
--holdout` measures them (kernels, launches, latency against Grappler).
"""

from __future__ import annotations

import pytest

from tests.model_zoo.holdout import HOLDOUT

#: model -> the failure today (stage: first line of the error, from benchmarks/zoo.py --holdout)
NOT_PASSING_YET: dict[str, str] = {}

TESTED = [n for n in HOLDOUT if n not in NOT_PASSING_YET]


def test_holdout_set_has_eight_architectures_none_of_them_in_the_zoo():
    from tests.model_zoo.zoo import ZOO

    assert len(HOLDOUT) >= 8 and not set(HOLDOUT) & set(ZOO)
    assert set(NOT_PASSING_YET) <= set(HOLDOUT)


@pytest.mark.modelzoo
@pytest.mark.parametrize("name", TESTED)
def test_holdout_model_compiles_and_matches_tensorflow(name, tmp_path, capsys):
    from tests.model_zoo.holdout import holdout_graphdef, holdout_inputs
    from tests.pytest.compare import compile_om, run_and_compare

    path = holdout_graphdef(name)
    om = compile_om(path, tmp_path / f"{name}.om", capsys, label=name)
    run_and_compare(om, path, tmp_path, capsys, holdout_inputs(name, graph_path=path), name)
