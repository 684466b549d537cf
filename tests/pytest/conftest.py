"""Suite-wide pytest hooks."""

from __future__ import annotations

import pytest

#: texts longer than this are compared line by line on failure (pytest's own explanation of two
#: unequal model texts of megabytes is a quadratic diff that ran for over an hour in CI)
LONG_TEXT = 20_000


def _lines(x: str | bytes) -> list:
    return x.splitlines() if isinstance(x, (str, bytes)) else []


def pytest_assertrepr_compare(op: str, left: object, right: object) -> list[str] | None:
    """`a == b` on long texts fails with the first differing line, not a full diff."""
    if op != "==" or type(left) is not type(right) or not isinstance(left, (str, bytes)):
        return None
    if max(len(left), len(right)) <= LONG_TEXT:
        return None
    a, b = _lines(left), _lines(right)
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return [f"long texts differ first at line {k + 1} (of {len(a)} and {len(b)}):",
                    f"left:  {x[:400]!r}", f"right: {y[:400]!r}"]
    return [f"long texts differ in length: {len(a)} and {len(b)} lines "
            f"({len(left)} and {len(right)} characters)"]


@pytest.fixture(scope="session")
def compiled_zoo_om(tmp_path_factory):
    """name -> (kernel-level module, path of its .om) of a zoo model (`cf-<Name>` for a
    control-flow one) compiled as `cann-compile --framework=3 --soc_version=Ascend910B3`
    compiles it; each model is compiled once per session, for every test that reads it (the
    tests must not change the module)."""
    done: dict = {}

    def get(name: str):
        if name not in done:
            from compiler.backend import offline_model as om
            from tools.cann_compile import compile_model, parse_args

            if name.startswith("cf-"):
                from tests.model_zoo.control_flow import control_flow_graphdef

                path = control_flow_graphdef(name[3:])
            else:
                from tests.model_zoo.zoo import frozen_graphdef

                path = frozen_graphdef(name)
            ns = parse_args([f"--model={path}", "--framework=3", "--soc_version=Ascend910B3"])
            module, _, _ = compile_model(ns, lambda step, dt: None)
            out = str(tmp_path_factory.mktemp("om") / "model.om")
            om.write_offline_model(module, out)
            done[name] = (module, out)
        return done[name]

    return get
