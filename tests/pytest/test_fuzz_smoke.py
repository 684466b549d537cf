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


# --- the harness's own checks, on made-up results (no tool runs) ---------------------------------

class _ScriptedWorker:
    """Answers each run with the next of `replies`."""

    def __init__(self, replies):
        self.replies = list(replies)

    def run(self, tool, argv, timeout):
        return self.replies.pop(0)


def test_a_case_whose_second_run_differs_is_nondeterministic(tmp_path):
    from tests.fuzz.harness import Case, Stats, run_case

    src = tmp_path / "case1.pbtxt"
    src.write_text("node {}")
    first = {"rc": 1, "stdout": "", "stderr": f"{src}: error: bad <a object at 0x1>\n"}
    second = {"rc": 1, "stdout": "", "stderr": f"{src}: error: bad <a object at 0x2>\n"}
    stats = Stats()
    run_case(_ScriptedWorker([first, second]), Case("cann-translate", [str(src)], [str(src)]),
             20.0, stats, str(tmp_path / "defects"), check_determinism=True)
    assert (stats.checked_twice, stats.defects["nondeterministic"]) == (1, 1)


def test_durations_and_log_time_stamps_do_not_make_a_case_nondeterministic(tmp_path):
    from tests.fuzz.harness import Case, Stats, run_case

    src = tmp_path / "case1.pbtxt"
    src.write_text("node {}")

    def reply(t):
        return {"rc": 0, "stdout": f"m.om: 8192 bytes, compiled in {t} s\n",
                "stderr": f"[INFO] COMPILE(12,cann-compile):2026-12-01-12:00:0{t}.1{t}4.061 "
                          f"[cann_compile.py:336]pass fuse: 0.{t}488 s\n"}

    stats = Stats()
    run_case(_ScriptedWorker([reply(1), reply(2)]), Case("cann-compile", [str(src)], [str(src)]),
             20.0, stats, str(tmp_path / "defects"), check_determinism=True)
    assert stats.checked_twice == 1 and not any(stats.defects.values()), stats.defects


@pytest.mark.parametrize("line, options, named", [
    ("cann-compile: error: --out_nodes=x:a: 'x:a' is not node:index", ["--out_nodes"], True),
    ("cann-compile: error: argument --log: invalid choice: 'loud'", ["--log"], True),
    ("cann-compile: error: --log=loud: unknown log level", ["--input_shape"], False),
    ("cann-compile: error: something went wrong", ["--input_shape"], False),
])
def test_an_option_error_must_name_one_of_the_cases_options(line, options, named):
    from tests.fuzz.harness import classify

    defects = classify({"rc": 1, "stdout": "", "stderr": line + "\n"}, ["/tmp/m.pbtxt"], None,
                       options)
    assert defects == ([] if named else ["message without file name"])
