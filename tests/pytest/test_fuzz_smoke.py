"""A fixed-seed smoke run of the fuzz harness (tests/fuzz): the same few hundred mutated inputs
of each kind every run (cann-compile itself included: the `compile` kind), none of which may
crash a tool, hang it, make it report an internal error, print a message that names no input
file (or option) or spans lines, or leave an output behind; one case in ten runs twice and must
produce the same bytes.  `python -m tests.fuzz --cases N` is the longer run (issue 14's
table)."""

from __future__ import annotations

import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)  # the harness is `tests.fuzz` of this repository (not an installed package)

from tests.fuzz.harness import KINDS, fuzz, table  # noqa: E402

#: cases per kind (CANN_FUZZ_SMOKE_CASES overrides it)
CASES = int(os.environ.get("CANN_FUZZ_SMOKE_CASES", 200))
#: one case in this many runs twice (the determinism check)
TWICE = 10


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return fuzz(list(KINDS), CASES, None, seed=20261201, workdir=str(tmp_path_factory.mktemp("fuzz")),
                timeout=120.0,  # a hang never ends; 120 s: no false alarm on a loaded machine
                determinism_every=TWICE)


@pytest.mark.parametrize("kind", KINDS)
def test_fuzz_smoke_has_no_defects(kind, smoke):
    stats = smoke[kind]
    assert stats.cases == CASES
    assert not any(stats.defects.values()), f"{table({kind: stats})}\n{_details(stats)}"


@pytest.mark.parametrize("kind", KINDS)
def test_fuzz_smoke_runs_one_case_in_ten_twice(kind, smoke):
    """The determinism check ran (its defect, `nondeterministic`, is counted above)."""
    assert smoke[kind].checked_twice == -(-CASES // TWICE)


def _details(stats) -> str:
    """The defective cases themselves (the run's directory does not outlive pytest's tmp)."""
    out = []
    for defect, dirs in stats.examples.items():
        for d in dirs[:3]:
            for f in sorted(os.listdir(d)):
                with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                    out.append(f"--- {defect}: {f}\n{fh.read()[:3000]}")
    return "\n".join(out)
