"""Tiling at dispatch (issue 16 part 2): the kernels of a range-compiled model, made for the
shape of each run and cached by shape.

A range-compiled kernel module (tools/driver/shape_ranges.py) records the tiling function:
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

A compile whose kernels are lowered once with `?` (see "kernels lowered once" below) records
those (`cann.dispatch_kernels`) instead of the `?` cann function: one copy of the weights, and
dispatch runs steps 1, 3 (cann-to-kernel, plan-memory only) and 4, with the shape inference of
step 2 done by the ops' shape rules instead of the interpreters.

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
from xdsl.ir import SSAValue
from xdsl.rewriter import Rewriter

from compiler.ir.diagnostics import CompileError
from compiler.ir.typed import block_of, elem_of, shape_of, str_of, tensor_of

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
    from tools.driver.pipelines import build_pipeline

    o = replace(options, layout_report="", fusion_report="")
    full = build_pipeline(replace(o, level="planned"))
    head = build_pipeline(replace(o, level="cann"))
    return list(full[len(head):])


def passes_of_spec(spec: str):
    from xdsl.utils.arg_spec import parse_pipeline

    from tools.driver.pipelines import ALL_PASSES  # the registry, through the pipeline builder

    out = []
    for p in parse_pipeline(spec):
        if p.name not in ALL_PASSES:
            raise CompileError(f"internal error: the recorded tiling function names an unknown "
                               f"pass '{p.name}'")
        out.append(ALL_PASSES[p.name]().from_pass_spec(p))
    return out


def parse_ranges_attr(attr) -> dict:
    from tools.driver.shape_ranges import parse_ranges

    if not isinstance(attr, DictionaryAttr):
        raise CompileError(f"invalid model: '{RANGES_ATTR}' is not a dictionary")
    spec = ";".join(f"{n}:{v.data}" for n, v in attr.data.items() if isinstance(v, StringAttr))
    return parse_ranges(spec)


def _concrete(t, shape) -> TensorType:
    return TensorType(t.element_type, [int(d) for d in shape], t.encoding)


def specialize(symbolic: ModuleOp, shapes: dict[str, list[int]]) -> ModuleOp:
    """A copy of the symbolic cann-level module with every `?` replaced by its dimension at
    these input shapes (see the module docstring, step 2)."""
    from compiler.interpreters.common import SemanticsError
    from compiler.interpreters.execute import make_interpreter
    from compiler.ir.diagnostics import OpError
    from compiler.ir.entry import io_names, main_func
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
    from dialects.cann import origin_shape

    dims = ints(shape)
    got = list(origin_shape(op.results[0].type))  # a laid-out result: its origin shape
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
        self.head, self.lowering = split_passes(passes)
        self.dispatch_kernels: ModuleOp | None = None
        """The kernels lowered once with `?` (`lower_once`); None: the whole tiling function
        runs per shape."""
        self.fallback: str | None = None
        """Why `lower_once` kept the whole tiling function per shape."""
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
        from compiler.ir.entry import main_func
        from compiler.ir.ir_io import make_context, parse_module

        # the `?` kernels (KERNELS_ATTR) or, when the compile fell back, the `?` cann function
        key = next((k for k in (KERNELS_ATTR, SOURCE_ATTR)
                    if isinstance(module.attributes.get(k), StringAttr)), None)
        if key is None:
            raise CompileError(f"{source}: invalid model: no '{KERNELS_ATTR}' or '{SOURCE_ATTR}'")
        symbolic, _ = parse_module(make_context(), str_of(module.attributes[key]), f"{source}({key})")
        for k in (RANGES_ATTR, PIPELINE_ATTR):
            if k not in module.attributes:
                raise CompileError(f"{source}: invalid model: no '{k}'")
            symbolic.attributes[k] = module.attributes[k]
        d = cls(symbolic, source)
        if key == KERNELS_ATTR:
            d.dispatch_kernels = symbolic
        from tools.driver.shape_ranges import bounded

        if bounded(d.ranges):  # else (a -1): each shape's plan is the arena it needs
            d.arena_limit = read_plan(main_func(module)).arena
        return d

    def source_text(self) -> str:
        from compiler.ir.ir_io import module_to_text

        m = self.symbolic.clone()
        for key in (RANGES_ATTR, PIPELINE_ATTR, SOURCE_ATTR):
            m.attributes.pop(key, None)
        return module_to_text(m)

    def probe_shapes(self) -> tuple[dict, dict]:
        """The two shapes `lower_once` generalizes: the ranges' smallest, and their largest
        (an unbounded dimension: its smallest + 16)."""
        lo = {n: [r.lo for r in dims] for n, dims in self.ranges.items()}
        hi = {n: [r.lo + 16 if r.hi is None else r.hi for r in dims]
              for n, dims in self.ranges.items()}
        return lo, hi

    def lower_once(self) -> None:
        """Compile time: fusion and layouts at the two probe shapes, generalized into the
        `?` kernels (`dispatch_kernels`), checked to give back both; else `fallback` says why
        the whole tiling function stays per shape."""
        from compiler.ir.diagnostics import OpError
        from compiler.ir.ir_io import make_context, module_to_text
        from tools.driver.pipelines import run_pipeline

        laid = []
        try:
            for shapes in self.probe_shapes():
                m = specialize(self.symbolic, shapes)
                run_pipeline(make_context(), m, self.head, self.source)
                laid.append((shapes, m))
            kernels = to_dispatch_kernels(generalize(laid[0][1], laid[1][1]))
            kernels.verify()
            for shapes, m in laid:
                if module_to_text(concretize(kernels, shapes)) != module_to_text(m):
                    raise NotGeneral(f"the ops' shape rules do not give back the layouts at {shapes}")
        except NotGeneral as e:
            self.fallback = f"{e}{_node(e.op)}"
            return
        except OpError as e:
            self.fallback = "; ".join(f"{msg}{_node(op)}" for op, msg in e.items)
            return
        self.dispatch_kernels = kernels

    def check(self, shapes: dict[str, list[int]]) -> None:
        from tools.driver.shape_ranges import outside

        errors = [why for n, s in shapes.items() if (why := outside(self.ranges, n, s))]
        missing = [n for n in self.ranges if n not in shapes]
        if missing:
            errors.append(f"no shape for input '{missing[0]}'")
        if errors:
            raise CompileError(errors[:1])

    def kernels(self, shapes: dict[str, list[int]]) -> ModuleOp:
        """The planned kernel module at these input shapes (cached by shape)."""
        from compiler.backend.memory_plan import read_plan
        from compiler.ir.entry import main_func
        from compiler.ir.ir_io import make_context
        from tools.driver.pipelines import run_pipeline

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
            if self.dispatch_kernels is not None:  # the layouts are the compile's: lower only
                module = concretize(self.dispatch_kernels, shapes)
            else:
                module = specialize(self.symbolic, shapes)
        except OpError as e:
            raise CompileError([self.source.describe(op, msg) for op, msg in e.items]) from None
        passes = self.lowering if self.dispatch_kernels is not None else self.passes
        run_pipeline(make_context(), module, passes, self.source,
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
        if self.dispatch_kernels is not None:
            from compiler.ir.entry import main_func
            from dialects.kernel import DispatchOp

            ks = [k for k in main_func(self.dispatch_kernels).body.ops if isinstance(k, DispatchOp)]
            cube = sum(1 for k in ks if k.tiling_fn.solver.data == "cube")
            how = (f"{len(ks)} kernels with ? lowered once ({cube} cube, {len(ks) - cube} vector "
                   "tiling functions)")
        else:
            how = "fused and laid out per shape"
        return (f"tiling at dispatch: {self.hits} hits, {self.misses} misses of the shape cache "
                f"({len(self.cache)} shapes tiled{evicted}); tiling solver cache: {solver}; "
                f"kernels: {how}")



# --- kernels lowered once, with `?` (issue 16 item 3) ----------------------------------------
#
# The passes of the tiling function before cann-to-kernel (fuse, [set-precision],
# assign-layouts) run once, at compile time: at the ranges' smallest and largest shapes, and
# the two results are generalized into one function whose types keep `?` where the two differ
# (`generalize`; storage shapes follow from the origin shapes through the format rule).  Each op
# of it becomes a `kernel.dispatch` (dialects/kernel.py): `?` types, the op, and its tiling
# function (solver, symbolic operand dims).  At dispatch (`concretize`) the result shapes of
# each op come from its verifier's shape rule (dialects/cann/base.py `inferred_result_shapes`) at
# the concrete operand shapes, and only the tiling passes run: pack-launches (a pack's core
# shares are a tiling decision and depend on the shape), cann-to-kernel (the same tiling solver,
# cached by shape) and plan-memory.  When the two compile-time results differ in structure, or the
# shape rules do not reproduce them, the whole tiling function runs per shape as before
# (`Dispatcher.fallback` says why).

KERNELS_ATTR = "cann.dispatch_kernels"
LOWERING_PASSES = ("pack-launches", "cann-to-kernel", "plan-memory")


class NotGeneral(Exception):
    """The layouts at two shapes do not generalize into one `?` function: why, and where."""

    def __init__(self, why: str, op=None):
        super().__init__(why)
        self.op = op


def split_passes(passes):
    """(the passes run once at compile time, the lowering run per shape)."""
    k = next((i for i, p in enumerate(passes) if p.name in LOWERING_PASSES), len(passes))
    return list(passes[:k]), list(passes[k:])


def _general_dims(a, b) -> list[int]:
    return [x if x == y else -1 for x, y in zip(a, b)]


def _type_dims(dims) -> list[int]:
    """Dimensions for a TensorType: xDSL's DYNAMIC_INDEX (printed `?`) for each dynamic one."""
    from xdsl.dialects.builtin import DYNAMIC_INDEX

    return [DYNAMIC_INDEX if d < 0 else int(d) for d in dims]


def _general_type(ta, tb, where):
    from compiler.target.formats import storage_shape
    from dialects.cann import FormatAttr
    from dialects.common import numpy_dtype

    if ta == tb:
        return ta
    if not (isinstance(ta, TensorType) and isinstance(tb, TensorType)) or \
            ta.element_type != tb.element_type or len(ta.get_shape()) != len(tb.get_shape()):
        raise NotGeneral(f"types {ta} and {tb} differ beyond their dimensions", where)
    fa, fb = ta.encoding, tb.encoding
    if isinstance(fa, FormatAttr) and isinstance(fb, FormatAttr) and fa.origin_fmt is not None:
        if (fa.fmt, fa.origin_fmt, fa.groups, fa.grouped_conv) != \
                (fb.fmt, fb.origin_fmt, fb.groups, fb.grouped_conv) or len(fa.origin) != len(fb.origin):
            raise NotGeneral(f"formats {fa} and {fb} differ", where)
        origin = _general_dims(fa.origin, fb.origin)
        enc = FormatAttr(fa.fmt, fa.origin_fmt, origin, fa.groups.data, fa.is_grouped_conv)
        shape = storage_shape(fa.fmt, fa.origin_fmt, tuple(origin), numpy_dtype(ta.element_type),
                              fa.groups.data, fa.is_grouped_conv)
        return TensorType(ta.element_type, _type_dims(shape), enc)
    if fa != fb:
        raise NotGeneral(f"encodings {fa} and {fb} differ", where)
    return TensorType(ta.element_type, _type_dims(_general_dims(ta.get_shape(), tb.get_shape())),
                      ta.encoding)


def generalize(lo: ModuleOp, hi: ModuleOp) -> ModuleOp:
    """One module with `?` wherever the same module at two shapes differs in a dimension
    (a Reshape's target too: one differing entry becomes numpy's -1); NotGeneral when the two
    differ in anything else."""
    from dialects.common import int_array, ints

    out = hi.clone()
    ops_lo, ops_hi, ops_out = list(lo.walk()), list(hi.walk()), list(out.walk())
    if [o.name for o in ops_lo] != [o.name for o in ops_hi]:
        raise NotGeneral("the ops differ (fusion or layouts depend on the shape)")
    index_lo: dict[SSAValue, tuple[int, ...]] = {}
    index_hi: dict[SSAValue, tuple[int, ...]] = {}
    for k, (a, b) in enumerate(zip(ops_lo, ops_hi)):
        for j, (ra, rb) in enumerate(zip(a.results, b.results)):
            index_lo[ra], index_hi[rb] = (k, j), (k, j)
        for r, (ga, gb) in enumerate(zip(a.regions, b.regions)):
            for bi, (ba, bb) in enumerate(zip(ga.blocks, gb.blocks)):
                for j, (xa, xb) in enumerate(zip(ba.args, bb.args)):
                    index_lo[xa], index_hi[xb] = (k, r, bi, j), (k, r, bi, j)
    retype = []
    for a, b, o in zip(ops_lo, ops_hi, ops_out):
        if [index_lo.get(v) for v in a.operands] != [index_hi.get(v) for v in b.operands]:
            raise NotGeneral(f"{a.name}: the operands differ", o)
        for key in set(a.properties) | set(b.properties):
            pa, pb = a.properties.get(key), b.properties.get(key)
            if pa == pb or (isinstance(a, func.FuncOp) and key == "function_type"):
                continue
            if key == "shape" and isinstance(pa, DenseArrayBase) and isinstance(pb, DenseArrayBase) \
                    and len(ints(pa)) == len(ints(pb)):
                dims = _general_dims(ints(pa), ints(pb))
                if dims.count(-1) <= 1:
                    o.properties["shape"] = int_array(dims)
                    continue
            raise NotGeneral(f"{a.name}: '{key}' differs ({pa} and {pb})", o)
        if a.attributes.keys() != b.attributes.keys():
            raise NotGeneral(f"{a.name}: the attributes differ", o)
        for ra, rb, ro in zip(a.results, b.results, o.results):
            retype.append((ro, _general_type(ra.type, rb.type, o)))
        for ga, gb, go in zip(a.regions, b.regions, o.regions):
            for ba, bb, bo in zip(ga.blocks, gb.blocks, go.blocks):
                for xa, xb, xo in zip(ba.args, bb.args, bo.args):
                    retype.append((xo, _general_type(xa.type, xb.type, o)))
    for v, t in retype:
        if v.type != t:
            Rewriter.replace_value_with_new_type(v, t)
    _retype_funcs(out)
    return out


def _retype_funcs(module: ModuleOp) -> None:
    for f in module.walk():
        if isinstance(f, func.FuncOp) and f.body.blocks:
            block = block_of(f.body)
            ret = block.last_op
            if isinstance(ret, func.ReturnOp):
                f.function_type = func.FunctionType.from_lists([a.type for a in block.args],
                                                               [v.type for v in ret.operands])


def _symbolic_dims(values) -> list[tuple[int, int]]:
    return [(i, d) for i, v in enumerate(values) if isinstance(v.type, TensorType)
            for d, x in enumerate(v.type.get_shape()) if x < 0]


def to_dispatch_kernels(module: ModuleOp) -> ModuleOp:
    """Each op of @main (constants aside) as a `kernel.dispatch` with its tiling function."""
    from xdsl.ir import Block, Region

    from compiler.ir.entry import main_func
    from dialects import cann
    from dialects.kernel import DispatchOp, TilingFnAttr, YieldOp
    from dialects.op_kinds import is_cube

    out = module.clone()
    block = block_of(main_func(out).body)
    for op in list(block.ops):
        if isinstance(op, (func.ReturnOp, cann.ConstOp)):
            continue
        body = Block(arg_types=[v.type for v in op.operands])
        fn = TilingFnAttr("cube" if is_cube(op) else "vector", _symbolic_dims(op.operands))
        k = DispatchOp(list(op.operands), [r.type for r in op.results], fn, Region(body))
        Rewriter.insert_op(k, _before(op))
        for r, kr in zip(op.results, k.results):
            r.replace_all_uses_with(kr)
        op.detach()
        op.operands = list(body.args)
        body.add_ops([op, YieldOp()])
    return out


def _node(op) -> str:
    from compiler.ir.diagnostics import node_name

    name = node_name(op) if op is not None else None
    return f" [node '{name}']" if name else ""


def _before(op):
    from xdsl.rewriter import InsertPoint

    return InsertPoint.before(op)


def concretize(kernels: ModuleOp, shapes: dict[str, list[int]]) -> ModuleOp:
    """The cann-level function the `kernel.dispatch` ops of `kernels` compute, at these input
    shapes: each op's result shapes from its verifier's shape rule."""
    from compiler.ir.entry import io_names, main_func
    from dialects.kernel import DispatchOp

    module = kernels.clone()
    for key in (RANGES_ATTR, PIPELINE_ATTR, SOURCE_ATTR, KERNELS_ATTR):
        module.attributes.pop(key, None)
    fn = main_func(module)
    block = block_of(fn.body)
    for name, arg in zip(io_names(fn)[0], block.args, strict=True):
        if any(d < 0 for d in shape_of(arg)):  # shapes: the inputs' origin shapes
            Rewriter.replace_value_with_new_type(arg, with_origin_shape(tensor_of(arg), shapes[name]))
    for k in list(block.ops):
        if not isinstance(k, DispatchOp):
            continue
        op = k.computes
        op.detach()
        op.operands = list(k.inputs)
        Rewriter.insert_op(op, _before(k))
        for r, kr in zip(op.results, k.results):
            kr.replace_all_uses_with(r)
        k.detach()
        k.erase()
        _infer(op)
    _retype_funcs(module)
    return module


def _dynamic(v) -> bool:
    return isinstance(v.type, TensorType) and any(d < 0 for d in v.type.get_shape())


def _infer(op) -> None:
    """Give `op`'s `?` results the shapes its verifier's rule computes from its (concrete)
    operands; a fused kernel's body first (its arguments are its inputs' origin types)."""
    from compiler.ir.diagnostics import OpError
    from dialects.cann import inferred_result_shapes, origin_tensor_type

    for region in op.regions:
        for block in region.blocks:
            if len(block.args) == len(op.operands):
                for a, v in zip(list(block.args), op.operands):
                    if _dynamic(a):
                        Rewriter.replace_value_with_new_type(a, origin_tensor_type(v.type))
            for inner in block.ops:
                _infer(inner)
    if not any(_dynamic(r) for r in op.results):
        return
    want = inferred_result_shapes(op)
    if want is None or any(d < 0 for s in want for d in s):
        raise OpError([(op, f"{op.name}: no shape rule gives its result shapes at dispatch")])
    for r, s in zip(list(op.results), want):
        new = with_origin_shape(r.type, s)
        if new != r.type:
            Rewriter.replace_value_with_new_type(r, new)
    _concrete_shape_prop(op)


def with_origin_shape(t: TensorType, shape) -> TensorType:
    """`t` with origin (framework) shape `shape`: a stored type's storage shape follows from
    its format rule."""
    from compiler.target.formats import storage_shape
    from dialects.cann import FormatAttr
    from dialects.common import numpy_dtype

    f = t.encoding
    if isinstance(f, FormatAttr) and f.origin_fmt is not None:
        enc = FormatAttr(f.fmt, f.origin_fmt, shape, f.groups.data, f.is_grouped_conv)
        st = storage_shape(f.fmt, f.origin_fmt, tuple(shape), numpy_dtype(t.element_type),
                           f.groups.data, f.is_grouped_conv)
        return TensorType(t.element_type, list(st), enc)
    return TensorType(t.element_type, [int(d) for d in shape], t.encoding)
