"""The .om's model text (MODEL_DEF) is printed by compiler/ir/fast_printer.py's FastPrinter: it
must be exactly xDSL's own Printer output of the same module (custom format, every location),
so the fast printer can never drift from what the .om reader parses."""

from __future__ import annotations

import struct

import pytest

from compiler.backend import offline_model as om
from compiler.ir.entry import main_func
from compiler.ir.ir_io import module_to_text


def _model_def(path: str) -> bytes:
    """The MODEL_DEF section's bytes of the .om at path."""
    data = open(path, "rb").read()
    (sections,) = struct.unpack_from("<I", data, 12)
    for k in range(sections):
        kind, _, offset, length = struct.unpack_from("<IIQQ", data, om.HEADER_SIZE + 24 * k)
        if kind == om.MODEL_DEF:
            return data[offset:offset + length]
    raise AssertionError("no MODEL_DEF section")


def _xdsl_text(module) -> bytes:
    """xDSL's Printer text of the module as the .om holds it (@main's constants as arguments)."""
    _, undo = om._weights_as_arguments(main_func(module))
    try:
        return module_to_text(module, debuginfo=True).encode()
    finally:
        undo()


@pytest.mark.modelzoo
@pytest.mark.parametrize("name", ["MobileNetV3Small", "BertBackbone", "PreActResNet",
                                  "cf-LstmGruTextClassifier", "cf-NestedLoops"])
def test_the_om_model_text_is_xdsls_printer_output(name, compiled_zoo_om):
    """A CNN (squeeze-excite, hard-swish), a transformer, a ResNet and two models with
    kernel-level control flow (kernel.while, kernel.if in functions of their own), compiled as
    cann-compile compiles them."""
    module, out = compiled_zoo_om(name)
    assert _model_def(out) == _xdsl_text(module)


def test_the_om_printer_writes_xdsls_text_for_unusual_attributes():
    """Attribute-dictionary keys that are not identifiers, string literals with escapes and
    non-ASCII bytes (in attributes and locations), a unit attribute, one attribute object on
    two ops and equal ones on others (memo hits by identity and misses), an empty dictionary."""
    from xdsl.dialects.builtin import NameLoc, NoneAttr, StringAttr, UnitAttr

    from tests.pytest.test_offline_model import _kernel_module

    module = _kernel_module()
    fn = main_func(module)
    ops = [o for o in fn.walk() if o is not fn]
    assert len(ops) >= 6
    shared = StringAttr('a "quoted" \\ back\nslash \u00e9')
    ops[0].attributes["weird key"] = shared
    ops[1].attributes["weird key"] = shared
    ops[1].attributes["flag"] = UnitAttr()
    ops[2].attributes["x"] = StringAttr("plain")
    ops[3].attributes["x"] = StringAttr("plain")
    ops[4].location = NameLoc(StringAttr('node "\u00fc"\t/1'), NoneAttr())
    ops[5].attributes.clear()
    assert om._model_text(module) == module_to_text(module, debuginfo=True).encode()


def test_the_fast_printer_prints_generic_format_as_xdsl():
    """With print_generic_format every op takes xDSL's own path: the same text."""
    from io import StringIO

    from xdsl.printer import Printer

    from compiler.ir.fast_printer import FastPrinter
    from tests.pytest.test_offline_model import _kernel_module

    module = _kernel_module()
    texts = []
    for cls in (Printer, FastPrinter):
        out = StringIO()
        cls(stream=out, print_generic_format=True, print_debuginfo=True).print_op(module)
        texts.append(out.getvalue())
    assert texts[0] == texts[1]
