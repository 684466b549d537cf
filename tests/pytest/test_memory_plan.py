"""plan-memory: the allocator and the overlap checker on synthetic problems and kernel IR."""

from __future__ import annotations

import random

import pytest
from xdsl.parser import Parser

from compiler.backend import memory_plan as mp
from compiler.ir.entry import main_func
from compiler.ir.ir_io import make_context, module_to_text, parse_module

R = mp.TensorReq


def _check(reqs, plan):
    assert mp.check_plan(reqs, plan.offsets, plan.arena, plan.alignment) == []


def test_chain_reuses_memory():
    # a -> b -> c -> d: each tensor dies when the next one is made
    reqs = [R(f"t{i}", 1000, i, i + 1) for i in range(4)]
    plan = mp.plan_tensors(reqs)
    _check(reqs, plan)
    assert plan.live_bound == 2 * 1024
    assert plan.arena == plan.live_bound
    assert plan.naive == 4 * 1024
    assert all(o % 512 == 0 for o in plan.offsets)


def test_residuals_over_a_chain_reach_the_live_set_bound():
    """A dilated-conv TCN's buffers (the hold-out TCN's main function): each block's residual
    lives over a chain of short-lived conv results.  The greedy orders leave it 1.27x the bound
    (the residual placed under the chain); the local search's random restarts reach the bound."""
    bufs = [(2048, 0, 8), (2112, 1, 2), (2112, 2, 3), (8192, 3, 4), (8192, 4, 5), (8448, 5, 6),
            (8448, 6, 7), (8192, 7, 8), (8192, 8, 16), (8192, 9, 10), (8704, 10, 11),
            (8704, 11, 12), (8192, 12, 13), (8192, 13, 14), (8704, 14, 15), (8704, 15, 16),
            (8192, 16, 24), (8192, 17, 18), (9216, 18, 19), (9216, 19, 20), (8192, 20, 21),
            (8192, 21, 22), (9216, 22, 23), (9216, 23, 24), (6144, 24, 25), (6144, 25, 27),
            (96, 27, 28)]
    reqs = [R(f"t{i}", size, start, end) for i, (size, start, end) in enumerate(bufs)]
    plan = mp.plan_tensors(reqs)
    _check(reqs, plan)
    assert (plan.arena, plan.live_bound) == (26624, 26624)


def test_checker_finds_overlap_and_misalignment():
    reqs = [R("a", 1024, 0, 2), R("b", 1024, 1, 3), R("c", 1024, 3, 4)]
    assert mp.check_plan(reqs, [0, 1024, 0], 2048) == []  # a and c never live together
    problems = mp.check_plan(reqs, [0, 512, 0], 2048)
    assert len(problems) == 2 and "'a'" in problems[0] and "'b'" in problems[0]
    assert "'c'" in problems[1]  # c and b are both live at step 3
    assert any("aligned" in p for p in mp.check_plan(reqs, [0, 1024, 100], 4096))
    assert any("outside the arena" in p for p in mp.check_plan(reqs, [0, 1024, 2048], 2048))


def test_inplace_alias_is_allowed_only_at_same_offset():
    reqs = [R("x", 2048, 0, 1), R("y", 2048, 1, 2, alias=(0, 0), alias_kind="inplace")]
    plan = mp.plan_tensors(reqs)
    assert plan.offsets == [0, 0] and plan.arena == 2048 and plan.inplace == 1
    _check(reqs, plan)
    # the same overlap without the alias relation is a bug the checker reports
    plain = [R("x", 2048, 0, 1), R("y", 2048, 1, 2)]
    assert mp.check_plan(plain, [0, 0], 2048) != []


def test_concat_slabs_written_in_place():
    # p0, p1 produced at steps 0, 1; concat at step 2 reads them; out used at step 3
    reqs = [R("p0", 1024, 0, 2, alias=(2, 0), alias_kind="concat"),
            R("p1", 1536, 1, 2, alias=(2, 1024), alias_kind="concat"),
            R("out", 2560, 2, 3)]
    plan = mp.plan_tensors(reqs)
    _check(reqs, plan)
    assert plan.offsets[0] == plan.offsets[2] and plan.offsets[1] == plan.offsets[2] + 1024
    assert plan.arena == 2560  # one buffer (2560 = 5 x 512)
    assert plan.concat_inplace == 2
    bad = list(plan.offsets)
    bad[1] += 512  # slab at the wrong place inside the output
    assert mp.check_plan(reqs, bad, plan.arena + 1024, plan.alignment) != []


def test_workspaces_share_memory():
    reqs = [R(f"ws{i}", 4096, i, i, kind="workspace") for i in range(5)]
    plan = mp.plan_tensors(reqs)
    _check(reqs, plan)
    assert plan.arena == 4096 and plan.naive == 5 * 4096


@pytest.mark.parametrize("seed", range(20))
def test_random_problems_are_sound_and_near_bound(seed):
    rng = random.Random(seed)
    reqs = []
    for i in range(rng.randint(5, 60)):
        start = rng.randint(0, 40)
        reqs.append(R(f"t{i}", rng.choice([100, 512, 1000, 4096, 65536, 3 * 65536]),
                      start, start + rng.randint(0, 6)))
    plan = mp.plan_tensors(reqs)
    _check(reqs, plan)
    assert plan.live_bound <= plan.arena <= plan.naive


def test_bad_requests():
    with pytest.raises(mp.PlanError):
        mp.plan_tensors([R("a", 10, 3, 1)])
    with pytest.raises(mp.PlanError):
        mp.plan_tensors([R("a", 10, 0, 1)], alignment=300)


# --- kernel IR -------------------------------------------------------------------------------

def _tiling(n):
    return (f"tiling = #kernel.tiling<totalElems = {n}, elemsPerCore = {n}, tileElems = {n}, "
            f"tilesPerCore = 1>")


def _vec(res, arg, fn, extra_buf=""):
    return (f'{res} = kernel.vector {arg} {{fn = "{fn}", block_dim = 1 : i64, {_tiling(1024)}, '
            f'buffers = [#kernel.buffer<UB, 8192, "io0">{extra_buf}]}} : '
            f"(tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xf32>")


CHAIN = f"""
builtin.module attributes {{cann.soc_version = "Ascend910B3"}} {{
  func.func @main(%arg0: tensor<1x1x8x8x16xf32>) -> tensor<1x1x8x8x16xf32> {{
    {_vec("%0", "%arg0", "Relu")}
    {_vec("%1", "%0", "Relu", ', #kernel.buffer<GM, 3000, "workspace">')}
    {_vec("%2", "%1", "Relu", ', #kernel.buffer<GM, 5000, "workspace">')}
    {_vec("%3", "%2", "Relu")}
    func.return %3 : tensor<1x1x8x8x16xf32>
  }}
}}
"""


def _load(text):
    module, _ = parse_module(make_context(), text, "t.mlir")
    return module


def test_ir_chain_in_place_and_workspace_reuse():
    module = _load(CHAIN)
    fn = main_func(module)
    plan = mp.plan_function(fn)
    assert plan.inplace == 2  # %1 over %0, %2 over %1; %3 is the model output
    assert plan.arena == 4096 + 5120  # one activation buffer + the larger workspace
    assert mp.check_function(fn) == []
    text = module_to_text(module)
    assert "mem.offsets = array<i64: -1>" in text and "mem.workspace" in text
    # the plan round-trips through the text and still checks
    again = _load(text)
    assert module_to_text(again) == text
    assert mp.check_function(main_func(again)) == []


def test_ir_checker_catches_a_corrupted_offset():
    module = _load(CHAIN)
    fn = main_func(module)
    mp.plan_function(fn)
    text = module_to_text(module)
    # move the workspace of step 2 onto the live activation
    ws = [op for op in fn.body.blocks.first.ops if mp.WORKSPACE_ATTR in op.attributes][1]
    size = int(ws.attributes[mp.WORKSPACE_ATTR].get_values()[1])
    act = int(ws.attributes[mp.OFFSETS_ATTR].get_values()[0])  # its result, live meanwhile
    ws.attributes[mp.WORKSPACE_ATTR] = mp._i64s([act, size])
    problems = mp.check_function(fn)
    assert problems and "workspace" in problems[0]
    assert "mem.plan" in text


def test_ir_without_inplace_uses_more():
    module = _load(CHAIN)
    plan = mp.plan_function(main_func(module), inplace=False)
    assert plan.inplace == 0 and plan.arena > 4096 + 5120


def test_ir_concat_producers_write_in_place():
    ctx = make_context()
    ctx.allow_unregistered = True
    text = f"""
builtin.module attributes {{cann.soc_version = "Ascend910B3"}} {{
  func.func @main(%arg0: tensor<1x1x8x8x16xf32>) -> tensor<1x2x8x8x16xf32> {{
    {_vec("%0", "%arg0", "Relu")}
    {_vec("%1", "%arg0", "Relu")}
    %2 = "kernel.concat"(%0, %1) {{fn = "ConcatV2D", concat_dim = 1 : i64}} : (tensor<1x1x8x8x16xf32>, tensor<1x1x8x8x16xf32>) -> tensor<1x2x8x8x16xf32>
    %3 = "kernel.copy"(%2) : (tensor<1x2x8x8x16xf32>) -> tensor<1x2x8x8x16xf32>
    func.return %3 : tensor<1x2x8x8x16xf32>
  }}
}}
"""
    module = Parser(ctx, text).parse_module()
    fn = main_func(module)
    plan = mp.plan_function(fn)
    assert plan.concat_inplace == 2
    ops = [op for op in fn.body.blocks.first.ops if mp.is_kernel(op)]
    offs = [int(op.attributes[mp.OFFSETS_ATTR].get_values()[0]) for op in ops]
    assert offs[1] == offs[0] + 4096 and offs[2] == offs[0]
    assert mp.ELIDED_ATTR in ops[2].attributes
    assert plan.arena == 8192
    assert mp.check_function(fn) == []


def test_non_kernel_ops_are_rejected():
    text = """
builtin.module {
  func.func @main(%arg0: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
    %0 = cann.Relu %arg0 : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
    func.return %0 : tensor<1x8x8x4xf32>
  }
}
"""
    with pytest.raises(mp.PlanError, match="cann.Relu is not a kernel launch"):
        mp.plan_function(main_func(_load(text)))


# --- zero-copy concat ------------------------------------------------------------------------

def _cann(body: str, arg: str, out: str):
    """A cann-level function through cann-to-kernel (the concat kernels the compiler emits)."""
    from passes.cann_to_kernel import CannToKernelPass

    text = f"""
builtin.module attributes {{cann.soc_version = "Ascend910B3"}} {{
  func.func @main(%arg0: {arg}) -> {out} {{
{body}
  }}
}}
"""
    module = _load(text)
    CannToKernelPass().apply(make_context(), module)
    return module


def _launch(fn, name):
    from compiler.ir.diagnostics import node_name

    return next(op for op in fn.body.blocks.first.ops if mp.is_kernel(op) and node_name(op) == name)


def _offset(fn, name):
    return int(_launch(fn, name).attributes[mp.OFFSETS_ATTR].get_values()[0])


def test_slab_off_the_32_byte_grid_is_copied_by_the_concat():
    # [1,3] f32 = 12 B: the second input would start at byte 12, inside the first one's last
    # 32-byte UB block, so only the first input is written in place; the concat still runs
    module = _cann("""
    %a = cann.Relu %arg0 : (tensor<1x3xf32>) -> tensor<1x3xf32> loc("a")
    %b = cann.Sigmoid %arg0 : (tensor<1x3xf32>) -> tensor<1x3xf32> loc("b")
    %c = cann.ConcatV2D %a, %b {concat_dim = 1 : i64, N = 2 : i64} : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x6xf32> loc("c")
    %y = cann.Neg %c : (tensor<1x6xf32>) -> tensor<1x6xf32> loc("y")
    func.return %y : tensor<1x6xf32>""", "tensor<1x3xf32>", "tensor<1x6xf32>")
    fn = main_func(module)
    plan = mp.plan_function(fn)
    assert plan.concat_inplace == 1
    assert _offset(fn, "a") == _offset(fn, "c") and _offset(fn, "b") % 512 == 0
    assert mp.ELIDED_ATTR not in _launch(fn, "c").attributes
    assert mp.check_function(fn) == []


def test_no_in_place_write_over_a_slab_while_its_concat_lives():
    # %a is a slab of %c; Tanh(%a) is the last use of %a, but writing it over %a would change
    # %c, which Add still reads afterwards: the planner must refuse that in-place write
    module = _cann("""
    %a = cann.Relu %arg0 : (tensor<1x64xf32>) -> tensor<1x64xf32> loc("a")
    %b = cann.Sigmoid %arg0 : (tensor<1x64xf32>) -> tensor<1x64xf32> loc("b")
    %c = cann.ConcatV2D %a, %b {concat_dim = 1 : i64, N = 2 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x128xf32> loc("c")
    %t = cann.Tanh %a : (tensor<1x64xf32>) -> tensor<1x64xf32> loc("t")
    %d = cann.ConcatV2D %t, %t {concat_dim = 1 : i64, N = 2 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x128xf32> loc("d")
    %y = cann.Add %c, %d : (tensor<1x128xf32>, tensor<1x128xf32>) -> tensor<1x128xf32> loc("y")
    func.return %y : tensor<1x128xf32>""", "tensor<1x64xf32>", "tensor<1x128xf32>")
    fn = main_func(module)
    mp.plan_function(fn)
    assert _offset(fn, "a") == _offset(fn, "c")
    t, a = _offset(fn, "t"), _offset(fn, "a")
    assert t + 256 <= a or a + 512 <= t  # Tanh's result lies outside %c's buffer
    assert mp.check_function(fn) == []


def test_checker_rejects_an_elided_concat_whose_input_is_elsewhere():
    module = _cann("""
    %a = cann.Relu %arg0 : (tensor<1x64xf32>) -> tensor<1x64xf32> loc("a")
    %b = cann.Sigmoid %arg0 : (tensor<1x64xf32>) -> tensor<1x64xf32> loc("b")
    %c = cann.ConcatV2D %a, %b {concat_dim = 1 : i64, N = 2 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<1x128xf32> loc("c")
    %y = cann.Neg %c : (tensor<1x128xf32>) -> tensor<1x128xf32> loc("y")
    func.return %y : tensor<1x128xf32>""", "tensor<1x64xf32>", "tensor<1x128xf32>")
    fn = main_func(module)
    mp.plan_function(fn)
    c = _launch(fn, "c")
    assert mp.ELIDED_ATTR in c.attributes and mp.check_function(fn) == []
    b = _launch(fn, "b")
    b.attributes[mp.OFFSETS_ATTR] = mp._i64s([_offset(fn, "c") + 1024])
    problems = mp.check_function(fn)
    assert any("mem.elided" in p for p in problems)


def test_a_concat_meeting_a_wide_output_on_an_unaligned_piece_stays_on_the_grid():
    # the split's last piece (byte 64 of %w) is the concat's first slab: putting the concat's
    # buffer there would start it off the 512-byte grid (InceptionV3's mixed0 at 75x75 made
    # plan-memory fail its own check); the merge is refused and the concat copies that piece
    module = _cann("""
    %w = cann.Relu %arg0 : (tensor<1x24xf32>) -> tensor<1x24xf32> loc("w")
    %p:2 = cann.SplitVD %w {size_splits = array<i64: 16, 8>, split_dim = 1 : i64, num_split = 2 : i64} : (tensor<1x24xf32>) -> (tensor<1x16xf32>, tensor<1x8xf32>) loc("split")
    %b = cann.Sigmoid %p#0 : (tensor<1x16xf32>) -> tensor<1x16xf32> loc("b")
    %c = cann.ConcatV2D %p#1, %b {concat_dim = 1 : i64, N = 2 : i64} : (tensor<1x8xf32>, tensor<1x16xf32>) -> tensor<1x24xf32> loc("c")
    %y = cann.Neg %c : (tensor<1x24xf32>) -> tensor<1x24xf32> loc("y")
    func.return %y : tensor<1x24xf32>""", "tensor<1x24xf32>", "tensor<1x24xf32>")
    fn = main_func(module)
    mp.plan_function(fn)
    assert _offset(fn, "c") % 512 == 0 and _offset(fn, "b") == _offset(fn, "c") + 32
    assert mp.check_function(fn) == []
