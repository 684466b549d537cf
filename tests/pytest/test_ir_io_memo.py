"""Reading IR text remembers each distinct type / attribute / location text it parsed
(compiler/ir/ir_io.py `_RecordingParser._memoized`) and counts lines with an index: the module
read, where each op stood and every error must be exactly what parsing without them gives."""

from __future__ import annotations

import glob
import os

import pytest

from compiler.ir import ir_io
from compiler.ir.diagnostics import CompileError
from compiler.ir.ir_io import make_context, module_to_text, parse_module

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: the lit corpus' kernel-level inputs (the level the .om holds), errors included
LIT_FILES = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "filecheck", "**", "*.mlir"),
                                        recursive=True)
                   if "kernel." in open(p, encoding="utf-8").read())


def _read(text: str, name: str, memoize: bool, offset: int = 0):
    """What parse_module gives: the module's text with every location and each op's
    position, or the error's message."""
    saved = ir_io._RecordingParser.memoize
    ir_io._RecordingParser.memoize = memoize
    try:
        module, source = parse_module(make_context(), text, name, offset)
    except CompileError as e:
        return ("error", e.messages)
    finally:
        ir_io._RecordingParser.memoize = saved
    positions = [source.positions.get(id(op)) for op in module.walk()]
    return ("ok", module_to_text(module, debuginfo=True), positions)


def _chunks(path: str):
    """The file's inputs as `cann-opt --split-input-file` cuts them (a file without
    separators is one input)."""
    text = open(path, encoding="utf-8").read()
    pieces = text.split("// -----")
    offset = 0
    for piece in pieces:
        yield piece, offset
        offset += piece.count("\n")


@pytest.mark.parametrize("path", LIT_FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_lit_inputs_read_the_same_with_and_without_memo(path):
    for chunk, offset in _chunks(path):
        assert _read(chunk, path, True, offset) == _read(chunk, path, False, offset)


def test_the_lit_corpus_has_kernel_level_inputs():
    assert len(LIT_FILES) >= 20


REPEATS = """builtin.module {
  func.func @f(%a: memref<4x16xf32, #kernel.space<GM>>, %b: memref<4x16xf32, #kernel.space<GM>>) {
    %c = "builtin.unrealized_conversion_cast"() {p = {k = array<i64: 1, 2>, s = "x}>"}, n = 3 : i64} : () -> memref<4x16xf32, #kernel.space<GM>>
    %d = "builtin.unrealized_conversion_cast"() {p = {k = array<i64: 1, 2>, s = "x}>"}, n = 3 : i32} : () -> memref<4x16xf32, #kernel.space<GM>>
    %e = "builtin.unrealized_conversion_cast"() {p = {k = array<i64: 1, 2>, s = "x}>"}, n = 3} : () -> memref<4x16xf32, #kernel.space<GM>>
    func.return
  }
}
"""


def test_repeated_texts_give_the_same_values_as_parsing_each():
    """The same dictionary, string with brackets and memref repeat; `3 : i64`, `3 : i32` and
    `3` start alike and differ."""
    got = _read(REPEATS, "repeats.mlir", True)
    assert got[0] == "ok" and got == _read(REPEATS, "repeats.mlir", False)
    assert "n = 3 : i64" in got[1] and "n = 3 : i32" in got[1] and "n = 3 : i64}" in got[1]


def test_an_error_after_a_remembered_text_keeps_its_location():
    text = REPEATS.replace('%e = "builtin.unrealized_conversion_cast"() {p = {k = array<i64: 1, 2>, s = "x}>"}, n = 3}',
                           '%e = "builtin.unrealized_conversion_cast"() {p = {k = array<i64: 1, 2>, s = "x}>"}, n = 3 : i}')
    got = _read(text, "bad.mlir", True)
    assert got[0] == "error" and got[1][0].startswith("bad.mlir:5:")
    assert got == _read(text, "bad.mlir", False)


def test_a_repeated_text_is_parsed_once():
    """The second memref and dictionary are the first's values (parsing each would build new
    ones): what makes a 3 MB model text load in a few seconds."""
    module, _ = parse_module(make_context(), REPEATS, "repeats.mlir")
    c, d, e = list(module.body.block.ops.first.body.block.ops)[:3]
    assert c.results[0].type is d.results[0].type is e.results[0].type
    assert c.attributes["p"] is d.attributes["p"] is e.attributes["p"]
    assert c.attributes["n"] is not d.attributes["n"]


@pytest.mark.modelzoo
@pytest.mark.parametrize("name", ["MobileNetV3Small", "BertBackbone", "NASNet",
                                  "cf-LstmGruTextClassifier"])
def test_a_zoo_model_loaded_from_its_om_is_the_compiled_module(name, compiled_zoo_om):
    """print(load(write(m))) == print(m), every location included (a folded constant's fused
    location too): a CNN, a transformer, NASNet (the largest model text) and a model with
    kernel-level control flow."""
    from compiler.backend import offline_model as om

    module, out = compiled_zoo_om(name)
    loaded = om.load_offline_model(out).module
    assert module_to_text(loaded, debuginfo=True) == module_to_text(module, debuginfo=True)
