"""A fuzz harness for the tools' bad-input contract (issue 14): see `tests.fuzz.harness`.

    python -m tests.fuzz --minutes 10            # every kind, 2 minutes each, a random seed
    python -m tests.fuzz --cases 300 --seed 0    # fixed: the same cases every run

tests/pytest/test_fuzz_smoke.py runs a fixed-seed smoke run in CI.
"""
