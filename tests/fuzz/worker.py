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
import time

TOOLS = {
    "cann-opt": "tools.cann_opt",
    "cann-translate": "tools.cann_translate",
    "cann-run": "tools.cann_run",
    "cann-compile": "tools.cann_compile",
}


def run(tool: str, argv: list[str]) -> dict:
    """One invocation: its exit code, stdout, stderr and the CPU seconds it took."""
    import importlib

    cpu = time.process_time()
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
    return {"rc": rc, "stdout": out.getvalue()[-2000:], "stderr": err.getvalue()[-8000:],
            "cpu": time.process_time() - cpu}


def _cache_multiverse() -> None:
    """xDSL's tools look up the `xdsl.universe` entry points (importlib.metadata reads every
    installed distribution's metadata: about 55 ms) each time a tool starts; in this one
    long-lived process they cannot change, so they are looked up once. Each call still gets
    dictionaries of its own, as before."""
    from xdsl.universe import Universe

    found = Universe.get_multiverse()

    def get_multiverse() -> Universe:
        return Universe(all_dialects=dict(found.all_dialects), all_passes=dict(found.all_passes),
                        all_targets=dict(found.all_targets),
                        all_frontends=dict(found.all_frontends))

    Universe.get_multiverse = staticmethod(get_multiverse)


_PRELOADED: dict[str, object] = {}  # sha256 of an .om's bytes -> its OfflineModel


def preload(path: str) -> dict:
    """Load the offline model `path` once; from then on, loading a file with the same bytes
    (the `npy` kind runs every case against one seed .om) gives a fresh copy of that model
    instead of parsing its MODEL_DEF again (~50 ms).  Any other file (every `om` case is a
    different mutated file) is loaded as before."""
    import copy
    import dataclasses
    import hashlib

    from compiler.backend import offline_model
    from compiler.ir.diagnostics import SourceMap

    original = getattr(offline_model.load_offline_model, "original", offline_model.load_offline_model)
    with open(path, "rb") as f:
        _PRELOADED[hashlib.sha256(f.read()).hexdigest()] = original(path)

    def load_offline_model(p: str):
        try:
            with open(p, "rb") as f:
                model = _PRELOADED.get(hashlib.sha256(f.read()).hexdigest())
        except OSError:
            model = None
        if model is None or model.gears is not None:
            return original(p)
        module = model.module.clone()
        source = None
        if model.source is not None:  # the copy's ops at the positions of the ones they copy
            source = SourceMap(f"{p}(MODEL_DEF)")
            for a, b in zip(model.module.walk(), module.walk(), strict=True):
                if id(a) in model.source.positions:
                    source.record(b, *model.source.positions[id(a)])
        return dataclasses.replace(model, path=p, module=module, source=source,
                                   **{k: copy.deepcopy(getattr(model, k))
                                      for k in ("manifest", "tiling", "plan", "weight_index")})

    load_offline_model.original = original
    offline_model.load_offline_model = load_offline_model
    return {"rc": 0, "stdout": "", "stderr": "", "cpu": 0.0}


def main() -> None:
    _cache_multiverse()
    reply = os.fdopen(int(sys.argv[1]), "w", buffering=1)
    for line in sys.stdin:
        req = json.loads(line)
        if "preload" in req:
            try:
                done = preload(req["preload"])
            except Exception as e:  # noqa: BLE001 - the cases then load the model themselves
                done = {"rc": 1, "stdout": "", "stderr": f"preload: {type(e).__name__}: {e}",
                        "cpu": 0.0}
            reply.write(json.dumps(done) + "\n")
        else:
            reply.write(json.dumps(run(req["tool"], req["argv"])) + "\n")


if __name__ == "__main__":
    main()
