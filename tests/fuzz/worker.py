"""A worker process of the fuzz harness: runs tool invocations in-process, one per request.

Requests and replies are JSON lines on stdin / the inherited fd given as argv[1].  TensorFlow
and xDSL are imported once, so a case costs what the tool's work costs.  A case that crashes the
process (a segfault or abort in TensorFlow's C++) or never returns is seen by the harness as the
worker dying or not answering; the harness then starts a new worker.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys

TOOLS = {
    "cann-opt": "tools.cann_opt",
    "cann-translate": "tools.cann_translate",
    "cann-run": "tools.cann_run",
    "cann-compile": "tools.cann_compile",
}


def run(tool: str, argv: list[str]) -> dict:
    import importlib

    main = importlib.import_module(TOOLS[tool]).main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:  # a tool's main returns its code; argparse may still exit
            rc = e.code if isinstance(e.code, int) else 1
        except BaseException as e:  # noqa: BLE001 - escaped the tool's own error handling
            rc = 99
            print(f"ESCAPED {type(e).__name__}: {e}", file=err)
    return {"rc": rc, "stdout": out.getvalue()[-2000:], "stderr": err.getvalue()[-8000:]}


def main() -> None:
    reply = os.fdopen(int(sys.argv[1]), "w", buffering=1)
    for line in sys.stdin:
        req = json.loads(line)
        reply.write(json.dumps(run(req["tool"], req["argv"])) + "\n")


if __name__ == "__main__":
    main()
