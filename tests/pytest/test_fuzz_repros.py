"""Regression tests: the minimal inputs of issue 14's fuzz findings (tests/pytest/fuzz_repros/,
copied from the issue's repro folder; one directory per defect).

Each bad input gets exactly the README's promise: exit code 1, every problem on one line naming
the file and the TF node or the IR line:col, no `internal error`, no output file left behind.
The tools run in this process (TensorFlow is imported once) except where the input used to
crash or exhaust the process: those run in a subprocess (with an address-space limit where the
defect was an allocation)."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time

import pytest

from tools.cann_compile import main as cann_compile
from tools.cann_opt import main as cann_opt
from tools.cann_run import main as cann_run
from tools.cann_translate import main as cann_translate

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPROS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_repros")
TF_EXAMPLE = os.path.join(REPO, "examples", "conv_block.tf.mlir")
PBTXT_EXAMPLE = os.path.join(REPO, "examples", "conv_block.pbtxt")
TOOLS = {"cann-opt": cann_opt, "cann-translate": cann_translate, "cann-run": cann_run,
         "cann-compile": cann_compile}


def repro(name: str, file: str) -> str:
    return os.path.join(REPROS, name, file)


def one_line_errors(err: str, expected: str, path: str, lines: int | None = 1) -> list[str]:
    """The checks every bad input gets: one line per problem, each naming `path`, the first
    matching `expected` (a regex) right after `path`."""
    errors = [ln for ln in err.splitlines() if ln.strip() and "warning:" not in ln]
    assert errors, err
    assert "internal error" not in err and "Traceback" not in err, err
    for ln in errors:
        assert ln.startswith(path), f"names no file: {ln}"
        assert ": error: " in ln, ln
    assert re.match(re.escape(path) + expected, errors[0]), errors[0]
    if lines is not None:
        assert len(errors) == lines, err
    return errors


def run_tool(tool: str, argv: list[str], capsys) -> tuple[int, str]:
    capsys.readouterr()
    rc = TOOLS[tool](argv)
    return rc, capsys.readouterr().err


def run_subprocess(tool: str, argv: list[str], limit_bytes: int | None = None,
                   timeout: float = 300) -> tuple[int, str]:
    def limit():
        if limit_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    module = {"cann-opt": "tools.cann_opt", "cann-translate": "tools.cann_translate",
              "cann-run": "tools.cann_run", "cann-compile": "tools.cann_compile"}[tool]
    p = subprocess.run([sys.executable, "-c", f"import sys; from {module} import main; "
                        "sys.exit(main(sys.argv[1:]))", *argv], cwd=REPO, capture_output=True,
                       text=True, timeout=timeout, preexec_fn=limit)
    return p.returncode, p.stderr


# --- GraphDefs -----------------------------------------------------------------------------------

GRAPHDEF_CASES = [
    ("gd-functionalize-bad-output-index", "nextiter_badindex.pbtxt",
     r": error: node 'while/NextIteration' \(NextIteration\): input 'while/add:7': 'while/add' "
     r"\(AddV2\) has only 1 output\(s\)$"),
    ("gd-functionalize-enter-arity", "enter_noinput.pbtxt",
     r": error: node 'while/Enter_1' \(Enter\): has 0 data input\(s\); Enter takes 1$"),
    ("gd-functionalize-nextiteration-arity", "nextiter_noinput.pbtxt",
     r": error: node 'while/NextIteration_1' \(NextIteration\): has 0 data input\(s\); "
     r"NextIteration takes 1$"),
    ("gd-functionalize-pred-identity", "ident0.pbtxt",
     r": error: node 'p' \(Identity\): has 0 data input\(s\); Identity takes 1$"),
    ("gd-functionalize-switch-arity", "switch1.pbtxt",
     r": error: node 's' \(Switch\): has 1 data input\(s\); Switch takes 2$"),
    ("gd-repeated-identical-line", "dup.pbtxt",
     r": error: node 'y' \(AddV2\): input 'm' names no node of the graph$"),
    ("gd-tf-message-without-node", "badconst.pbtxt",
     r": error: node 'shape' \(Const\): tensor_content has 2 bytes, the shape \[2\] of int32 "
     r"needs 8$"),
    ("gd-tf-message-without-node", "device.pbtxt",
     r": error: node 'x' \(Placeholder\): bad device 'garbage': "),
    ("gd-tf-message-without-node", "bad_utf8_attr.pbtxt",
     r": error: node 'conv1/Conv2D' \(Conv2D\): TensorFlow rejects it: 'utf-8' codec can't "
     r"decode byte 0xff"),
    ("gd-tf1-cycle-without-node", "tf1_cycle_sum.pbtxt",
     r": error: node 'Sum' \(Sum\): the graph has a cycle through this node$"),
]


@pytest.mark.parametrize("name, file, expected", GRAPHDEF_CASES,
                         ids=[f"{n}/{f}" for n, f, _ in GRAPHDEF_CASES])
def test_bad_graphdef_is_one_line_naming_the_node(name, file, expected, capsys, tmp_path):
    out = tmp_path / "m.mlir"
    path = repro(name, file)
    rc, err = run_tool("cann-translate", ["--import-graphdef", path, "-o", str(out)], capsys)
    assert rc == 1
    one_line_errors(err, expected, path)
    assert not out.exists()


@pytest.mark.parametrize("file", ["tf1_cycle.pbtxt", "cb_cycle.pbtxt"])
def test_placeholder_with_an_input_in_a_cycle(file, capsys, tmp_path):
    path = repro("gd-tf1-cycle-without-node", file)
    rc, err = run_tool("cann-translate", ["--import-graphdef", path, "-o", str(tmp_path / "m.mlir")],
                       capsys)
    assert rc == 1
    assert one_line_errors(err, r": error: node 'x' \(Placeholder\): ", path, lines=2) == [
        f"{path}: error: node 'x' (Placeholder): has 1 data input(s); Placeholder takes 0",
        f"{path}: error: node 'x' (Placeholder): the graph has a cycle through this node"]


@pytest.mark.parametrize("name, file, expected", [
    ("gd-abort-const-dtype", "abort.pbtxt",
     r": error: node 'axis' \(Const\): attribute 'dtype' is int32 but its value is a string tensor$"),
    ("gd-segv-output-index", "segv.pbtxt",
     r": error: node 'y' \(Identity\): input 'x:2147483648': output index 2147483648 is out of "
     r"range$"),
])
def test_graphdef_tensorflow_crashed_on_is_refused_before_tensorflow(name, file, expected, tmp_path):
    """These aborted / segfaulted inside TensorFlow's C++ graph import: checked before it."""
    out = tmp_path / "m.mlir"
    path = repro(name, file)
    rc, err = run_subprocess("cann-translate", ["--import-graphdef", path, "-o", str(out)])
    assert rc == 1, err
    one_line_errors(err, expected, path)
    assert not out.exists()


@pytest.mark.parametrize("name, file, node", [
    ("gd-unknown-op-unranked-legalization", "unknown_op.pbtxt", "conv1/Conv2D"),
    ("gd-unranked-legalization-rank", "m.pbtxt", "cat"),
])
def test_unranked_input_of_a_converter_is_one_line(name, file, node, capsys, tmp_path):
    path = repro(name, file)
    rc, err = run_tool("cann-compile", [f"--model={path}", "--framework=3",
                                        "--soc_version=Ascend910B3", f"--output={tmp_path}/m"],
                       capsys)
    assert rc == 1
    errors = one_line_errors(err, r": error: ", path, lines=None)
    assert any("input #0 has unknown rank (tensor<*x...>)" in ln and f"[node '{node}']" in ln
               for ln in errors), err
    assert not os.listdir(tmp_path)


def test_zero_size_reduction_is_refused_naming_the_node(capsys, tmp_path):
    path = repro("gd-zero-dim-reduction-zerodivision", "zero_dim_reduce.pbtxt")
    rc, err = run_tool("cann-compile", [f"--model={path}", "--framework=3",
                                        "--soc_version=Ascend910B3", f"--output={tmp_path}/z"],
                       capsys)
    assert rc == 1
    one_line_errors(err, r": error: cann.ReduceSumD: x of shape 2x3x0 has no elements; .* "
                         r"\[node 'Sum'\]$", path)
    assert not os.listdir(tmp_path)


def test_cond_without_output_shapes_compiles(capsys, tmp_path):
    """It used to be refused with the verifier's message over two lines."""
    path = repro("verify-message-two-lines", "cond_no_output_shapes.pbtxt")
    rc, err = run_tool("cann-compile", [f"--model={path}", "--framework=3",
                                        "--soc_version=Ascend910B3", f"--output={tmp_path}/c"],
                       capsys)
    assert rc == 0, err
    assert (tmp_path / "c.om").exists()


# --- textual IR ----------------------------------------------------------------------------------

IR_CASES = [
    ("mlir-complex-dense-assert", "v3.mlir", r":2:3: error: "),
    ("mlir-int-literal-out-of-range", "v1.mlir",
     r":2:3: error: Integer value 4294967296 is out of range for type i32"),
    ("mlir-parse-first-token", "pe2.mlir", r":1:1: error: "),
    ("mlir-self-use-accepted", "self_use.mlir",
     r":2:3: error: operand #0 of tf.Softplus is a result of itself: a value is used before its "
     r"definition \[node 'sp'\]$"),
    ("mlir-use-before-def", "ubd.mlir",
     r":2:3: error: operand #0 of cann.Relu is defined later \(cann.Relu\): a value is used "
     r"before its definition$"),
]


@pytest.mark.parametrize("name, file, expected", IR_CASES, ids=[n for n, _, _ in IR_CASES])
def test_bad_ir_is_one_line_with_line_col(name, file, expected, capsys, tmp_path):
    out = tmp_path / "out.mlir"
    path = repro(name, file)
    rc, err = run_tool("cann-opt", [path, "-o", str(out)], capsys)
    assert rc == 1
    one_line_errors(err, expected, path)
    assert not out.exists()


def test_use_before_def_is_refused_by_cann_run_too(capsys):
    path = repro("mlir-use-before-def", "ubd.mlir")
    rc, err = run_tool("cann-run", [path], capsys)
    assert rc == 1
    one_line_errors(err, r":2:3: error: operand #0 of cann.Relu is defined later", path)


def test_huge_splat_is_refused_before_allocating(tmp_path):
    path = repro("mlir-huge-splat-memoryerror", "v2.mlir")
    out = tmp_path / "out.mlir"
    rc, err = run_subprocess("cann-opt", [path, "-o", str(out)], limit_bytes=8_000_000_000)
    assert rc == 1, err
    one_line_errors(err, r":2:30: error: dense literal too large: a tensor of shape "
                         r"\[3x4294967296\] needs 51539607552 bytes", path)
    assert not out.exists()


def test_large_splat_within_the_byte_limit_is_refused_quickly(capsys):
    """4 GB of f32 is under the byte limit, but xDSL expands a splat into a Python list of 1e9
    floats (found by the fuzz smoke run: a hang)."""
    path = repro("mlir-huge-splat-memoryerror", "splat1e9.mlir")
    start = time.monotonic()
    rc, err = run_tool("cann-opt", [path], capsys)
    assert time.monotonic() - start < 10
    assert rc == 1
    one_line_errors(err, r":2:39: error: dense literal too large: 1000000000 elements written as "
                         r"a splat or a list \(at most 16777216", path)


@pytest.mark.parametrize("file", ["string26.mlir", "string40.mlir"])
def test_unterminated_string_literal_fails_at_once(file, capsys):
    path = repro("mlir-lexer-unterminated-string-hang", file)
    start = time.monotonic()
    rc, err = run_tool("cann-opt", [path], capsys)
    assert time.monotonic() - start < 10
    assert rc == 1
    one_line_errors(err, r":2:30: error: End of file reached before closing string literal\.$", path)


def test_string_literal_lexing_is_linear():
    """xDSL's pattern backtracks exponentially on an unterminated literal (26 characters took
    2.6 s); ours takes microseconds for 100,000."""
    from compiler.ir.diagnostics import CompileError
    from compiler.ir.ir_io import make_context, parse_module

    text = 'func.func @f() {\n  %0 = "tf.Const"() {value = "' + "a" * 100_000 + "\n}\n"
    start = time.monotonic()
    with pytest.raises(CompileError, match="End of file reached before closing string literal"):
        parse_module(make_context(), text, "long.mlir")
    assert time.monotonic() - start < 2


def test_verifier_message_and_op_dump_are_one_line(capsys, tmp_path):
    path = repro("mlir-isolated-from-above-multiline", "m.mlir")
    rc, err = run_tool("cann-opt", ["--cse", "--dce", path, "-o", str(tmp_path / "o.mlir")], capsys)
    assert rc == 1
    errors = one_line_errors(err, r":4:3: error: Operation using value defined out of its "
                                  r"IsolatedFromAbove parent$", path, lines=None)
    assert len(errors) == len(set(errors))


def test_does_not_verify_reason_stays_on_its_line(capsys, tmp_path):
    """xDSL puts `result 'x' at position 0 does not verify:` and the reason on two lines."""
    bad = tmp_path / "unranked.mlir"
    bad.write_text("func.func @main(%x: tensor<*xf32>) -> tensor<*xf32> {\n"
                   "  %y = \"cann.Relu\"(%x) : (tensor<*xf32>) -> tensor<*xf32>\n"
                   "  func.return %y : tensor<*xf32>\n}\n")
    rc, err = run_tool("cann-opt", [str(bad)], capsys)
    assert rc == 1
    one_line_errors(err, r":2:3: error: .*does not verify: .*tensor<\*xf32>", str(bad), lines=None)


def test_new_op_keeps_the_line_col_of_the_op_it_replaces(capsys, tmp_path):
    path = repro("mlir-no-location-after-tf-to-cann", "strides.tf.mlir")
    rc, err = run_tool("cann-opt", ["--tf-to-cann", path, "-o", str(tmp_path / "o.mlir")], capsys)
    assert rc == 1
    one_line_errors(err, r":6:5: error: cann.Conv2D: strides and dilations on N and C must be 1$",
                    path)


def test_plan_memory_error_names_the_file(capsys, tmp_path):
    rc, err = run_tool("cann-opt", ["--plan-memory", TF_EXAMPLE, "-o", str(tmp_path / "o.mlir")],
                       capsys)
    assert rc == 1
    one_line_errors(err, r": error: plan-memory: @main: .* is not a kernel launch; run "
                         r"cann-to-kernel before plan-memory$", TF_EXAMPLE)


# --- rule and switch files -----------------------------------------------------------------------

@pytest.mark.parametrize("option, name, file, expected", [
    ("--fuse=rules={}", "rules-bad-attr-blames-model", "badattr.rules",
     r":7:5: error: rule BadActivation: the replacement cann.FusedConv2D does not verify: "
     r".*'activation' must be one of .*; got 'x'$"),
    ("--fuse=rules={}", "rules-file-not-utf8", "latin1.rules",
     r":7:6: error: not a text file \(expected a fusion rule file\): byte 0xe9 is not UTF-8$"),
    ("--fusion-switch-file={}", "switch-file-not-utf8", "latin1.cfg",
     r":2:6: error: not a text file \(expected a fusion switch file\): byte 0xe9 is not UTF-8$"),
    ("--fusion-switch-file={}", "switch-json-value-newline", "newline.json",
     r": Switch.GraphFusion.ALL: error: expected 'on' or 'off', got \"on\\noff\"$"),
])
def test_rule_and_switch_file_mistakes_blame_that_file(option, name, file, expected, capsys,
                                                       tmp_path):
    path = repro(name, file)
    flags = ["--fuse", option.format(path)] if option.startswith("--fusion") else [option.format(path)]
    out = tmp_path / "out.mlir"
    rc, err = run_tool("cann-opt", ["--tf-to-cann", *flags, TF_EXAMPLE, "-o", str(out)], capsys)
    assert rc == 1
    one_line_errors(err, expected, path)
    assert not out.exists()


def test_non_utf8_switch_file_in_cann_compile(capsys, tmp_path):
    path = repro("switch-file-not-utf8", "latin1.cfg")
    rc, err = run_tool("cann-compile", [f"--model={PBTXT_EXAMPLE}", "--framework=3",
                                        "--soc_version=Ascend910B3", f"--fusion_switch_file={path}",
                                        f"--output={tmp_path}/cb"], capsys)
    assert rc == 1
    one_line_errors(err, r":2:6: error: not a text file", path)
    assert not os.listdir(tmp_path)


# --- offline models ------------------------------------------------------------------------------

OM_CASES = [
    ("om-model-def-first-token-parseerror",
     r"\(MODEL_DEF\):1:1: error: Unexpected character: \\x00$"),
    ("om-run-planned-unwrapped-exception",
     r"\(MODEL_DEF\):\d+:\d+: error: kernel.cube: cannot execute: not enough values to unpack "),
    ("om-weight-index-entry-not-object",
     r": error: corrupted offline model: WEIGHT_INDEX\[0\] must be an object, got a string$"),
    ("om-weight-index-missing-offset",
     r": error: corrupted offline model: WEIGHT_INDEX\[0\] has no 'offset'$"),
    ("om-weight-index-not-list",
     r": error: corrupted offline model: WEIGHT_INDEX must be a list, got an integer$"),
    ("om-weight-index-position-use-before-def",
     r": error: corrupted offline model: WEIGHT_INDEX\[0\] \('conv1/bias'\): position 99 puts the "
     r"weight after its use by kernel.cube$"),
    ("om-weight-negative-offset-no-file",
     r": error: corrupted offline model: WEIGHT_INDEX\[0\].offset must be a non-negative "
     r"integer, got -4$"),
]


@pytest.mark.parametrize("name, expected", OM_CASES, ids=[n for n, _ in OM_CASES])
def test_bad_offline_model_is_one_line(name, expected, capsys):
    path = repro(name, "bad.om")
    rc, err = run_tool("cann-run", [path], capsys)
    assert rc == 1
    one_line_errors(err, expected, path)


def test_planned_ir_error_in_mlir_form_names_line_col(capsys):
    path = repro("om-run-planned-unwrapped-exception", "k.mlir")
    rc, err = run_tool("cann-run", [path], capsys)
    assert rc == 1
    one_line_errors(err, r":20:17: error: kernel.load: cannot execute: not enough values to unpack",
                    path)


def test_long_while_loop_hits_the_guard_quickly(tmp_path):
    model = repro("om-while-trip-count-hang", "while1e8.pb")
    rc, err = run_subprocess("cann-compile", [f"--model={model}", "--framework=3",
                                              "--soc_version=Ascend910B3", f"--output={tmp_path}/w"])
    assert rc == 0, err
    env_free = {k: v for k, v in os.environ.items() if k != "CANN_MAX_WHILE_ITERATIONS"}
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "tools.cann_run", f"{tmp_path}/w.om"], cwd=REPO,
                       capture_output=True, text=True, timeout=300, env=env_free)
    elapsed = time.monotonic() - start
    assert p.returncode == 1
    one_line_errors(p.stderr, r"\(MODEL_DEF\):\d+:\d+: error: kernel.while: more than 1000 "
                              r"iterations .*\[node 'while'\]$", f"{tmp_path}/w.om")
    assert elapsed < 240  # 1e6 iterations took ~12 minutes


# --- cann-run inputs and modules -----------------------------------------------------------------

def test_npy_header_claiming_terabytes_is_refused_before_allocating(capsys):
    npy = repro("npy-huge-header-memoryerror", "huge_header.npy")
    rc, err = run_tool("cann-run", [TF_EXAMPLE, "--input", f"x={npy}"], capsys)
    assert rc == 1
    one_line_errors(err, r": error: input 'x': a tensor of shape \[1048576x1048576\] needs "
                         r"4398046511104 bytes, more than the limit", npy)


def test_npy_of_the_wrong_shape_names_the_npy(capsys):
    npy = repro("npy-mismatch-no-file-name", "wrong_shape.npy")
    rc, err = run_tool("cann-run", [TF_EXAMPLE, "--input", f"x={npy}"], capsys)
    assert rc == 1
    one_line_errors(err, r": error: input 'x' has shape \[1, 8, 8, 4\], the model expects "
                         r"\[1, 8, 8, 3\]$", npy)


def test_npy_header_with_an_expression_gives_the_same_message_every_run(capsys):
    """numpy's header parser quoted an AST node with its memory address (`<ast.BinOp object at
    0x7f...>`): the message differed from run to run (the fuzz harness's determinism check)."""
    npy = repro("npy-header-object-address", "expression_shape.npy")
    errs = []
    for _ in range(2):
        rc, err = run_tool("cann-run", [TF_EXAMPLE, "--input", f"x={npy}"], capsys)
        assert rc == 1
        errs.append(err)
    one_line_errors(errs[0], r": error: not a valid .npy file: .*<ast\.BinOp>$", npy)
    assert errs[0] == errs[1]


def test_npy_whose_data_is_shorter_than_its_header_says(capsys, tmp_path):
    import numpy as np

    npy = tmp_path / "short.npy"
    np.save(npy, np.zeros((1, 8, 8, 3), np.float32))
    npy.write_bytes(npy.read_bytes()[:-4])
    rc, err = run_tool("cann-run", [TF_EXAMPLE, "--input", f"x={npy}"], capsys)
    assert rc == 1
    one_line_errors(err, r": error: the data does not match the .npy header: shape \[1, 8, 8, 3\] "
                         r"of float32 needs 768 bytes, the file has 764", str(npy))


def test_huge_tensor_type_is_refused_before_allocating():
    path = repro("run-huge-tensor-memoryerror", "huge_run.mlir")
    rc, err = run_subprocess("cann-run", [path], limit_bytes=8_000_000_000)
    assert rc == 1, err
    one_line_errors(err, r":1:1: error: func.func: cannot execute: a tensor of shape \[3000000000\] "
                         r"needs 12000000000 bytes, more than the limit", path)


def test_module_without_main_names_the_file(capsys):
    path = repro("run-no-main-no-file-name", "nomain.mlir")
    rc, err = run_tool("cann-run", [path], capsys)
    assert rc == 1
    one_line_errors(err, r": error: the module has no func.func @main to run$", path)


# --- cann-compile (the harness's `compile` kind) -------------------------------------------------

def test_force_fp16_compiles_a_model_whose_elementwise_chain_fuses(capsys, tmp_path):
    """Mul -> Relu fuse into one cann.FusedKernel (a body region); set-precision rebuilt it from
    its operands and attributes, dropping the body and erasing the ops in it while its walk
    still held them: `internal error: AttributeError ... insert_op_before` (55 of 10,000
    `compile` cases, every one with --precision_mode=force_fp16)."""
    model = repro("compile-force-fp16-fused-kernel", "mul_relu_sum.pbtxt")
    out = tmp_path / "m"
    rc, err = run_tool("cann-compile", [f"--model={model}", "--framework=3",
                                        "--soc_version=Ascend910B3", "--precision_mode=force_fp16",
                                        f"--output={out}"], capsys)
    assert (rc, err, (tmp_path / "m.om").is_file()) == (0, "", True)
