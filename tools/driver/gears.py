"""ATC's shape gears: --dynamic_batch_size, --dynamic_image_size, --dynamic_dims.

A gear ("档位", profile) is one concrete shape of the inputs whose --input_shape has -1s.
cann-compile compiles one static kernel graph per gear, from one import of the model file, and
writes them into one multi-gear .om (compiler/backend/gear_model.py) that stores the weights once
and has ATC's extra input `ascend_mbatch_shape_data`; cann-run picks the gear from the inputs'
shapes (or from that input).

    --input_shape="x:-1,224,224,3" --dynamic_batch_size="1,2,4,8"
    --input_shape="x:1,-1,-1,3" --dynamic_image_size="224,224;320,320" [--input_format=NHWC]
    --input_shape="x:1,-1,64" --dynamic_dims="16;32;64" --input_format=ND

The syntax and the constraints are ATC's (docs/atc-options.md cites the pages):

- each option needs --input_shape, and the three exclude each other (and shape ranges);
- 2 to 100 gears ("档位数取值范围为(1,100]"; the Atlas 350 card allows 256, no chip of
  compiler/target/chips.py is one);
- --dynamic_batch_size "b1,b2,...": -1 only in the first dimension of an input; ATC bounds
  each batch to [1, 2048];
- --dynamic_image_size "h1,w1;h2,w2": -1 at H and W of a 4-d input, for --input_format NCHW or
  NHWC only (ATC: other formats use --dynamic_dims).  Without --input_format, NHWC (TensorFlow's
  layout; cann-compile's --input_format check makes it the model's);
- --dynamic_dims "d1,d2;d3,d4": needs --input_format=ND; each gear gives one value per -1 of
  --input_shape, in order across the inputs as listed.

A -1 without a gear option, or a gear option without a -1 where it applies, is an error.  Two
identical gears are an error too (the ATC pages do not say; a gear chosen by shape must be one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from compiler.frontend.shape_spec import parse_named_shapes
from compiler.ir.diagnostics import CompileError
from tools.driver.atc_options import option_error

GEAR_OPTIONS = ("dynamic_batch_size", "dynamic_image_size", "dynamic_dims")
#: ATC: "档位数取值范围为(1,100]" (at least 2, at most 100 gears), for all three options.
MIN_GEARS, MAX_GEARS = 2, 100
#: ATC --dynamic_batch_size: "The value range of each batch size is [1, 2048]".
MAX_BATCH = 2048
#: (H, W) positions of --dynamic_image_size per --input_format.
HW_AXES = {"NHWC": (1, 2), "NCHW": (2, 3)}


@dataclass(frozen=True)
class GearSpec:
    option: str
    """dynamic_batch_size, dynamic_image_size or dynamic_dims."""
    value: str
    """The option's text, as given."""
    template: dict[str, list[int]]
    """--input_shape, -1 where the gears fill in."""
    gears: tuple[tuple[int, ...], ...]
    """Each gear's values: (batch,), (h, w) or (d1, ..., dn)."""

    def shapes(self, k: int) -> dict[str, list[int]]:
        """The concrete input shapes of gear k."""
        values = self.gears[k]
        out: dict[str, list[int]] = {}
        pos = 0
        for name, dims in self.template.items():
            new = list(dims)
            holes = [i for i, d in enumerate(dims) if d == -1]
            if self.option == "dynamic_batch_size":
                for i in holes:
                    new[i] = values[0]
            elif self.option == "dynamic_image_size":  # an input's -1s are (H, W), in order
                for i, v in zip(holes, values, strict=True):
                    new[i] = v
            else:  # dynamic_dims: the values fill the -1s in order across the inputs
                for i in holes:
                    new[i] = values[pos]
                    pos += 1
            out[name] = new
        return out

    def describe(self, k: int) -> str:
        """`x:1,224,224,3;y:1,4`: gear k as --input_shape would say it."""
        return ";".join(f"{n}:{','.join(map(str, s))}" for n, s in self.shapes(k).items())

    def value_text(self, k: int) -> str:
        return ",".join(map(str, self.gears[k]))


def gear_option(args) -> str | None:
    """The gear option given (cann-compile's _rejected has checked they exclude each other)."""
    given = [o for o in GEAR_OPTIONS if getattr(args, o, None) is not None]
    return given[0] if given else None


def _positive(option: str, value: str, text: str) -> int:
    t = text.strip()
    if not t.isdigit() or int(t) == 0:
        raise option_error(option, value, f"'{t}' is not a positive integer")
    return int(t)


def parse_gear_input_shape(spec: str, option: str) -> dict[str, list[int]]:
    """--input_shape with -1s (`x:-1,224,224,3;y:`; `name:` is a scalar, which ATC asks to list
    with the gears).  A range (`1~16`) is not a gear: ATC forbids ranges with gears."""
    def bad(why: str) -> CompileError:
        return option_error("input_shape", spec, why)

    def dim(part: str, d: str) -> int:
        if "~" in d:
            raise bad(f"'{part}': the range '{d}' cannot be used with --{option} (ATC forbids "
                      "shape ranges with gears)")
        if d == "-1":
            return -1
        if not d.isdigit() or int(d) == 0:
            raise bad(f"'{part}': dimension '{d}' is not a positive integer or -1")
        return int(d)

    return parse_named_shapes(spec, bad, dim, scalars=True)


def _gear_values(option: str, value: str, per_gear: int | None) -> tuple[tuple[int, ...], ...]:
    if option == "dynamic_batch_size":
        items: list[tuple[int, ...]] = [(_positive(option, value, t),) for t in value.split(",")]
        for (b,) in items:
            if b > MAX_BATCH:
                raise option_error(option, value, f"batch size {b} is above ATC's limit {MAX_BATCH}")
    else:
        items = []
        for g in value.split(";"):
            if not g.strip():
                raise option_error(option, value, "an empty gear (gears are separated by ';')")
            items.append(tuple(_positive(option, value, t) for t in g.split(",")))
        for gear in items:
            if per_gear is not None and len(gear) != per_gear:
                what = ("h,w" if option == "dynamic_image_size"
                        else f"{per_gear} value(s), one per -1 of --input_shape")
                raise option_error(option, value, f"gear '{','.join(map(str, gear))}' has {len(gear)} "
                           f"value(s); each gear is {what}")
    if not MIN_GEARS <= len(items) <= MAX_GEARS:
        raise option_error(option, value, f"{len(items)} gear(s); ATC takes {MIN_GEARS} to {MAX_GEARS}")
    seen: set[tuple[int, ...]] = set()
    for gear in items:
        if gear in seen:
            raise option_error(option, value, f"gear '{','.join(map(str, gear))}' is given twice")
        seen.add(gear)
    return tuple(items)


def parse_gears(args) -> GearSpec | None:
    """The gears of cann-compile's arguments, checked (None: no gear option).  A -1 in
    --input_shape without a gear option is left to parse_input_shape's error."""
    option = gear_option(args)
    if option is None:
        return None
    value = getattr(args, option)
    if not args.input_shape:
        raise option_error(option, value, "needs --input_shape with -1 where the gears apply (ATC)")
    template = parse_gear_input_shape(args.input_shape, option)
    holes = [(n, i) for n, dims in template.items() for i, d in enumerate(dims) if d == -1]
    if not holes:
        raise option_error("input_shape", args.input_shape, f"no dimension is -1: --{option} needs -1 "
                   "where the gears apply")
    fmt = args.input_format
    if option == "dynamic_dims" and getattr(args, "insert_op_conf", None):
        raise CompileError("--dynamic_dims and --insert_op_conf cannot be used together (ATC "
                           "forbids it)")
    if option == "dynamic_batch_size":
        for name, i in holes:
            if i != 0:
                raise option_error("input_shape", args.input_shape, f"'{name}' has -1 in dimension {i}: "
                           "with --dynamic_batch_size, -1 stands only in the first (batch) "
                           "dimension (ATC; use --dynamic_dims for others)")
        gears = _gear_values(option, value, 1)
    elif option == "dynamic_image_size":
        fmt = fmt or "NHWC"
        if fmt not in HW_AXES:
            raise option_error(option, value, f"needs --input_format NCHW or NHWC, got {fmt} (ATC; use "
                       "--dynamic_dims for other layouts)")
        hw = HW_AXES[fmt]
        for name, dims in template.items():
            at = tuple(i for i, d in enumerate(dims) if d == -1)
            if at and (len(dims) != 4 or at != hw):
                raise option_error("input_shape", args.input_shape, f"'{name}': with "
                           f"--dynamic_image_size and {fmt}, -1 stands at H and W (dimensions "
                           f"{hw[0]} and {hw[1]} of a 4-d shape) and nowhere else")
        gears = _gear_values(option, value, 2)
        if getattr(args, "insert_op_conf", None):
            from compiler.frontend.aipp_config import check_image_size_gears, parse_aipp_config

            check_image_size_gears(parse_aipp_config(args.insert_op_conf))
    else:
        if fmt != "ND":
            raise option_error(option, value, f"needs --input_format=ND (ATC), got "
                       f"{fmt or 'no --input_format'}")
        gears = _gear_values(option, value, len(holes))
    return GearSpec(option, value, template, gears)


# --- compiling ------------------------------------------------------------------------------

def gear_imports(path: str, spec: GearSpec, outputs: list[str] | None,
                 warn: Callable[[str], None]) -> Iterator[tuple[int, object]]:
    """(gear, tf-level module) for each gear, from one read of the model file: the GraphDef is
    parsed once (weights detached once, shared by every gear's IR without a copy) and the
    importer runs on it once per gear with that gear's --input_shape, so TensorFlow's shape
    inference reruns on the concrete shapes.  Warnings are given once."""
    import os

    from compiler.frontend.importers.graphdef import import_graphdef

    weights: dict[str, bytes]
    if path.endswith(".mlir"):  # tf-level IR: exported, so TensorFlow's shape inference reruns
        from compiler.frontend.exporters.graphdef import graphdef_of_tf_mlir

        graph_def, mlir_outs = graphdef_of_tf_mlir(path, f"--{spec.option}")
        weights, outputs = {}, outputs or mlir_outs
    elif os.path.isdir(path):
        from compiler.frontend.tf_loader import load_saved_model_graphdef

        graph_def, weights = load_saved_model_graphdef(path), {}
    elif path.endswith(".keras"):
        from compiler.frontend.tf_loader import load_keras_graphdef

        graph_def, weights = load_keras_graphdef(path), {}
    elif path.endswith((".pb", ".pbtxt")):
        from compiler.frontend.tf_loader import read_graphdef_file_lean

        graph_def, weights = read_graphdef_file_lean(path)
    else:
        raise CompileError(f"{path}: error: --model must be a frozen GraphDef (.pb, .pbtxt), a "
                           "SavedModel directory or a .keras file")
    said: set[str] = set()

    def once(line: str) -> None:
        if line not in said:
            said.add(line)
            warn(line)

    for k in range(len(spec.gears)):
        try:
            module = import_graphdef(graph_def, path, input_shapes=spec.shapes(k),
                                     outputs=outputs, warn=once, weights=weights)
        except CompileError as e:
            raise CompileError([f"{m} (gear {k}: {spec.describe(k)})" for m in e.messages]) from None
        yield k, module


def compile_gears(args, spec: GearSpec, compile_one, log_step, warn, print_spec=None) -> list:
    """The planned kernel module of every gear.  `compile_one(args, log_step, print_spec,
    imported=module)` is cann-compile's compile_model (the pipeline a static compile runs)."""
    import time

    modules = []
    imports = gear_imports(args.model, spec, _outs(args), warn)
    while True:
        t0 = time.perf_counter()
        k, module = next(imports, (None, None))
        if module is None or k is None:
            break
        log_step(f"gear {k} importer", time.perf_counter() - t0)

        def step(name: str, dt: float, k=k) -> None:
            log_step(f"gear {k} {name}", dt)

        try:
            planned, _, _ = compile_one(args, step, print_spec if k == 0 else None,
                                        imported=module)
        except CompileError as e:
            raise CompileError([f"{m} (gear {k}: {spec.describe(k)})" for m in e.messages]) from None
        modules.append(planned)
    return modules


def compile_gears_to_om(args, spec: GearSpec, compile_one, log_step, warn, out: str) -> int:
    """cann-compile --mode=0 with gears: compile every gear, write the multi-gear .om, print
    what it holds (and --report per gear)."""
    import os
    import sys
    import time

    from compiler.backend.gear_model import MBATCH_INPUT, write_gears
    from compiler.backend.memory_plan import read_plan
    from compiler.ir.entry import main_func

    if args.dump_graph:
        raise CompileError(f"--dump-graph draws one graph: it cannot be used with --{spec.option} "
                           "(compile one gear with its --input_shape to draw it)")
    t_all = time.perf_counter()
    modules = compile_gears(args, spec, compile_one, log_step, warn,
                            (lambda s: print(s)) if args.print_pipeline else None)
    t0 = time.perf_counter()
    name = args.name or os.path.splitext(os.path.basename(out))[0]
    size, stats = write_gears(modules, spec, out, name)
    log_step("write .om", time.perf_counter() - t0)
    print(f"{out}: {size} bytes, {len(modules)} gears (--{spec.option}={spec.value}), weights "
          f"{stats['weight_bytes']} B stored once ({stats['weight_bytes_all_gears']} B over the "
          f"gears), compiled in {time.perf_counter() - t_all:.2f} s")
    for k, m in enumerate(modules):
        plan = read_plan(main_func(m))
        print(f"  gear {k} ({MBATCH_INPUT} = [{spec.value_text(k)}]) {spec.describe(k)}: "
              f"{len(plan.collected.launches)} kernels, arena {plan.arena} B")
    if args.report or args.report_json:
        from compiler.backend.perf_report import perf_report

        reports = [perf_report(m) for m in modules]
        if args.report:
            for k, rep in enumerate(reports):
                print(f"== gear {k}: {spec.describe(k)}")
                sys.stdout.write(rep.to_text())
        if args.report_json:
            from compiler.ir.ir_io import write_atomically

            write_atomically(args.report_json, lambda: '{"gears": [' + ", ".join(
                rep.to_json() for rep in reports) + "]}\n")
    return 0


def _outs(args) -> list[str] | None:
    from tools.driver.atc_options import parse_out_nodes

    return parse_out_nodes(args.out_nodes) if args.out_nodes else None


def pre_check_gears(path: str, spec: GearSpec, outputs: list[str] | None, pre_check) -> dict:
    """--mode=3 with gears: model_info.pre_check at every gear's shapes, in one result; each
    unsupported entry says its gear (`gear`, `gear_shape`), an entry of every gear once."""
    merged: dict | None = None
    seen: set[tuple] = set()
    for k in range(len(spec.gears)):
        r = pre_check(path, spec.shapes(k), outputs)
        if merged is None:
            merged = {**r, "unsupported": [], "gears": len(spec.gears)}
        for u in r["unsupported"]:
            key = (u.get("node"), u.get("stage"), u.get("reason"))
            if key not in seen:
                seen.add(key)
                merged["unsupported"].append({**u, "gear": k, "gear_shape": spec.describe(k)})
    if merged is None:
        raise CompileError(f"{path}: error: no gears")
    merged["unsupported_count"] = len(merged["unsupported"])
    merged["result"] = "success" if not merged["unsupported"] else "failed"
    return merged


# --- choosing the gear at run time ------------------------------------------------------------

def run_gears(args, gears, load_npy) -> int:
    """cann-run on a multi-gear .om with an --input given more than once: one run per value (an
    input given fewer times keeps its last value), each in the gear its inputs' shapes (or its
    ascend_mbatch_shape_data) select, as one loaded model on the device switches gears.  Each
    output line starts with `[gear k: shapes]`."""
    import numpy as np

    from compiler.backend.gear_model import MBATCH_INPUT
    from compiler.backend.offline_model import run_planned
    from compiler.interpreters.aipp_impl import framework_inputs  # AIPP'd raw images
    from compiler.interpreters.execute import check_inputs, random_inputs
    from compiler.ir.entry import input_specs
    from tools.driver.runner import repeated_inputs, report_run

    given = repeated_inputs(args.input, load_npy)
    runs = []
    for k in range(max(len(v) for v in given.values())):
        pick = {n: vs[min(k, len(vs) - 1)] for n, vs in given.items()}
        inputs = {n: v for n, (_, v) in pick.items()}
        files = {n: p for n, (p, _) in pick.items()}
        gear = gears.select(inputs, files)
        module = gears.models[gear].module
        inputs.pop(MBATCH_INPUT, None)
        known = [n for n, _, _ in input_specs(module)]
        for n in inputs:
            if n not in known:
                raise CompileError(f"cann-run: error: unknown input '{n}'; the model's inputs are "
                                   f"{', '.join(known + [MBATCH_INPUT])}")
        check_inputs(module, inputs, files)
        runs.append((gear, module, {**random_inputs(module, args.seed), **inputs}))
    failed = False
    for k, (gear, module, inputs) in enumerate(runs):
        shapes = ";".join(f"{n}:{','.join(map(str, np.shape(v)))}" for n, v in inputs.items())
        prefix = f"[gear {gear}: {shapes}] "
        outputs = run_planned(module, inputs)
        failed |= report_run(args, outputs, framework_inputs(module, inputs), prefix, f"_run{k}")
    return 1 if failed else 0
