"""Shapes inside functions: refine the argument and result shapes of If / Case / While branch,
cond and body functions (and PartitionedCall callees) from their call sites.

TensorFlow's own graph shape inference stops at a function boundary: a `tf.function` traced with
an unknown shape (or a frozen graph whose functions lost their `_output_shapes`) leaves branch and
body arguments `tensor<*x...>` and the control op's results unknown, even when every call site is
static.  This module does what TensorFlow's shape inference for functional ops does
(`tf-shape-inference` in TensorFlow's MLIR bridge), on the GraphDef, before the import proper:

* a branch / callee function's argument shapes are its call sites' operand shapes (several call
  sites: their most specific common shape); its result shapes come from TensorFlow's shape
  inference on the function body built with those argument shapes;
* a While's loop-variable shapes are the fixpoint of relaxing the initial shapes with the body's
  results (loop invariance): a dimension that really changes across iterations becomes unknown;
* an If / Case result is the most specific shape common to its branches;
* the refined shapes are written as the functions' argument shapes (`_input_shapes`, and the
  `_output_shapes` argument attributes) and as `_output_shapes` on the call nodes (TensorFlow's
  importer refines a node's inferred shape with it), then the graph is re-inferred so that
  everything downstream of a control op is refined too.  Nested control flow is refined
  function by function, outermost first.

A refined shape is always compatible with what TensorFlow inferred (it is merged with it), so
this never changes what the graph computes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CONDITIONALS = {"If": ("then_branch", "else_branch"), "StatelessIf": ("then_branch", "else_branch"),
                "Case": ("branches",), "StatelessCase": ("branches",)}
LOOPS = {"While", "StatelessWhile"}
CALLS = {"PartitionedCall", "StatefulPartitionedCall"}
FUNCTIONAL = set(CONDITIONALS) | LOOPS | CALLS

#: rounds of re-inference per graph, loop fixpoint iterations (a dim can only relax, so a loop
#: variable of rank r settles within r + 2 rounds; the bound only guards malformed input)
MAX_ROUNDS = 16
MAX_DEPTH = 32  # nested functions (recursion is reported by tf-to-cann, not here)


def has_functional_ops(graph_def: Any) -> bool:
    return any(n.op in FUNCTIONAL for n in graph_def.node) or any(
        n.op in FUNCTIONAL for f in graph_def.library.function for n in f.node_def)


def _key(shapes) -> tuple:
    return tuple(s.as_proto().SerializeToString() for s in shapes)


class _Refiner:
    def __init__(self, tf: Any, library: Any):
        self.tf = tf
        self.library = {f.signature.name: f for f in library.function}
        self.sites: dict[str, dict[tuple, list[Any]]] = {}  # function -> call site -> shapes
        self.built: dict[str, tuple] = {}  # function -> the argument shapes it was built with
        self.results: dict[str, list[Any]] = {}  # function -> its result shapes for those
        self.written: dict[str, list[Any]] = {}  # function -> NodeDefs given _output_shapes
        self.declared: dict[str, list[Any]] = {}  # function -> its own argument shapes
        self.outer: Any = None
        self.depth = 0

    # --- one graph: the main graph or a function body ---------------------------------------

    def refine_graph(self, graph: Any, node_defs: dict[str, Any], caller: str) -> bool:
        """Refine the control ops of `graph` (a tf.Graph); write `_output_shapes` on their
        NodeDefs in `node_defs`.  True if any NodeDef changed (the graph must be re-inferred)."""
        changed = False
        for op in graph.get_operations():
            node = node_defs.get(op.name)
            if node is None or op.type not in FUNCTIONAL:
                continue
            try:
                result = self.call_site(op, node, (caller, op.name))
            except _Unrefinable:
                continue
            if result is not None and self.set_output_shapes(op, node, result):
                self.written.setdefault(caller, []).append(node)
                changed = True
        return changed

    def call_site(self, op: Any, node: Any, site: tuple) -> list[Any] | None:
        shapes = [t.shape for t in op.inputs]
        if op.type in CONDITIONALS:
            names = self.branch_names(node, CONDITIONALS[op.type])
            found = [self.function_results(n, site, shapes[1:]) for n in names]
            branches = [o for o in found if o is not None]
            if len(branches) != len(found):
                return None
            merged = branches[0]
            for o in branches[1:]:
                if len(o) != len(merged):
                    return None
                merged = [a.most_specific_compatible_shape(b) for a, b in zip(merged, o)]
            return merged
        if op.type in LOOPS:
            body, cond = node.attr["body"].func.name, node.attr["cond"].func.name
            for _ in range(MAX_ROUNDS):
                outs = self.function_results(body, site, shapes)
                if outs is None or len(outs) != len(shapes):
                    return None
                new = [a.most_specific_compatible_shape(b) for a, b in zip(shapes, outs)]
                if _key(new) == _key(shapes):
                    break
                shapes = new
            self.function_results(cond, site, shapes)
            return shapes
        return self.function_results(node.attr["f"].func.name, site, shapes)

    @staticmethod
    def branch_names(node: Any, keys: tuple[str, ...]) -> list[str]:
        if keys == ("branches",):
            return [f.name for f in node.attr["branches"].list.func]
        return [node.attr[k].func.name for k in keys]

    def set_output_shapes(self, op: Any, node: Any, result: list[Any]) -> bool:
        if len(result) != len(op.outputs):
            return False
        merged = []
        for t, s in zip(op.outputs, result):
            if not t.shape.is_compatible_with(s):
                return False
            merged.append(t.shape.merge_with(s))
        if all(_key([m]) == _key([t.shape]) for m, t in zip(merged, op.outputs)):
            return False
        lst = node.attr["_output_shapes"].list
        lst.Clear()
        for s in merged:
            lst.shape.add().CopyFrom(s.as_proto())
        return True

    # --- functions ----------------------------------------------------------------------------

    def merged(self, name: str) -> list[Any]:
        shapes: list[Any] | None = None
        for s in self.sites[name].values():
            shapes = s if shapes is None else [a.most_specific_compatible_shape(b)
                                               for a, b in zip(shapes, s)]
        if shapes is None:
            raise KeyError(f"function {name} has no call site")
        return shapes

    def function_results(self, name: str, site: tuple, shapes: list[Any]) -> list[Any] | None:
        fdef = self.library.get(name)
        if fdef is None or len(fdef.signature.input_arg) != len(shapes):
            return None
        self.sites.setdefault(name, {})[site] = shapes
        return self.build(name, self.merged(name))

    def build(self, name: str, shapes: list[Any]) -> list[Any]:
        """The function's result shapes with these argument shapes (built and refined anew
        when they differ from the last ones)."""
        key = _key(shapes)
        if self.built.get(name) == key:
            return self.results[name]
        if self.depth >= MAX_DEPTH:
            raise _Unrefinable
        fdef = self.library[name]
        for node in self.written.pop(name, []):  # refined for other argument shapes
            del node.attr["_output_shapes"]
        self.depth += 1
        try:
            self.set_arg_shapes(fdef, shapes)
            graph = self.function_graph(fdef)
            nodes = {n.name: n for n in fdef.node_def}
            for _ in range(MAX_ROUNDS):
                if not self.refine_graph(graph, nodes, name):
                    break
                graph = self.function_graph(fdef)
            outs = [t.shape for t in graph.outputs]
        finally:
            self.depth -= 1
        self.built[name], self.results[name] = key, outs
        return outs

    def stale(self) -> list[str]:
        """Functions last built with other shapes than their call sites' (now) merged ones."""
        return [n for n in self.sites if self.built.get(n) != _key(self.merged(n))]

    def function_graph(self, fdef: Any) -> Any:
        from tensorflow.python.framework.function_def_to_graph import function_def_to_graph

        try:
            with self.outer.as_default():
                return function_def_to_graph(fdef)
        except Exception:  # noqa: BLE001 - the importer reports a malformed function itself
            raise _Unrefinable from None

    def set_arg_shapes(self, fdef: Any, shapes: list[Any]) -> None:
        """The call sites' shapes, merged with what the function declares, as its argument
        shapes (function_def_to_graph reads `_output_shapes` of an argument first)."""
        name = fdef.signature.name
        if name not in self.declared:  # before the first rewrite: what the function says
            self.declared[name] = [self.declared_shape(fdef, i) for i in range(len(shapes))]
        final = []
        for i, (s, declared) in enumerate(zip(shapes, self.declared[name])):
            if declared is not None and declared.is_compatible_with(s):
                s = declared.merge_with(s)
            final.append(s)
            if declared is not None:
                attr = fdef.arg_attr[i].attr["_output_shapes"]
                attr.Clear()
                attr.list.shape.add().CopyFrom(s.as_proto())
        lst = fdef.attr["_input_shapes"].list
        lst.Clear()
        for s in final:
            lst.shape.add().CopyFrom(s.as_proto())

    def declared_shape(self, fdef: Any, i: int) -> Any:
        if i not in fdef.arg_attr or "_output_shapes" not in fdef.arg_attr[i].attr:
            return None
        v = fdef.arg_attr[i].attr["_output_shapes"]
        kind = v.WhichOneof("value")
        proto = v.list.shape[0] if kind == "list" and v.list.shape else \
            v.shape if kind == "shape" else None
        return self.tf.TensorShape(proto) if proto is not None else None


class _Unrefinable(Exception):
    """A call site whose callee cannot be built here: it keeps TensorFlow's shapes."""


def refine_function_shapes(tf: Any, graph_def: Any, graph: Any,
                           reimport: Callable[[Any], Any]) -> tuple[Any, Any] | None:
    """(refined copy of graph_def, its re-inferred tf.Graph), or None when nothing changed.
    `graph` is graph_def imported by TensorFlow; `reimport(graph_def)` imports a GraphDef."""
    if not has_functional_ops(graph_def):
        return None
    out = tf.compat.v1.GraphDef()
    out.CopyFrom(graph_def)
    refiner = _Refiner(tf, out.library)
    nodes = {n.name: n for n in out.node}
    for _ in range(MAX_ROUNDS):
        refiner.outer = graph
        changed = refiner.refine_graph(graph, nodes, "")
        for name in refiner.stale():  # a call site seen after the function was built
            refiner.build(name, refiner.merged(name))
            changed = True
        if not changed:
            break
        graph = reimport(out)
    if not refiner.sites:
        return None
    return out, reimport(out)  # the graph carries the refined library
