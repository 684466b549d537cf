"""python -m tests.fuzz [--minutes N | --cases N] [--seed S] [--kinds a,b] [--timeout 20]
                      [--determinism-every 20]

Prints the table of issue 14: per input kind the cases run and the defects found (internal
errors, crashes, hangs, messages without a file name, multi-line messages, output left behind,
nondeterministic output).  `--cases N` runs N cases of each kind; with `--minutes` too, a kind
also stops when its share of the time is up.
Defective cases are kept under --dir for inspection.  Exit code 1 if any defect was found.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from tests.fuzz.harness import KINDS, fuzz, random_seed, table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=None,
                   help="total time, split over the kinds (a kind done early leaves its share to the next)")
    p.add_argument("--cases", type=int, default=None, help="cases per kind")
    p.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: random)")
    p.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds per case before it is a hang")
    p.add_argument("--dir", default=None, help="work directory (default: a new temporary one)")
    p.add_argument("--determinism-every", type=int, default=20, metavar="N",
                   help="run one case in N twice and compare what the two runs produce")
    args = p.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        p.error(f"unknown kind(s) {', '.join(unknown)}; known: {', '.join(KINDS)}")
    if args.minutes is None and args.cases is None:
        args.minutes = 5.0
    seed = random_seed() if args.seed is None else args.seed
    workdir = args.dir or tempfile.mkdtemp(prefix="cann-fuzz-")
    start = time.monotonic()
    print(f"fuzz: seed {seed}, work directory {workdir}", file=sys.stderr)
    if args.determinism_every < 1:
        p.error(f"--determinism-every={args.determinism_every}: must be at least 1")
    results = fuzz(kinds, args.cases, None, seed, workdir, args.timeout,
                   progress=lambda s: print(f"fuzz: {s}", file=sys.stderr, flush=True),
                   determinism_every=args.determinism_every,
                   seconds_total=args.minutes * 60 if args.minutes else None)
    print(table(results))
    print(f"\n{sum(s.cases for s in results.values())} cases in "
          f"{time.monotonic() - start:.0f} s, seed {seed}; defective cases kept in {workdir}/defects")
    return 1 if any(any(s.defects.values()) for s in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
