"""cann-to-kernel takes pack-launches' trial lowering when nothing was packed, and its tiled
trial when every proposed pack was kept (CannToKernelPass.offer, passes/cann_to_kernel.py): the
kernel IR is the one a fresh lowering gives, and a module changed after pack-launches is
lowered afresh."""

from __future__ import annotations

from compiler.ir.ir_io import make_context, parse_module
from tools.driver.pipelines import run_passes

CONV = ('cann.Conv2D {src}, {w} {{strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, '
        'dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NHWC"}} : '
        '({st}, tensor<3x3x32x32xf32>) -> {rt}')
T16, T14, T12 = (f"tensor<1x{n}x{n}x32xf32>" for n in (16, 14, 12))
# two convs, the second reading the first: nothing to pack
TEXT = f"""func.func @main(%x: {T16}) -> {T12} {{
  %w = cann.Const dense<0.125> : tensor<3x3x32x32xf32>
  %w2 = cann.Const dense<{{v}}> : tensor<3x3x32x32xf32>
  %0 = {CONV.format(src="%x", w="%w", st=T16, rt=T14)}
  %1 = {CONV.format(src="%0", w="%w2", st=T14, rt=T12)}
  func.return %1 : {T12}
}}
"""


def _compile(v: str, passes: tuple[str, ...], between=None) -> str:
    module, _ = parse_module(make_context(), TEXT.replace("{v}", v), "<test>")
    run_passes(make_context(), module, ("assign-layouts", *passes[:-1]))
    if between is not None:
        between(module)
    run_passes(make_context(), module, passes[-1:])
    return str(module)


def test_unpacked_trial_lowering_is_the_lowering():
    from passes import cann_to_kernel

    seen = []
    out = _compile("0.25", ("pack-launches", "cann-to-kernel"),
                   between=lambda m: seen.append(m in cann_to_kernel._AHEAD))
    assert seen == [True] and out == _compile("0.25", ("cann-to-kernel",))


# two independent convs of %x with a third, reading the first, between them: packed, the
# second conv is moved up beside the first
PACKED = f"""func.func @main(%x: {T16}) -> ({T14}, {T12}) {{
  %w = cann.Const dense<0.125> : tensor<3x3x32x32xf32>
  %w1 = cann.Const dense<0.5> : tensor<3x3x32x32xf32>
  %w2 = cann.Const dense<0.25> : tensor<3x3x32x32xf32>
  %0 = {CONV.format(src="%x", w="%w", st=T16, rt=T14)}
  %2 = {CONV.format(src="%0", w="%w2", st=T14, rt=T12)}
  %1 = {CONV.format(src="%x", w="%w1", st=T16, rt=T14)}
  func.return %1, %2 : {T14}, {T12}
}}
"""


def test_packed_tiled_trial_lowering_is_the_lowering():
    from passes import cann_to_kernel

    def lower(take: bool) -> str:
        module, _ = parse_module(make_context(), PACKED, "<test>")
        run_passes(make_context(), module, ("assign-layouts", "pack-launches"))
        assert (module in cann_to_kernel._AHEAD) is True
        if not take:
            del cann_to_kernel._AHEAD[module]
        run_passes(make_context(), module, ("cann-to-kernel",))
        return str(module)

    out = lower(True)
    assert out.count("kernel.pack = 0") == 2 and out == lower(False)


def test_module_changed_after_pack_launches_is_lowered_afresh():
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    from dialects import cann

    def change(module):
        c = [o for o in module.walk() if isinstance(o, cann.ConstOp)][1]
        c.value = DenseIntOrFPElementsAttr.from_list(c.value.type, [0.5])

    out = _compile("0.25", ("pack-launches", "cann-to-kernel"), between=change)
    assert out == _compile("0.5", ("cann-to-kernel",))
