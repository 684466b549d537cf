"""The fuzz harness: mutated inputs of five kinds, run through the tools, each outcome classified.

Kinds (each a hypothesis strategy drawing a seed input and a list of mutations):

* `graphdef`: structural mutations of GraphDefs (node op types, inputs and output indices,
  attributes, Const tensors, devices, duplicated / deleted / renamed nodes) -> `cann-translate
  --import-graphdef`, and for one case in four the import's output through `cann-opt` to kernels;
* `ir`: token mutations of tf-, cann- and kernel-level textual IR -> `cann-opt` (parse and
  verify, and a pass pipeline for its level) or `cann-run`;
* `rules`: token / line / byte mutations of fusion rule files and switch files (text and
  JSON) -> `cann-opt --tf-to-cann --fuse`;
* `om`: a compiled `.om` with one section mutated (JSON sections structurally, MODEL_DEF by
  tokens, WEIGHTS by bytes) and resealed with valid checksums -> `cann-run`;
* `npy`: `.npy` inputs with mutated headers (shape, dtype, order, version, header length) and
  data sizes -> `cann-run model.om --input x=...` (the worker keeps that one seed .om parsed);
* `compile`: `cann-compile` itself: a seed GraphDef (structurally mutated in one case of three)
  with 1-4 ATC options whose values are valid, near misses or token-mutated (`--input_shape`,
  `--out_nodes`, `--precision_mode`, `--output_type`, `--log`, `--soc_version`,
  `--input_format`, `--framework`, and `--keep_dtype` / `--customize_dtypes` cfg files, some
  missing, a directory or not UTF-8).

An outcome is one of: ok (exit 0), error (exit 1, every diagnostic one line naming one of the
case's files), and the defects counted in the table: internal error (a line `internal error` or
an exception escaping the tool), crash (the worker process died: segfault, abort), hang (no
answer within the per-case timeout), message without file name (an error line that does not
start with one of the case's input files), multi-line (a line that is not a diagnostic), output
left behind (an -o file written although the exit code is 1), nondeterministic (one case in
`determinism_every`, default 20, runs twice: exit code, stdout, stderr and output bytes must be
the same, wall-clock durations and `--log` time stamps aside).  An error about an option's
value may name the option (`cann-compile: error: --out_nodes=...`) instead of a file; `--log`
lines (ATC's format) are one line each.  Defective cases are saved under the run directory for
inspection.

Cost: the worker process imports TensorFlow and xDSL once and looks xDSL's entry points up once;
per case, a kind costs what its tool's work costs (`python -m tests.fuzz` prints, per kind, the
wall time and the CPU time of the tools and of this process).
"""

from __future__ import annotations

import json
import os
import random
import re
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import strategies as st

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")
KINDS = ("graphdef", "ir", "rules", "om", "npy", "compile")
DEFECTS = ("internal error", "crash", "hang", "message without file name", "multi-line",
           "output left", "nondeterministic")


# --- running cases in a worker process ------------------------------------------------------

class Worker:
    """A persistent `tests.fuzz.worker` process; restarted after a crash or a hang."""

    def __init__(self, env: dict[str, str] | None = None):
        self.env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **(env or {})}
        self.proc: subprocess.Popen | None = None
        self.preloaded: list[str] = []

    def preload(self, path: str) -> None:
        """Have the worker (and every worker started after a crash) keep the offline model
        `path` parsed: a file with its bytes loads as a copy of it (see `worker.preload`)."""
        self.preloaded.append(path)
        if self.proc is not None:
            _must(self._request({"preload": path}, 600), f"preload of {path}")

    def start(self) -> None:
        r, w = os.pipe()
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.fuzz.worker", str(w)],
                                     cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, pass_fds=(w,), env=self.env,
                                     text=True)
        os.close(w)
        self.reply = os.fdopen(r, "r")
        for path in self.preloaded:  # after a crash: a failure here only costs time
            self._request({"preload": path}, 600)
            if self.proc is None:  # the worker died preloading: start one without
                self.preloaded = []
                self.start()
                return

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.reply.close()
            self.proc = None

    def run(self, tool: str, argv: list[str], timeout: float) -> dict:
        """{"rc", "stdout", "stderr", "cpu"}, or {"crash": signal} / {"hang": True}."""
        if self.proc is None:
            self.start()
        return self._request({"tool": tool, "argv": argv}, timeout)

    def _request(self, request: dict, timeout: float) -> dict:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        ready, _, _ = select.select([self.reply], [], [], timeout)
        if not ready:
            self.stop()
            return {"hang": True}
        line = self.reply.readline()
        if not line:
            code = self.proc.wait()
            self.stop()
            return {"crash": code}
        return json.loads(line)


# --- classification -------------------------------------------------------------------------

#: A `--log` line, in ATC's format: `[INFO] COMPILE(pid,tool):2026-01-01-12:00:00.000.000 [file.py:12]...`
_LOG_LINE = re.compile(r"\[(DEBUG|INFO|WARNING|ERROR|EVENT)\] [A-Z]+\(\d+,[\w-]+\):[\d:.-]+ \[[\w.]+:\d+\]")
_DIAGNOSTIC = re.compile(r": (error|warning|note): |^note: |^\S+: warning: ")


def _names_input(line: str, files: list[str], options: list[str]) -> bool:
    """An error line names one of the case's files, or (a bad option value) starts
    `tool: error: ` and names one of the case's options."""
    if any(line.startswith(f) for f in files):
        return True
    head, sep, rest = line.partition(": error: ")
    return bool(sep) and " " not in head and any(
        re.search(rf"(^|[\s/(]){re.escape(o)}([=:/\s)]|$)", rest) for o in options)


def classify(result: dict, files: list[str], output: str | None,
             options: list[str] = ()) -> list[str]:
    """The defects of one case's result (empty: the contract holds)."""
    if result.get("hang"):
        return ["hang"]
    if "crash" in result:
        return ["crash"]
    defects = []
    err = result["stderr"]
    if "internal error" in err or "Traceback" in err or result["rc"] not in (0, 1):
        defects.append("internal error")
    lines = [ln for ln in err.splitlines() if ln.strip() and not _LOG_LINE.match(ln)]
    errors = [ln for ln in lines if ": error: " in ln]
    if result["rc"] == 1:
        if not errors:
            defects.append("message without file name")
        elif any(not _names_input(ln, files, list(options)) for ln in errors):
            defects.append("message without file name")
        if output and os.path.exists(output):
            defects.append("output left")
    if any(not _DIAGNOSTIC.search(ln) and not ln.startswith("  ") for ln in lines):
        defects.append("multi-line")
    return sorted(set(defects) - {"message without file name"} if "internal error" in defects
                  else set(defects))


# --- mutations --------------------------------------------------------------------------------

INTERESTING_INTS = [0, 1, -1, 2, 3, 7, 255, 256, 65535, 2**31 - 1, 2**31, 2**32, 2**40, 2**63 - 1,
                    2**63, 2**64, -(2**31), -(2**63), 10**9, 3 * 10**9]
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[%@#^]?[A-Za-z_][\w.$-]*|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?'
                   r"|\s+|.", re.S)


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


@st.composite
def token_mutation(draw, text: str, max_mutations: int = 3) -> str:
    """A text with 1..max_mutations token edits (delete, duplicate, swap, replace a number with
    an interesting one, replace a word by another word of the text, insert punctuation, cut a
    string literal open, truncate)."""
    toks = tokens(text)
    words = [t for t in toks if re.match(r"[%@#^]?[A-Za-z_]", t)] or ["x"]
    for _ in range(draw(st.integers(1, max_mutations))):
        if not toks:
            break
        i = draw(st.integers(0, len(toks) - 1))
        how = draw(st.sampled_from(["delete", "duplicate", "swap", "number", "word", "punct",
                                    "unterminated", "truncate", "bytes"]))
        if how == "delete":
            del toks[i]
        elif how == "duplicate":
            toks.insert(i, toks[i])
        elif how == "swap":
            j = draw(st.integers(0, len(toks) - 1))
            toks[i], toks[j] = toks[j], toks[i]
        elif how == "number":
            nums = [k for k, t in enumerate(toks) if re.match(r"-?\d", t)] or [i]
            k = draw(st.sampled_from(nums))
            toks[k] = str(draw(st.sampled_from(INTERESTING_INTS + ["1.0e400", "-0.0", "nan",
                                                                   "0x1F", "1e-50"])))
        elif how == "word":
            toks[i] = draw(st.sampled_from(words))
        elif how == "punct":
            toks.insert(i, draw(st.sampled_from(list("(){}[]<>:,=%@#^\"!*?-") + ["->", "..."])))
        elif how == "unterminated":
            strs = [k for k, t in enumerate(toks) if t.startswith('"')] or [i]
            k = draw(st.sampled_from(strs))
            toks[k] = '"' + "a" * draw(st.integers(20, 60))
        elif how == "truncate":
            toks = toks[:i]
        else:
            toks.insert(i, draw(st.sampled_from(["\x00", "\xe9", "\ufffd", "\t", "\r"])))
    return "".join(toks)


def _graphdef(text: str):
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2

    g = graph_pb2.GraphDef()
    text_format.Parse(text, g)
    return g


@st.composite
def graphdef_mutation(draw, text: str) -> str:
    """A GraphDef (text format) with 1-3 structural mutations."""
    from google.protobuf import text_format
    from tensorflow.core.framework import types_pb2

    g = _graphdef(text)
    ops = ["Identity", "Relu", "AddV2", "Switch", "Merge", "Enter", "Exit", "NextIteration",
           "Const", "Placeholder", "ConcatV2", "Reshape", "Conv2D", "MatMul", "Sum", "Split",
           "IdentityN", "NoOp", "FooBarOp", "}igmoid", ""]
    dtypes = [types_pb2.DT_FLOAT, types_pb2.DT_INT32, types_pb2.DT_INT64, types_pb2.DT_STRING,
              types_pb2.DT_BOOL, types_pb2.DT_HALF, types_pb2.DT_COMPLEX64, types_pb2.DT_RESOURCE,
              types_pb2.DT_VARIANT, 0, 99]
    for _ in range(draw(st.integers(1, 3))):
        nodes = g.node
        if not nodes:
            break
        n = nodes[draw(st.integers(0, len(nodes) - 1))]
        names = [m.name for m in nodes]
        how = draw(st.sampled_from(["op", "drop_input", "add_input", "index", "control", "rename",
                                    "delete", "duplicate", "attr_drop", "attr_type", "attr_int",
                                    "attr_str", "const_dtype", "const_shape", "const_content",
                                    "device", "shape", "swap_inputs"]))
        if how == "op":
            n.op = draw(st.sampled_from(ops))
        elif how == "drop_input" and n.input:
            del n.input[draw(st.integers(0, len(n.input) - 1))]
        elif how == "add_input":
            n.input.append(draw(st.sampled_from(names + ["missing"])))
        elif how == "index":
            src = draw(st.sampled_from(names))
            n.input.append(f"{src}:{draw(st.sampled_from([1, 2, 7, 2**31, 2**32, 10**20]))}")
        elif how == "control":
            n.input.insert(0, "^" + draw(st.sampled_from(names)))
        elif how == "rename":
            n.name = draw(st.sampled_from(names + ["", "a b", "x:1", "^y", "/", "ü"]))
        elif how == "delete":
            nodes.remove(n)
        elif how == "duplicate":
            nodes.add().CopyFrom(n)
        elif how == "attr_drop" and n.attr:
            del n.attr[draw(st.sampled_from(sorted(n.attr)))]
        elif how == "attr_type" and n.attr:
            key = draw(st.sampled_from(sorted(n.attr)))
            n.attr[key].Clear()
            n.attr[key].type = draw(st.sampled_from(dtypes))
        elif how == "attr_int" and n.attr:
            key = draw(st.sampled_from(sorted(n.attr)))
            n.attr[key].Clear()
            n.attr[key].i = draw(st.sampled_from(INTERESTING_INTS[:14]))
        elif how == "attr_str":
            key = draw(st.sampled_from(sorted(n.attr) + ["data_format", "padding", "T"]))
            n.attr[key].Clear()
            n.attr[key].s = draw(st.sampled_from([b"", b"NHWC", b"\xff\xfe", b"SAME", b"x" * 50]))
        elif how == "const_dtype" and "value" in n.attr:
            n.attr["value"].tensor.dtype = draw(st.sampled_from(dtypes))
        elif how == "const_shape" and "value" in n.attr:
            shape = n.attr["value"].tensor.tensor_shape
            shape.Clear()
            for d in draw(st.lists(st.sampled_from([0, 1, 2, 3, -1, 2**20, 2**40]), max_size=4)):
                shape.dim.add().size = d
        elif how == "const_content" and "value" in n.attr:
            t = n.attr["value"].tensor
            t.tensor_content = draw(st.binary(max_size=40))
        elif how == "device":
            n.device = draw(st.sampled_from(["garbage", "/device:CPU:0", "/job:a/task:x", "/gpu:99",
                                             ""]))
        elif how == "shape" and "shape" in n.attr:
            s = n.attr["shape"].shape
            s.Clear()
            for d in draw(st.lists(st.sampled_from([0, 1, 2, 8, -1, 2**31]), max_size=5)):
                s.dim.add().size = d
        elif how == "swap_inputs" and len(n.input) > 1:
            n.input[0], n.input[-1] = n.input[-1], n.input[0]
    return text_format.MessageToString(g)


@st.composite
def json_mutation(draw, value):
    """A JSON value with one structural edit somewhere inside."""
    paths = []

    def walk(v, path):
        paths.append(path)
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, path + [k])
        elif isinstance(v, list):
            for k, x in enumerate(v[:8]):
                walk(x, path + [k])

    walk(value, [])
    path = draw(st.sampled_from(paths))
    new = draw(st.sampled_from(["x", 5, -4, None, [], {}, True, 2**62, 1.5, "\n", [1, 2]]))
    how = draw(st.sampled_from(["replace", "delete", "add"]))
    if not path:
        return new
    parent = value
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    if how == "delete":
        del parent[key]
    elif how == "add" and isinstance(parent, dict):
        parent[str(draw(st.sampled_from(["extra", "offset", "position", "arena"])))] = new
    else:
        parent[key] = new
    return value


# --- the kinds --------------------------------------------------------------------------------

@dataclass
class Case:
    tool: str
    argv: list[str]
    files: list[str]  # the inputs a diagnostic may name
    output: str | None = None
    then: Case | None = None  # a follow-up run when this one succeeds
    options: list[str] = field(default_factory=list)  # options a diagnostic may name instead


@dataclass
class Kind:
    name: str
    strategy: Callable[[Corpus], st.SearchStrategy]


class Corpus:
    """Seed inputs, built once per run in `workdir` (IR at each level, a compiled .om)."""

    def __init__(self, workdir: str, worker: Worker):
        self.workdir = workdir
        os.makedirs(workdir, exist_ok=True)
        self.graphdefs = {name: _read(path) for name, path in [
            ("small.pbtxt", os.path.join(SEEDS, "small.pbtxt")),
            ("conv_block.pbtxt", os.path.join(REPO, "examples", "conv_block.pbtxt")),
            ("tf1_control_flow.pbtxt",
             os.path.join(REPO, "tests", "filecheck", "tools", "Inputs", "tf1_control_flow.pbtxt")),
        ]}
        small = os.path.join(SEEDS, "small.pbtxt")
        self.om = os.path.join(workdir, "small.om")
        levels = {"tf": [], "cann": ["--tf-to-cann", "--fuse"],
                  "kernel": ["--tf-to-cann", "--fuse", "--assign-layouts", "--cann-to-kernel"]}
        self.ir: dict[str, str] = {}
        for level, passes in levels.items():
            out = os.path.join(workdir, f"small.{level}.mlir")
            _must(worker.run("cann-opt", [*passes, small, "-o", out], 600), f"seed {level} IR")
            self.ir[level] = _read(out)
        _must(worker.run("cann-compile", [f"--model={small}", "--framework=3",
                                          "--soc_version=Ascend910B3",
                                          f"--output={self.om[:-3]}"], 600), "seed .om")
        with open(self.om, "rb") as f:
            self.om_bytes = f.read()
        worker.preload(self.om)  # the npy kind's cases all run this one model
        # warm the worker up (xDSL's interpreters): the first case of a kind must not pay the
        # imports against its timeout
        for seed in (self.om, os.path.join(workdir, "small.kernel.mlir")):
            _must(worker.run("cann-run", [seed], 600), f"run of the seed {seed}")
        self.rules = _read(os.path.join(REPO, "compiler", "transforms", "fusion", "rules", "00_conv.rules"))
        self.switch_text = "TbeConv2DReluFusion:off\nAABiasaddConvFusion:on\n# comment\n"
        self.switch_json = json.dumps({"Switch": {"GraphFusion": {"ALL": "on",
                                                                  "TbeConv2DReluFusion": "off"},
                                                  "UBFusion": {"ALL": "off"}}}, indent=1)
        self.n = 0

    def path(self, suffix: str) -> str:
        self.n += 1
        return os.path.join(self.workdir, f"case{self.n}{suffix}")


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _must(result: dict, what: str) -> None:
    if result.get("rc") != 0:
        raise RuntimeError(f"fuzz harness: cannot build the {what}: {result}")


def _write(path: str, data: str | bytes) -> str:
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    return path


def graphdef_cases(c: Corpus) -> st.SearchStrategy:
    @st.composite
    def case(draw):
        name = draw(st.sampled_from(sorted(c.graphdefs)))
        text = draw(graphdef_mutation(c.graphdefs[name]))
        src = _write(c.path(".pbtxt"), text)
        out = src[:-6] + ".mlir"
        follow = None
        if draw(st.integers(0, 3)) == 0:
            follow = Case("cann-opt", ["--tf-to-cann", "--fuse", "--assign-layouts",
                                       "--cann-to-kernel", "--plan-memory", out, "-o",
                                       out + ".k.mlir"], [out], out + ".k.mlir")
        return Case("cann-translate", ["--import-graphdef", src, "-o", out], [src], out, follow)
    return case()


def ir_cases(c: Corpus) -> st.SearchStrategy:
    pipelines = {"tf": [["--tf-to-cann"], []],
                 "cann": [["--fuse", "--assign-layouts", "--cann-to-kernel"], ["--cse", "--dce"]],
                 "kernel": [["--plan-memory"], []]}

    @st.composite
    def case(draw):
        level = draw(st.sampled_from(sorted(c.ir)))
        text = draw(token_mutation(c.ir[level]))
        src = _write(c.path(f".{level}.mlir"), text)
        if level == "kernel" and draw(st.integers(0, 3)) == 0:
            return Case("cann-run", [src], [src])
        out = src + ".out"
        passes = draw(st.sampled_from(pipelines[level]))
        return Case("cann-opt", [*passes, src, "-o", out], [src], out)
    return case()


def rules_cases(c: Corpus) -> st.SearchStrategy:
    @st.composite
    def case(draw):
        model_path = os.path.join(c.workdir, "small.tf.mlir")
        which = draw(st.sampled_from(["rules", "switch_text", "switch_json"]))
        base = {"rules": c.rules, "switch_text": c.switch_text, "switch_json": c.switch_json}[which]
        text = draw(token_mutation(base))
        if draw(st.integers(0, 9)) == 0:
            text = text.encode("utf-8", "surrogatepass")[:-1] + b"\xe9"
        suffix = ".rules" if which == "rules" else (".json" if which == "switch_json" else ".cfg")
        src = _write(c.path(suffix), text)
        out = src + ".out"
        opt = f"--fuse=rules={src}" if which == "rules" else "--fuse"
        extra = [] if which == "rules" else [f"--fusion-switch-file={src}"]
        return Case("cann-opt", ["--tf-to-cann", opt, *extra, model_path, "-o", out],
                    [src, model_path], out)
    return case()


def reseal(data: bytes, sections: dict[int, bytes]) -> bytes:
    """A .om with some sections replaced, laid out again, with valid checksums."""
    import hashlib
    import struct
    import zlib

    from compiler.backend import offline_model as om

    head = om._HEAD.unpack_from(data, 0)
    n = head[3]
    table, order = [], []
    for i in range(n):
        kind, flags, off, size = om._SECTION.unpack_from(data, om.HEADER_SIZE + i * om._SECTION.size)
        order.append((kind, flags, sections.get(kind, data[off:off + size])))
    table_end = om.HEADER_SIZE + om._SECTION.size * n
    offset = om._align(table_end, om.SECTION_ALIGN)
    body = b""
    for kind, flags, blob in order:
        table.append(om._SECTION.pack(kind, flags, offset, len(blob)))
        pad = om._align(offset + len(blob), om.SECTION_ALIGN) - (offset + len(blob))
        body += blob + bytes(pad)
        offset += len(blob) + pad
    payload = b"".join(table) + bytes(om._align(table_end, om.SECTION_ALIGN) - table_end) + body
    fields = list(head)
    fields[4] = len(payload)
    header = om._HEAD.pack(*fields[:5], hashlib.sha256(payload).digest(), *fields[6:])
    header = header.ljust(252, b"\0")
    header += struct.pack("<I", zlib.crc32(header))
    return header + payload


def om_cases(c: Corpus) -> st.SearchStrategy:
    from compiler.backend import offline_model as om

    header = om.parse_header(c.om_bytes, c.om)
    secs = {k: bytes(v) for k, v in om.read_sections(c.om_bytes, header, c.om).items()}

    @st.composite
    def case(draw):
        kind = draw(st.sampled_from(sorted(secs)))
        blob = secs[kind]
        if kind == om.MODEL_DEF:
            new = draw(token_mutation(blob.decode("utf-8"))).encode("utf-8", "surrogatepass")
        elif kind == om.WEIGHTS:
            b = bytearray(blob)
            for _ in range(draw(st.integers(1, 4))):
                if b:
                    b[draw(st.integers(0, len(b) - 1))] = draw(st.integers(0, 255))
            new = bytes(b[:draw(st.integers(0, len(b)))]) if draw(st.booleans()) else bytes(b)
        else:
            new = json.dumps(draw(json_mutation(json.loads(blob)))).encode()
        src = _write(c.path(".om"), reseal(c.om_bytes, {kind: new}))
        return Case("cann-run", [src], [src])
    return case()


def npy_cases(c: Corpus) -> st.SearchStrategy:
    import numpy as np

    @st.composite
    def case(draw):
        shape = draw(st.sampled_from(["(2, 8)", "(2, 8, 1)", "(8, 2)", "(1099511627776,)", "(-1, 8)",
                                      "(2,)", "()", "(2, 8", "(2**40, 8)", "(0, 8)"]))
        descr = draw(st.sampled_from(["<f4", "<f8", "<i4", "|b1", "|O", "<c16", "<U3", "xyz",
                                      "|V8", ">f4"]))
        order = draw(st.sampled_from(["False", "True", "'x'"]))
        header = "{" + f"'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, " + "}"
        if draw(st.integers(0, 5)) == 0:
            header = draw(token_mutation(header))
        hb = header.encode("latin-1", "replace")
        hb += b" " * (63 - (len(hb) + 10) % 64) + b"\n"
        version = draw(st.sampled_from([(1, 0), (2, 0), (3, 0), (9, 9)]))
        if version[0] == 1:
            prefix = bytes(version) + len(hb).to_bytes(2, "little")
        else:
            prefix = bytes(version) + len(hb).to_bytes(4, "little")
        if draw(st.integers(0, 7)) == 0:
            prefix = prefix[:2] + draw(st.binary(min_size=2, max_size=4))
        data = np.arange(16, dtype=np.float32).tobytes()
        data = data[:draw(st.integers(0, len(data) + 8))] if draw(st.booleans()) else data
        src = _write(c.path(".npy"), b"\x93NUMPY" + prefix + hb + data)
        return Case("cann-run", [c.om, "--input", f"x={src}"], [src, c.om])
    return case()


#: Values of cann-compile's options for the `compile` kind: valid ones (for the seed graphs'
#: node names) and near misses.  A cfg-file option's values are file contents.
COMPILE_OPTIONS: dict[str, list[str]] = {
    "input_shape": ["x:2,8", "x:1,8", "x:4,8", "x:1,8,8,3", "x:2,8;x:2,8", "x:-1,8", "x:?,8",
                    "x:1~4,8", "x:0,8", "x:2,a", "x:", ":2,8", "x:2,8,1", "x:99999999999,8",
                    "x:2;8", "y:2,8", "x : 2 , 8", "x:2,8;", ";", "", "x:2,,8", "x:+2,8",
                    "x:2.5,8", "x:٣,8", "x:2,8;y", "conv1/Conv2D:1,8", "x:1,4,4,3"],
    "out_nodes": ["output:0", "sum:0", "relu:0", "mul:0;sum:0", "output:1", "output:-1",
                  "output:abc", "output", "nope:0", "", ";", "output:0;output:0", ":0",
                  "x:0", "conv1/Relu:0", "output:99999999999999999999", "axis:0", "scale:0"],
    "precision_mode": ["force_fp16", "allow_fp32_to_fp16", "allow_mix_precision",
                       "must_keep_origin_dtype", "force_fp32", "bogus", "", "FORCE_FP16"],
    "output_type": ["FP16", "FP32", "INT8", "UINT8", "INT32", "fp16", "FP99", "", "output:0:FP16",
                    "output:0:FP99", "nope:0:FP16", "output:FP16", "output:x:FP16",
                    "sum:0:FP32;output:0:FP16", ":0:FP16", "output:0:", ";"],
    "log": ["debug", "info", "warning", "error", "null", "loud", "", "INFO"],
    "soc_version": ["Ascend910B3", "Ascend910A", "Ascend310P3", "Ascend910B1", "Ascend9999",
                    "", "ascend910b3"],
    "input_format": ["NHWC", "NCHW", "ND", "NC1HWC0", ""],
    "framework": ["3", "5", "0", "x", ""],
    "keep_dtype": ["relu\n", "OpType::Relu\n", "OpType::ReduceSumD\nmul\n", "# only a comment\n",
                   "nope\n", "OpType::\n", "OpType::Nope\n", "relu\nrelu\n", "", "\x00\n",
                   "output\n", "conv1/Relu\n"],
    "customize_dtypes": ["relu::InputDtype:float16,OutputDtype:float16\n",
                         "OpType::Relu:InputDtype:float16,OutputDtype:float16\n",
                         "mul::InputDtype:float32\n", "relu::InputDtype:float16,OutputDtype:float32\n",
                         "relu::InputDtype:int8\n", "relu::\n", "relu\n", "::InputDtype:float16\n",
                         "OpType::Nope:InputDtype:float16\n", "nope::OutputDtype:float16\n",
                         "OpType::Relu\n", "relu::InputDtype:,OutputDtype:\n", ""],
}
_CFG_OPTIONS = ("keep_dtype", "customize_dtypes")


def compile_cases(c: Corpus) -> st.SearchStrategy:
    """cann-compile itself: a seed graph (mutated in one case of three) with 1-4 options whose
    values are drawn from COMPILE_OPTIONS (token-mutated in one of six); a cfg option's file is
    sometimes missing, a directory or not UTF-8."""
    seeds = ["small.pbtxt", "conv_block.pbtxt"]

    @st.composite
    def case(draw):
        name = draw(st.sampled_from(seeds))
        text = c.graphdefs[name]
        if draw(st.integers(0, 2)) == 0:
            text = draw(graphdef_mutation(text))
        model = _write(c.path(".pbtxt"), text)
        out = c.path("")
        argv = [f"--model={model}", f"--output={out}"]
        files, options = [model], []
        fixed = {"framework": "3", "soc_version": "Ascend910B3"}
        for opt in draw(st.lists(st.sampled_from(sorted(COMPILE_OPTIONS)), min_size=1, max_size=4,
                                 unique=True)):
            value = draw(st.sampled_from(COMPILE_OPTIONS[opt]))
            if draw(st.integers(0, 5)) == 0:
                value = draw(token_mutation(value)) if value else value
            fixed.pop(opt, None)
            if opt in _CFG_OPTIONS:
                where = draw(st.sampled_from(["file"] * 6 + ["missing", "directory", "latin-1"]))
                path = c.path(".cfg")
                if where == "file":
                    _write(path, value)
                elif where == "directory":
                    os.makedirs(path)
                elif where == "latin-1":
                    _write(path, value.encode("utf-8", "surrogatepass") + b"\xe9\xff\n")
                files.append(path)
                value = path
            options.append(f"--{opt}")
            argv.append(f"--{opt}={value}")
        argv += [f"--{k}={v}" for k, v in fixed.items()]
        return Case("cann-compile", argv, files, out + ".om", options=options)
    return case()


STRATEGIES = {"graphdef": graphdef_cases, "ir": ir_cases, "rules": rules_cases, "om": om_cases,
              "npy": npy_cases, "compile": compile_cases}


# --- a run --------------------------------------------------------------------------------------

@dataclass
class Stats:
    cases: int = 0
    defects: dict[str, int] = field(default_factory=lambda: {d: 0 for d in DEFECTS})
    examples: dict[str, list[str]] = field(default_factory=dict)
    seconds: float = 0.0  # wall time of the kind (drawing, writing and running its cases)
    tool_seconds: float = 0.0  # of which the worker spent running the tools
    cpu_seconds: float = 0.0  # the CPU time the worker spent in the tools
    harness_cpu_seconds: float = 0.0  # the CPU time of this process (drawing, writing, checking)
    checked_twice: int = 0  # cases run a second time for the determinism check
    ok: int = 0  # cases whose every step exited 0 (the others: exit 1 with a diagnostic, or a defect)


def _execute(worker: Worker, case: Case, timeout: float, stats: Stats):
    """Run a case (and its follow-up when the first step succeeds): the step that decided the
    outcome, its result and defects, and what the run produced (every step's exit code, stdout,
    stderr and output file bytes) for the determinism check."""
    result = worker.run(case.tool, case.argv, timeout)
    stats.cpu_seconds += result.get("cpu", 0.0)
    defects = classify(result, case.files, case.output, case.options)
    trace = [_produced(result, case)]
    if not defects and case.then is not None and result.get("rc") == 0:
        case = case.then
        result = worker.run(case.tool, case.argv, timeout)
        stats.cpu_seconds += result.get("cpu", 0.0)
        defects = classify(result, case.files, case.output, case.options)
        trace.append(_produced(result, case))
    return case, result, defects, trace


#: What may differ between two runs of one case: wall-clock durations ("compiled in 1.23 s",
#: "pass fuse: 0.4488 s") and the time stamp and process id of a `--log` line (ATC's format).
_VOLATILE = re.compile(r"\b\d+(?:\.\d+)? (?:s|ms|µs)\b|\(\d+,([\w-]+)\):\d{4}-\d\d-\d\d-[\d:.]+ ")


def _produced(result: dict, case: Case) -> tuple:
    outputs = []
    for path in filter(None, [case.output]):
        if os.path.exists(path):
            with open(path, "rb") as f:
                outputs.append((path, f.read()))
    return (result.get("rc"), result.get("crash"), result.get("hang"),
            _VOLATILE.sub("<t>", result.get("stdout", "")),
            _VOLATILE.sub("<t>", result.get("stderr", "")), outputs)


def _remove_outputs(case: Case | None) -> None:
    while case is not None:
        if case.output and os.path.isfile(case.output):
            os.unlink(case.output)
        case = case.then


def run_case(worker: Worker, case: Case, timeout: float, stats: Stats, keep: str,
             check_determinism: bool = False) -> None:
    stats.cases += 1
    t0 = time.monotonic()
    first = case
    case, result, defects, trace = _execute(worker, first, timeout, stats)
    stats.ok += result.get("rc") == 0 and (case.then is None or case is not first)
    if check_determinism and not {"crash", "hang"} & set(defects):
        stats.checked_twice += 1
        _remove_outputs(first)
        _, again, _, trace2 = _execute(worker, first, timeout, stats)
        if trace2 != trace:
            defects = sorted({*defects, "nondeterministic"})
            result = {**result, "second run": again}
    stats.tool_seconds += time.monotonic() - t0
    for d in defects:
        stats.defects[d] += 1
        saved = stats.examples.setdefault(d, [])
        if len(saved) < 20:
            dest = os.path.join(keep, d.replace(" ", "-"), str(stats.cases))
            os.makedirs(dest, exist_ok=True)
            for f in case.files:
                if os.path.exists(f):
                    shutil.copy(f, dest)
            with open(os.path.join(dest, "result.json"), "w") as out:
                json.dump({"tool": case.tool, "argv": case.argv, **result}, out, indent=1)
            saved.append(dest)
    for f in os.listdir(os.path.dirname(case.files[0])):  # keep the work directory small
        if f.startswith("case"):
            f = os.path.join(os.path.dirname(case.files[0]), f)
            shutil.rmtree(f) if os.path.isdir(f) else os.unlink(f)


class _Done(Exception):
    """The run's time is up (hypothesis stops at the first exception)."""


def fuzz(kinds: list[str], cases_per_kind: int | None, seconds_per_kind: float | None,
         seed: int, workdir: str, timeout: float = 20.0,
         progress: Callable[[str], None] = lambda s: None,
         determinism_every: int = 20, seconds_total: float | None = None) -> dict[str, Stats]:
    """Run each kind for `cases_per_kind` cases or `seconds_per_kind` seconds (whichever comes
    first); with `seconds_total`, each kind gets an equal share of the time left when it
    starts (a kind that finishes its cases early leaves its time to the others).  hypothesis
    draws the cases (fixed `seed`: the same cases every run).  One case in
    `determinism_every` (the first, then every n-th) runs twice: a difference in exit code,
    stdout, stderr or output bytes is the defect `nondeterministic`."""
    import warnings

    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis.errors import HypothesisDeprecationWarning, HypothesisWarning

    warnings.simplefilter("ignore", HypothesisWarning)  # TensorFlow's import seeds `random`
    warnings.simplefilter("ignore", HypothesisDeprecationWarning)

    worker = Worker()
    corpus = Corpus(os.path.join(workdir, "work"), worker)
    keep = os.path.join(workdir, "defects")
    results: dict[str, Stats] = {}
    end = time.monotonic() + seconds_total if seconds_total else None
    try:
        for i, kind in enumerate(kinds):
            stats = results[kind] = Stats()
            strategy = STRATEGIES[kind](corpus)
            deadline = time.monotonic() + seconds_per_kind if seconds_per_kind else None
            if end is not None:
                share = time.monotonic() + (end - time.monotonic()) / (len(kinds) - i)
                deadline = min(deadline, share) if deadline else share
            limit = cases_per_kind or 10**9

            @hseed(seed)
            @settings(max_examples=limit, deadline=None, database=None, phases=[Phase.generate],
                      suppress_health_check=list(HealthCheck))
            @given(strategy)
            def one(case: Case) -> None:
                if stats.cases >= limit or (deadline and time.monotonic() > deadline):
                    raise _Done
                run_case(worker, case, timeout, stats, keep,
                         check_determinism=stats.cases % determinism_every == 0)
                if stats.cases % 1000 == 0:
                    progress(f"{kind}: {stats.cases} cases so far, {stats.cpu_seconds:.0f} s of CPU, "
                             + ", ".join(f"{k} {v}" for k, v in stats.defects.items() if v))

            t0, cpu0 = time.monotonic(), time.process_time()
            try:
                one()
            except _Done:
                pass
            stats.seconds = time.monotonic() - t0
            stats.harness_cpu_seconds = time.process_time() - cpu0
            progress(f"{kind}: {stats.cases} cases in {stats.seconds:.0f} s "
                     f"({stats.tool_seconds:.0f} s in the tools; CPU: tools {stats.cpu_seconds:.0f} s, "
                     f"harness {stats.harness_cpu_seconds:.0f} s; "
                     f"{stats.checked_twice} run twice; {stats.ok} exit 0), "
                     + ", ".join(f"{k} {v}" for k, v in stats.defects.items() if v))
    finally:
        worker.stop()
    return results


def table(results: dict[str, Stats]) -> str:
    """The table of issue 14: per kind the cases, how many exited 0, how many ran twice (the
    determinism check), the defects, and the CPU seconds of the tools and of the harness."""
    head = ["input kind", "cases", "exit 0", "run twice", *DEFECTS, "CPU s (tools + harness)"]
    rows = [head, ["---"] * len(head)]
    for kind, s in results.items():
        rows.append([kind, str(s.cases), str(s.ok), str(s.checked_twice),
                     *(str(s.defects[d]) for d in DEFECTS),
                     f"{s.cpu_seconds:.0f} + {s.harness_cpu_seconds:.0f}"])
    return "\n".join("| " + " | ".join(r) + " |" for r in rows)


def random_seed() -> int:
    return random.SystemRandom().randrange(2**31)
