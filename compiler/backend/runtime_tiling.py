"""Tiling at dispatch (issue 16 part 2): the kernels of a range-compiled model, made for the
shape of each run and cached by shape.

A range-compiled kernel module (compiler/driver/shape_ranges.py) records the tiling function:
the cann-level function with `?` dimensions (`cann.dispatch_source`), the ranges
(`cann.shape_ranges`) and the passes that take it to planned kernels (`cann.dispatch_pipeline`:
fuse, [set-precision], assign-layouts, cann-to-kernel with the tiling solver of
compiler/target/tiling.py, plan-memory).  `Dispatcher.kernels(shapes)`:

1. checks each input's shape against its ranges (one error naming the input, its shape and
   the allowed ones);
2. on a miss of the dispatch cache (keyed by the input shapes), makes the symbolic function
   concrete: the `?` of every value becomes the dimension its op produces at these input shapes.
   The shapes are read off each op's numpy semantics run on zero inputs of the operand shapes
   (constants keep their values; no data-dependent shape can occur: the compile refused them).
   This is a shape inference through the interpreters, as general as the ops' semantics; its
   cost is one run of the model at the cann level per new shape, which a device runtime would
   replace by per-op infer-shape functions (not written here);
3. runs the recorded passes on it: the same solver as a static compile, so the kernels, their
   tiling and the memory plan are those a static compile at that shape would make from the same
   cann-level graph;
4. checks the plan fits the arena the .om was planned with (the range's maximum).

The dispatch cache keeps the last `MAX_CACHED_SHAPES` shapes used (`hits`, `misses`,
`evictions`); the tiling solver's own per-op cache (compiler/target/tiling.py `cache_stats`) is
reported beside it.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr, ModuleOp, StringAttr, TensorType
from xdsl.rewriter import Rewriter

from compiler.ir.typed import block_of, elem_of
from compiler.ir.diagnostics import CompileError

#: Shapes the dispatch cache keeps (least recently used evicted): a product of ranges can have
#: thousands of shapes, each a kernel module.  (ATB keeps a small ring per kernel, cann-facts.md
#: section 8; 64 whole-model entries is this project's choice, not a CANN number.)
MAX_CACHED_SHAPES = 64
RANGES_ATTR = "cann.shape_ranges"
PIPELINE_ATTR = "cann.dispatch_pipeline"
SOURCE_ATTR = "cann.dispatch_source"


def tail_passes(options):
    """The passes of `options`' pipeline after the cann level (tf-to-cann, cann-cleanup): the
    tiling function run at dispatch.  Reports to files are not written at dispatch."""
    from compiler.driver.pipelines import build_pipeline

    o = replace(options, layout_report="", fusion_report="")
    full = build_pipeline(replace(o, level="planned"))
    head = build_pipeline(replace(o, level="cann"))
    return list(full[len(head):])


def passes_of_spec(spec: str):
    from xdsl.utils.arg_spec import parse_pipeline

    from compiler.driver.pipelines import ALL_PASSES  # the registry, through the pipeline builder

    out = []
    for p in parse_pipeline(spec):
        if p.name not in ALL_PASSES:
            raise CompileError(f"internal error: the recorded tiling function names an unknown "
                               f"pass '{p.name}'")
        out.append(ALL_PASSES[p.name]().from_pass_spec(p))
    return out


def parse_ranges_attr(attr) -> dict:
    from compiler.driver.shape_ranges import parse_ranges

    if not isinstance(attr, DictionaryAttr):
        raise CompileError(f"invalid model: '{RANGES_ATTR}' is not a dictionary")
    spec = ";".join(f"{n}:{v.data}" for n, v in attr.data.items() if isinstance(v, StringAttr))
    return parse_ranges(spec)


def _concrete(t, shape) -> TensorType:
    return TensorType(t.element_type, [int(d) for d in shape], t.encoding)


def specialize(symbolic: ModuleOp, shapes: dict[str, list[int]]) -> ModuleOp:
    """A copy of the symbolic cann-level module with every `?` replaced by its dimension at
    these input shapes (see the module docstring, step 2)."""
    from compiler.driver.runner import io_names, main_func, make_interpreter
    from compiler.interpreters.common import SemanticsError
    from compiler.ir.diagnostics import OpError
    from dialects.common import numpy_dtype

    module = symbolic.clone()
    for key in (RANGES_ATTR, PIPELINE_ATTR, SOURCE_ATTR):
        module.attributes.pop(key, None)
    fn = main_func(module)
    in_names, _ = io_names(fn)
    block = block_of(fn.body)
    env: dict = {}
    for name, arg in zip(in_names, block.args, strict=True):
        t = arg.type
        shape = shapes[name]
        new = Rewriter.replace_value_with_new_type(arg, _concrete(t, shape))
        env[new] = np.zeros(shape, numpy_dtype(elem_of(t)))
    interp = make_interpreter(module)
    ret = None
    with np.errstate(all="ignore"):
        for op in list(block.ops):
            if isinstance(op, func.ReturnOp):
                ret = op
                break
            try:
                outs = interp.run_op(op, tuple(env[v] for v in op.operands))
            except SemanticsError as e:
                raise OpError([(e.op, e.message)]) from None
            except Exception as e:  # noqa: BLE001 - one line naming the op
                msg = (str(e).strip().splitlines() or [type(e).__name__])[0]
                raise OpError([(op, f"{op.name}: cannot infer the shape at dispatch: {msg}")]) from None
            for r, val in zip(list(op.results), outs, strict=True):
                val = np.asarray(val)
                t = r.type
                if isinstance(t, TensorType) and any(d < 0 for d in t.get_shape()):
                    env[Rewriter.replace_value_with_new_type(r, _concrete(t, val.shape))] = val
                else:
                    env[r] = val
            _concrete_shape_prop(op)
    if ret is None:
        raise CompileError("@main has no func.return")
    fn.function_type = func.FunctionType.from_lists([a.type for a in block.args],
                                                    [v.type for v in ret.operands])
    return module


def _concrete_shape_prop(op) -> None:
    """A `shape` property with -1 (Reshape's inferred dimension) takes the result's shape."""
    from dialects.common import int_array, ints

    shape = op.properties.get("shape")
    if not isinstance(shape, DenseArrayBase) or len(op.results) != 1 or \
            not isinstance(op.results[0].type, TensorType):
        return
    dims = ints(shape)
    got = list(op.results[0].type.get_shape())
    if -1 in dims and len(got) == len(dims):
        op.properties["shape"] = int_array(got)


class Dispatcher:
    """The tiling function of one range-compiled module, with its dispatch cache."""

    def __init__(self, symbolic: ModuleOp, source: str = "<model>", passes=None):
        from compiler.ir.diagnostics import SourceMap

        self.symbolic = symbolic
        self.source = SourceMap(source)
        self.ranges = parse_ranges_attr(symbolic.attributes.get(RANGES_ATTR))
        spec = symbolic.attributes.get(PIPELINE_ATTR)
        if passes is None:
            if not isinstance(spec, StringAttr):
                raise CompileError(f"invalid model: no '{PIPELINE_ATTR}'")
            passes = passes_of_spec(spec.data)
        self.passes = passes
        self.cache: OrderedDict[tuple, ModuleOp] = OrderedDict()
        self.cache_limit = MAX_CACHED_SHAPES
        self.hits = 0
        self.misses = 0
        self.evictions = 0
        self.arena_limit: int | None = None

    @classmethod
    def of_kernel_module(cls, module: ModuleOp, source: str = "<model>") -> Dispatcher:
        """The dispatcher a range-compiled kernel module records (e.g. an .om's MODEL_DEF)."""
        from compiler.backend.memory_plan import read_plan
        from compiler.driver.runner import main_func
        from compiler.ir.ir_io import make_context, parse_module

        text = module.attributes.get(SOURCE_ATTR)
        if not isinstance(text, StringAttr):
            raise CompileError(f"{source}: invalid model: no '{SOURCE_ATTR}'")
        symbolic, _ = parse_module(make_context(), text.data, f"{source}({SOURCE_ATTR})")
        for key in (RANGES_ATTR, PIPELINE_ATTR):
            if key not in module.attributes:
                raise CompileError(f"{source}: invalid model: no '{key}'")
            symbolic.attributes[key] = module.attributes[key]
        d = cls(symbolic, source)
        from compiler.driver.shape_ranges import bounded

        if bounded(d.ranges):  # else (a -1): each shape's plan is the arena it needs
            d.arena_limit = read_plan(main_func(module)).arena
        return d

    def source_text(self) -> str:
        from compiler.ir.ir_io import module_to_text

        m = self.symbolic.clone()
        for key in (RANGES_ATTR, PIPELINE_ATTR, SOURCE_ATTR):
            m.attributes.pop(key, None)
        return module_to_text(m)

    def check(self, shapes: dict[str, list[int]]) -> None:
        from compiler.driver.shape_ranges import outside

        errors = [why for n, s in shapes.items() if (why := outside(self.ranges, n, s))]
        missing = [n for n in self.ranges if n not in shapes]
        if missing:
            errors.append(f"no shape for input '{missing[0]}'")
        if errors:
            raise CompileError(errors[:1])

    def kernels(self, shapes: dict[str, list[int]]) -> ModuleOp:
        """The planned kernel module at these input shapes (cached by shape)."""
        from compiler.backend.memory_plan import read_plan
        from compiler.driver.pipelines import run_pipeline
        from compiler.driver.runner import main_func
        from compiler.ir.ir_io import make_context

        self.check(shapes)
        key = tuple((n, tuple(int(d) for d in shapes[n])) for n in self.ranges)
        hit = self.cache.get(key)
        if hit is not None:
            self.hits += 1
            self.cache.move_to_end(key)
            return hit
        self.misses += 1
        from compiler.ir.diagnostics import OpError

        try:
            module = specialize(self.symbolic, shapes)
        except OpError as e:
            raise CompileError([self.source.describe(op, msg) for op, msg in e.items]) from None
        run_pipeline(make_context(), module, self.passes, self.source,
                     verify=lambda p: p.name != "plan-memory")
        arena = read_plan(main_func(module)).arena
        if self.arena_limit is not None and arena > self.arena_limit:
            raise CompileError(f"{self.source.filename}: error: at shapes {shapes} the memory plan "
                               f"needs {arena} B, more than the {self.arena_limit} B planned for "
                               "the range's maximum")
        module.attributes["cann.dispatch_shape"] = StringAttr(
            ";".join(f"{n}:{','.join(map(str, s))}" for n, s in key))
        self.cache[key] = module
        while len(self.cache) > self.cache_limit:  # least recently used first
            self.cache.popitem(last=False)
            self.evictions += 1
        return module

    def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        from compiler.backend.offline_model import run_planned

        shapes = {n: list(np.shape(v)) for n, v in inputs.items() if n in self.ranges}
        return run_planned(self.kernels(shapes), inputs)

    def stats_line(self) -> str:
        from compiler.target.tiling import cache_stats

        solver = ", ".join(f"{k} {h} hits / {m} misses" for k, (h, m) in cache_stats().items())
        evicted = f", {self.evictions} evicted" if self.evictions else ""
        return (f"tiling at dispatch: {self.hits} hits, {self.misses} misses of the shape cache "
                f"({len(self.cache)} shapes tiled{evicted}); tiling solver cache: {solver}")

