"""The offline model file (.om): exact round trip, execution without TensorFlow, bad files."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

from compiler.backend import offline_model as om
from compiler.backend.memory_plan import plan_function
from compiler.interpreters.execute import random_inputs, run_module
from compiler.ir.entry import main_func
from compiler.ir.ir_io import load_module, make_context, module_to_text
from tools.driver.pipelines import LEVELS, run_passes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "conv_block.tf.mlir")


def _kernel_module(passes=LEVELS["kernel"]):
    module, _ = load_module(EXAMPLE)
    run_passes(make_context(), module, passes)
    plan_function(main_func(module))
    return module


@pytest.fixture(scope="module")
def kernel_module():
    return _kernel_module()


@pytest.fixture(scope="module")
def om_path(kernel_module, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("om") / "conv_block.om")
    om.write_offline_model(kernel_module, path)
    return path


def test_header(om_path):
    data = open(om_path, "rb").read()
    assert struct.unpack_from("<I", data, 0)[0] == 0x444F4D49
    h = om.parse_header(data, om_path)
    assert h.version == om.FORMAT_VERSION and h.name == "conv_block"
    # launches: the conv alone (its cube kernel loads the NHWC input converting it and stores
    # the NHWC output)
    assert h.platform == "Ascend910B3" and h.op_count == 1 and h.length == len(data) - 256


def test_round_trip_is_exact(kernel_module, om_path):
    model = om.load_offline_model(om_path)
    assert module_to_text(model.module) == module_to_text(kernel_module)
    assert model.manifest["inputs"][0]["name"] == "x"
    assert len(model.tiling) == 1 and all(s["op"].startswith("kernel.") for s in model.tiling)
    assert all("block_dim" in s and "tiling" in s for s in model.tiling)


def test_a_folded_weight_keeps_its_fused_location(tmp_path):
    """A constant folded from several nodes (BN into a conv's filter) has a fused location;
    the .om's weight index keeps every name, so the loaded module prints the same with
    locations (`debuginfo`) as the compiled one."""
    from xdsl.dialects.builtin import ArrayAttr, FusedLoc, NameLoc, NoneAttr, StringAttr

    from compiler.backend.memory_plan import is_constant

    module = _kernel_module()
    const = next(op for op in main_func(module).walk() if is_constant(op))
    const.location = FusedLoc(ArrayAttr([NameLoc(StringAttr(n), NoneAttr())
                                         for n in ("conv1/filter", "bn/mul", "bn/add")]), NoneAttr())
    path = str(tmp_path / "folded.om")
    om.write_offline_model(module, path)
    loaded = om.load_offline_model(path).module
    assert module_to_text(loaded, debuginfo=True) == module_to_text(module, debuginfo=True)


def _vector_chain():
    """Hand-made kernel IR: Relu chains planned in place, with workspaces."""
    from compiler.ir.ir_io import parse_module

    t = "tensor<1x1x8x8x16xf32>"
    tiling = ("#kernel.tiling<totalElems = 1024, elemsPerCore = 1024, tileElems = 1024, "
              "tilesPerCore = 1>")

    def vec(res, arg, ws=""):
        return (f'{res} = kernel.vector {arg} {{fn = "Relu", block_dim = 1 : i64, tiling = {tiling}, '
                f'buffers = [#kernel.buffer<UB, 8192, "io0">{ws}]}} : ({t}) -> {t}')

    chain = "\n".join([
        'builtin.module attributes {cann.soc_version = "Ascend910B3"} {',
        f"func.func @main(%arg0: {t}) -> {t} {{",
        vec("%0", "%arg0"), vec("%1", "%0", ', #kernel.buffer<GM, 3000, "ws">'),
        vec("%2", "%1"), vec("%3", "%2"), f"func.return %3 : {t}", "}", "}"])
    module, _ = parse_module(make_context(), chain, "chain.mlir")
    plan_function(main_func(module))
    return module


@pytest.mark.parametrize("which", ["conv_block", "vector_chain"])
def test_om_output_equals_kernel_ir_output(tmp_path, which):
    module = _kernel_module() if which == "conv_block" else _vector_chain()
    path = str(tmp_path / "m.om")
    om.write_offline_model(module, path)
    for seed in range(3):
        x = random_inputs(module, seed)
        want = run_module(module, x)
        got = om.run_offline_model(om.load_offline_model(path), x)
        assert want.keys() == got.keys()
        for k in want:
            assert got[k].dtype == want[k].dtype and np.array_equal(got[k], want[k])


def _cann_run(*args):
    return subprocess.run([sys.executable, "-m", "tools.cann_run", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def test_cann_run_om_without_tensorflow(om_path, tmp_path):
    x = np.random.default_rng(1).standard_normal((1, 8, 8, 3)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    code = (
        "import sys\n"
        "from tools.cann_run import main\n"
        f"rc = main([{om_path!r}, '--input', 'x={tmp_path / 'x.npy'}', "
        f"'--output-dir', {str(tmp_path / 'out')!r}])\n"
        "assert 'tensorflow' not in sys.modules, 'tensorflow was imported'\n"
        "sys.exit(rc)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    got = np.load(tmp_path / "out" / "output.npy")
    module, _ = load_module(EXAMPLE)
    run_passes(make_context(), module, LEVELS["kernel"])
    assert np.array_equal(got, run_module(module, {"x": x})["output"])


def test_cann_run_om_compare_with_tensorflow(om_path):
    r = _cann_run(om_path, "--compare-with", os.path.join(ROOT, "examples", "conv_block.pbtxt"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("output: max_abs=") and r.stdout.rstrip().endswith("OK")


def _with_header(data: bytes, **changes) -> bytes:
    """Rewrite header fields and fix the header CRC (so only the intended defect remains)."""
    head = bytearray(data[:256])
    for off, value in changes.items():
        struct.pack_into("<I", head, int(off[1:]), value)
    struct.pack_into("<I", head, 252, zlib.crc32(bytes(head[:252])))
    return bytes(head) + data[256:]


BAD_FILES = {
    "empty": (lambda d: b"", "truncated offline model: 0 bytes"),
    "short header": (lambda d: d[:100], "truncated offline model: 100 bytes"),
    "truncated payload": (lambda d: d[:-700], "truncated offline model"),
    "trailing bytes": (lambda d: d + b"xx", "bytes after the end"),
    "payload corrupted": (lambda d: d[:3000] + bytes([d[3000] ^ 0xFF]) + d[3001:],
                          "payload checksum mismatch"),
    "header corrupted": (lambda d: d[:60] + b"Z" + d[61:], "header checksum mismatch"),
    "wrong magic": (lambda d: b"ABCD" + d[4:], "not an offline model: magic"),
    "wrong version": (lambda d: _with_header(d, o8=7),
                      "unsupported offline model format version 7"),
    "text file": (lambda d: b"builtin.module {}\n" * 20, "not an offline model"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_is_one_clear_error(om_path, tmp_path, case):
    make, message = BAD_FILES[case]
    bad = tmp_path / "bad.om"
    bad.write_bytes(make(open(om_path, "rb").read()))
    with pytest.raises(om.OmError, match=message):
        om.load_offline_model(str(bad))
    r = _cann_run(str(bad))
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith(f"{bad}: error: ")


def test_missing_file(tmp_path):
    r = _cann_run(str(tmp_path / "nope.om"))
    assert r.returncode == 1 and r.stderr.strip() == f"{tmp_path / 'nope.om'}: error: no such file"


def test_section_disagreement_is_detected(om_path, tmp_path):
    """A TILING section that disagrees with the IR (valid checksums) is rejected."""
    import hashlib
    import json

    data = bytearray(open(om_path, "rb").read())
    h = om.parse_header(bytes(data), om_path)
    secs = om.read_sections(bytes(data), h, om_path)
    tiling = json.loads(bytes(secs[om.TILING]))
    tiling[0]["block_dim"] += 1
    new = json.dumps(tiling).encode()
    if len(new) > len(secs[om.TILING]):
        pytest.skip("no room to patch in place")
    start = bytes(data).index(bytes(secs[om.TILING]))
    data[start:start + len(secs[om.TILING])] = new.ljust(len(secs[om.TILING]))
    data[24:56] = hashlib.sha256(bytes(data[256:])).digest()
    struct.pack_into("<I", data, 252, zlib.crc32(bytes(data[:252])))
    bad = tmp_path / "tiling.om"
    bad.write_bytes(bytes(data))
    with pytest.raises(om.OmError, match="TILING of launch #0"):
        om.load_offline_model(str(bad))


def test_plan_alignment_of_zero_is_one_clear_error(om_path, tmp_path):
    """The IR's `mem.plan` alignment 0 (fuzz seed 18, .om kind) is a bad plan, not a division by zero."""
    import hashlib

    data = bytearray(open(om_path, "rb").read())
    h = om.parse_header(bytes(data), om_path)
    ir = bytes(om.read_sections(bytes(data), h, om_path)[om.MODEL_DEF])
    assert b"alignment = 512" in ir
    start = bytes(data).index(ir)
    data[start:start + len(ir)] = ir.replace(b"alignment = 512", b"alignment = 0  ")
    data[24:56] = hashlib.sha256(bytes(data[256:])).digest()
    struct.pack_into("<I", data, 252, zlib.crc32(bytes(data[:252])))
    bad = tmp_path / "align0.om"
    bad.write_bytes(bytes(data))
    r = _cann_run(str(bad))
    assert (r.returncode, r.stderr.strip()) == (
        1, f"{bad}: error: invalid memory plan: @main: 'mem.plan': alignment must be a power of two, got 0")


def test_a_location_shared_by_a_fused_location_round_trips(tmp_path):
    """One NameLoc object as an op's location and inside another op's fused location (a fusion
    names all the nodes it came from): the .om's printer writes `loc("...")` for the first (its
    attribute-text memo must not reuse the bare text printed inside `fused[...]`)."""
    from xdsl.dialects.builtin import ArrayAttr, FusedLoc, NoneAttr

    module = _kernel_module()
    ops = [o for o in main_func(module).walk() if o.name.startswith("kernel.")]  # the conv, its body
    shared = ops[1].location
    ops[0].location = FusedLoc(ArrayAttr([shared, ops[0].location]), NoneAttr())
    path = str(tmp_path / "fused_loc.om")
    om.write_offline_model(module, path)
    assert module_to_text(om.load_offline_model(path).module, debuginfo=True) == \
        module_to_text(module, debuginfo=True)


def test_the_om_printer_writes_xdsls_text_for_shared_locations():
    """The .om's memoizing printer writes exactly xDSL's text with every location: one NameLoc
    as the location of two ops (a memo hit at the top level), the same object first at the top
    and then inside another op's fused location, and one fused location on two ops."""
    from xdsl.dialects.builtin import ArrayAttr, FusedLoc, NoneAttr

    module = _kernel_module()
    fn = main_func(module)
    ops = [o for o in fn.walk() if o is not fn]  # the kernels and their bodies' ops
    assert len(ops) >= 4
    shared = ops[0].location
    ops[1].location = shared
    fused = FusedLoc(ArrayAttr([shared, ops[2].location]), NoneAttr())
    ops[2].location = fused
    ops[3].location = fused
    assert om._model_text(module) == module_to_text(module, debuginfo=True).encode()
