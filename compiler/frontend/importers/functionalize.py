"""TF1 control flow -> functional control flow, on the GraphDef (before the import proper).

TF1 graphs (built with control flow v1, or frozen by `convert_variables_to_constants_v2`, which
lowers While/If) express loops as frames (Enter -> Merge -> Switch -> body -> NextIteration ->
Merge, Switch:0 -> Exit, LoopCond) and conditionals as Switch ... Merge.  This module rewrites
them, innermost first, into `While`/`StatelessWhile` and `If`/`StatelessIf` nodes whose
cond/body/branches are new FunctionDefs of the library, so the importer (and the exporter) only
ever see functional control flow:

* a loop frame becomes one While node: its loop variables (non-constant Enters) first, then its
  loop invariants (constant Enters, passed through the body unchanged); the cond function is
  what computes LoopCond's input from the Merges, the body what computes the NextIterations'
  inputs from the Switches' true outputs; Exit k is output k of the While;
* a conditional (the Switches of one predicate, the nodes of each branch, the Merges joining
  them) becomes one If: input 0 the predicate, then one argument per Switch (and per tensor a
  branch reads from outside without a Switch); output j is Merge j;
* shapes: the functions get `_input_shapes`, the new nodes `output_shapes`, computed with
  TensorFlow's shape inference outermost first; a loop variable's shape is the fixpoint of
  relaxing its initial shape with the body's result (a dim that changes across iterations
  becomes unknown: TF1's shape invariants);
* the Placeholders `unused_control_flow_input*` that freezing leaves behind, unread, are
  dropped (reported as a note).

A frame or conditional that is not well structured is an error naming the frame and node; all of
them are reported in one run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from compiler.frontend.importers.tensor_refs import split_input as _split
from compiler.frontend.importers.tensor_refs import tensor_name as _ref
from compiler.frontend.importers.tf1_control_flow import (
    CF_OPS,
    has_tf1_control_flow,
    unused_control_flow_inputs,
)
from compiler.frontend.importers.validate import output_types
from compiler.ir.diagnostics import CompileError

LOOP_BOUNDARY = {"Enter", "Merge", "Switch", "NextIteration", "LoopCond", "Exit"}


class _Fn:
    """A function under construction: a graph (Placeholder args) and its results."""

    def __init__(self, name: str, arg_names: list[str], arg_types: list[int], nodes: list[Any],
                 rets: list[str], ret_types: list[int]):
        self.name, self.arg_names, self.arg_types = name, arg_names, arg_types
        self.nodes, self.rets, self.ret_types = nodes, rets, ret_types
        self.arg_shapes: list[Any] | None = None


class _Functionalizer:
    def __init__(self, tf: Any, graph_def: Any, filename: str):
        from tensorflow.python.framework import op_def_registry

        self.tf, self.filename = tf, filename
        self.registry = op_def_registry
        self.order: list[str] = [n.name for n in graph_def.node]
        self.nodes: dict[str, Any] = {n.name: n for n in graph_def.node}
        self.library = graph_def.library
        self.fns: dict[str, _Fn] = {}
        self.constructs: set[str] = set()  # names of the If/While nodes made here
        self.errors: list[str] = []
        self.fn_names = {f.signature.name for f in graph_def.library.function}
        self.all_names = set(self.order)

    # --- small helpers -------------------------------------------------------------------

    def where(self, node: Any, frame: str | None = None) -> str:
        fr = f" in loop frame '{frame}'" if frame else ""
        return f"{self.filename}: error: node '{node.name}' ({node.op}){fr}"

    def out_types(self, node: Any) -> list[int] | None:
        return output_types(self.registry, node)

    def ref_type(self, ref: str, nodes: dict[str, Any] | None = None) -> int | None:
        src, i, _ = _split(ref)
        node = (nodes or self.nodes).get(src)
        if node is None:
            return None
        types = self.out_types(node)
        return types[i] if types is not None and i < len(types) else None

    def stateful(self, node: Any) -> bool:
        op_def = self.registry.get(node.op)
        return op_def is None or op_def.is_stateful

    def fresh_node_name(self, base: str) -> str:
        name, k = base, 0
        while name in self.all_names:
            k += 1
            name = f"{base}_{k}"
        self.all_names.add(name)
        return name

    def fresh_fn_name(self, base: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", base).strip("_") or "fn"
        name, k = base, 0
        while name in self.fn_names:
            k += 1
            name = f"{base}_{k}"
        self.fn_names.add(name)
        return name

    @staticmethod
    def common_prefix(names: list[str]) -> str:
        parts = [n.split("/")[:-1] for n in names]
        if not parts:
            return ""
        prefix = parts[0]
        for p in parts[1:]:
            k = 0
            while k < min(len(prefix), len(p)) and prefix[k] == p[k]:
                k += 1
            prefix = prefix[:k]
        return "/".join(prefix)

    def is_back_edge(self, node: Any, src: str) -> bool:
        s = self.nodes.get(src)
        return node.op in ("Merge", "RefMerge") and s is not None and \
            s.op in ("NextIteration", "RefNextIteration")

    def topo(self) -> list[str]:
        """Topological order ignoring NextIteration -> Merge back edges (cycles left out)."""
        order: list[str] = []
        state: dict[str, int] = {}
        for root in self.order:
            if root in state:
                continue
            stack = [(root, 0)]
            state[root] = 1
            while stack:
                name, i = stack.pop()
                node = self.nodes[name]
                if i < len(node.input):
                    stack.append((name, i + 1))
                    src = _split(node.input[i])[0]
                    if src in self.nodes and src not in state and not self.is_back_edge(node, src):
                        state[src] = 1
                        stack.append((src, 0))
                else:
                    state[name] = 2
                    order.append(name)
        return order

    def pred_key(self, ref: str) -> str:
        seen = 0
        src, i, _ = _split(ref)
        while self.nodes.get(src) is not None and self.nodes[src].op == "Identity" and seen < 1000:
            src, i, _ = _split(self.nodes[src].input[0])
            seen += 1
        return _ref(src, i) if i else f"{src}:0"

    def is_loop_switch(self, node: Any) -> bool:
        src = _split(self.pred_key(node.input[1]))[0] if len(node.input) > 1 else ""
        return src in self.nodes and self.nodes[src].op == "LoopCond"

    def is_loop_merge(self, node: Any) -> bool:
        return any(self.nodes.get(_split(r)[0]) is not None and
                   self.nodes[_split(r)[0]].op in ("NextIteration", "Enter")
                   for r in node.input if not r.startswith("^"))

    # --- analysis ----------------------------------------------------------------------

    def analyse(self):
        order = self.topo()
        frame: dict[str, str] = {}
        parent: dict[str, str] = {}
        state: dict[str, frozenset] = {}
        bad_state: set[str] = set()
        for name in order:
            node = self.nodes[name]
            ins = [_split(r) for r in node.input]
            ins = [(s, i, c) for s, i, c in ins if s in self.nodes and not self.is_back_edge(node, s)]
            # frames
            if node.op == "Enter":
                f = node.attr["frame_name"].s.decode("utf-8", "replace")
                outer = frame.get(ins[0][0], "") if ins else ""
                if parent.setdefault(f, outer) != outer:
                    self.errors.append(f"{self.where(node, f)}: the frame is entered from two "
                                       f"frames ('{parent[f]}' and '{outer}')")
                frame[name] = f
            elif node.op == "Exit":
                fin = frame.get(ins[0][0], "") if ins else ""
                frame[name] = parent.get(fin, "")
            else:
                fs = {frame.get(s, "") for s, _, _ in ins} - {""}
                if len(fs) > 1:
                    self.errors.append(f"{self.where(node)}: reads from two loop frames "
                                       f"({', '.join(sorted(fs))})")
                frame[name] = min(fs) if fs else ""
            # conditional states: {(predicate, branch)} the node runs under
            st: set = set()
            for s, i, c in ins:
                src = self.nodes[s]
                e = state.get(s, frozenset())
                if src.op == "Switch" and not c and not self.is_loop_switch(src):
                    e = e | {(self.pred_key(src.input[1]), i)}
                st |= e
            if node.op == "Merge" and not self.is_loop_merge(node):
                joined = {p for p, b in st if b == 0 and (p, 1) in st}
                if len(joined) == 1:
                    p = joined.pop()
                    st -= {(p, 0), (p, 1)}
            preds = [p for p, b in st if b == 0 and (p, 1) in st]
            if preds and name not in bad_state:
                bad_state.add(name)
                self.errors.append(f"{self.where(node)}: reads both branches of the conditional "
                                   f"on '{preds[0]}' without a Merge joining them")
            state[name] = frozenset(st)
        return frame, parent, state

    def edge_state(self, state, ref: str) -> frozenset:
        s, i, c = _split(ref)
        src = self.nodes.get(s)
        e = state.get(s, frozenset())
        if src is not None and src.op == "Switch" and not c and not self.is_loop_switch(src):
            e = e | {(self.pred_key(src.input[1]), i)}
        return e

    # --- the driver --------------------------------------------------------------------

    def run(self) -> None:
        failed: dict[str, None] = {}  # messages, in order, without repeats
        done_frames: set[str] = set()
        while True:
            self.errors = []
            frame, parent, state = self.analyse()
            if self.errors:
                raise CompileError(list(dict.fromkeys(self.errors + list(failed))))
            progress = False
            # loops whose frame holds no other construct
            frames: dict[str, list[str]] = {}
            for name in self.order:
                f = frame.get(name, "")
                if f:
                    frames.setdefault(f, []).append(name)
            for f, members in frames.items():
                if f in done_frames or any(parent.get(g) == f for g in frames):
                    continue
                if any((self.nodes[m].op == "Switch" and not self.is_loop_switch(self.nodes[m]))
                       or (self.nodes[m].op == "Merge" and not self.is_loop_merge(self.nodes[m]))
                       for m in members):
                    continue  # a conditional inside the loop first
                errs = self.loop(f, members, frame)
                if errs:
                    failed.update(dict.fromkeys(errs))
                    done_frames.add(f)
                else:
                    progress = True
            if progress:
                continue
            # conditionals whose branches hold no other construct
            clusters: dict[tuple, list[str]] = {}
            for m in self.order:
                node = self.nodes[m]
                if node.op != "Merge" or self.is_loop_merge(node):
                    continue
                st: set = set()
                for r in node.input:
                    if not r.startswith("^"):
                        st |= self.edge_state(state, r)
                joined = [p for p, b in st if b == 0 and (p, 1) in st]
                if len(joined) != 1:
                    failed[f"{self.where(node)}: does not join the two branches of one "
                           "conditional"] = None
                    continue
                clusters.setdefault((joined[0], state[m]), []).append(m)
            for (p, outer), ms in clusters.items():
                errs, did = self.conditionals(p, outer, ms, state)
                failed.update(dict.fromkeys(errs))
                progress |= did
                if did:  # the states are stale now (an outer conditional holds the new If)
                    break
            if not progress:
                break
        if failed:
            raise CompileError(list(failed))
        left = [n for n in self.order if self.nodes[n].op in CF_OPS]
        if left:
            node = self.nodes[left[0]]
            raise CompileError(f"{self.where(node)}: TF1 control flow that could not be "
                               f"functionalized ({len(left)} node(s) left)")

    # --- rewriting ---------------------------------------------------------------------

    def replace_refs(self, mapping: dict[str, str], removed: set[str], new_names: set[str]) -> None:
        for name in self.order:
            if name in new_names:
                continue
            node = self.nodes[name]
            changed = False
            new_inputs = []
            for r in node.input:
                s, i, c = _split(r)
                key = f"^{s}" if c else _ref(s, i)
                if key in mapping:
                    r2 = mapping[key]
                    changed = True
                    if r2 and r2 not in new_inputs:
                        new_inputs.append(r2)
                    continue
                new_inputs.append(r)
            if changed:
                del node.input[:]
                node.input.extend(new_inputs)
            # controls after data inputs
            data = [r for r in node.input if not r.startswith("^")]
            ctrl = [r for r in node.input if r.startswith("^")]
            if list(node.input) != data + ctrl:
                del node.input[:]
                node.input.extend(data + ctrl)

    def remove_and_insert(self, removed: set[str], new_node: Any, at: str) -> None:
        pos = self.order.index(at)
        self.order = [n for n in self.order[:pos] if n not in removed] + [new_node.name] + \
            [n for n in self.order[pos:] if n not in removed]
        for n in removed:
            del self.nodes[n]
        self.nodes[new_node.name] = new_node

    def build_fn(self, base: str, node_names: list[str], arg_map: dict[str, int],
                 arg_types: list[int], drop_ctrl: set[str], rets: list[str | int],
                 ret_types: list[int], outside: Callable[[str], str | None],
                 where: str) -> tuple[_Fn | None, list[str]]:
        """Copy `node_names` into a function graph: references in `arg_map` (`name:i`) become
        Placeholders arg<k>; control inputs from `drop_ctrl` are dropped; other outside
        references go through `outside` (returns a replacement ref, or None = error)."""
        errors: list[str] = []
        inside = set(node_names)
        names = {n for n in inside}
        arg_names = []
        for k in range(len(arg_types)):
            a, j = f"arg{k}", 0
            while a in names:
                j += 1
                a = f"arg{k}_{j}"
            arg_names.append(a)
        nodes = []
        for a, t in zip(arg_names, arg_types):
            ph = self.tf.compat.v1.NodeDef(name=a, op="Placeholder")
            ph.attr["dtype"].type = t
            nodes.append(ph)
        for n in node_names:
            src_node = self.nodes[n]
            node = self.tf.compat.v1.NodeDef()
            node.CopyFrom(src_node)
            del node.input[:]
            for r in src_node.input:
                s, i, c = _split(r)
                if s in inside:
                    node.input.append(r)
                elif c:
                    if s not in drop_ctrl:
                        rep = outside(r)
                        if rep is None:
                            errors.append(f"{where}: node '{n}' has a control input from "
                                          f"'{s}' outside it")
                        elif rep:
                            node.input.append(rep)
                elif _ref(s, i) in arg_map:
                    node.input.append(arg_names[arg_map[_ref(s, i)]])
                else:
                    rep = outside(_ref(s, i))
                    if rep is None:
                        errors.append(f"{where}: node '{n}' ({src_node.op}) reads '{r}', which it "
                                      "cannot reach from inside")
                    else:
                        node.input.append(rep if rep in inside else
                                          arg_names[arg_map[rep]] if rep in arg_map else rep)
            nodes.append(node)
        ret_refs = []
        for r in rets:
            if isinstance(r, int):
                ret_refs.append(arg_names[r])
            else:
                s, i, _ = _split(r)
                ret_refs.append(r if s in inside else arg_names[arg_map[r]] if r in arg_map else "")
                if not ret_refs[-1]:
                    errors.append(f"{where}: result '{r}' is not computed inside it")
        if errors:
            return None, errors
        return _Fn(self.fresh_fn_name(base), arg_names, arg_types, nodes, ret_refs, ret_types), []

    def closure(self, starts: list[str], allowed: Callable[[str], bool]) -> list[str]:
        seen: set[str] = set()
        stack = list(starts)
        while stack:
            n = stack.pop()
            if n in seen or n not in self.nodes or not allowed(n):
                continue
            seen.add(n)
            stack.extend(_split(r)[0] for r in self.nodes[n].input)
        return [n for n in self.order if n in seen]

    # --- loops ---------------------------------------------------------------------------

    def loop(self, f: str, members: list[str], frame: dict[str, str]) -> list[str]:
        names, fn_names = set(self.all_names), set(self.fn_names)
        errs = self._loop(f, members, frame)
        if errs:
            self.all_names, self.fn_names = names, fn_names
        return errs

    def _loop(self, f: str, members: list[str], frame: dict[str, str]) -> list[str]:
        nodes = self.nodes
        mem = set(members)
        errs: list[str] = []
        enters = [n for n in members if nodes[n].op == "Enter"]
        conds = [n for n in members if nodes[n].op == "LoopCond"]
        consumers: dict[str, list[str]] = {}
        for n in self.order:
            for r in nodes[n].input:
                consumers.setdefault(_split(r)[0], []).append(n)
        where0 = f"{self.filename}: error: loop frame '{f}'"
        if len(conds) != 1:
            return [f"{where0}: has {len(conds)} LoopCond nodes (expected 1)"]
        loop_cond = nodes[conds[0]]
        if any(nodes[n].op in ("RefEnter", "RefSwitch", "RefMerge", "RefExit", "RefNextIteration")
               for n in members):
            return [f"{where0}: reference-typed loop variables are not supported"]
        variables = []  # (enter, merge, switch, next, exit|None)
        invariants = []
        for e in enters:
            en = nodes[e]
            if en.attr["is_constant"].b:
                invariants.append(e)
                continue
            ms = [c for c in consumers.get(e, []) if nodes[c].op == "Merge"]
            if len(ms) != 1 or len(consumers.get(e, [])) != 1:
                errs.append(f"{self.where(en, f)}: a loop variable's Enter must feed exactly one "
                            "Merge")
                continue
            m = nodes[ms[0]]
            nis = [_split(r)[0] for r in m.input if not r.startswith("^")
                   and nodes.get(_split(r)[0]) is not None and nodes[_split(r)[0]].op == "NextIteration"]
            sws = [c for c in consumers.get(m.name, []) if nodes[c].op == "Switch"
                   and _split(self.pred_key(nodes[c].input[1]))[0] == loop_cond.name]
            if len(nis) != 1 or len([r for r in m.input if not r.startswith("^")]) != 2 or len(sws) != 1:
                errs.append(f"{self.where(m, f)}: a loop Merge must join its Enter and one "
                            "NextIteration and feed one Switch on the LoopCond")
                continue
            sw = sws[0]
            ex = [c for c in consumers.get(sw, []) if nodes[c].op == "Exit"]
            variables.append((e, m.name, sw, nis[0], ex[0] if ex else None))
        if errs:
            return errs
        boundary = set(enters) | {v[1] for v in variables} | {v[2] for v in variables} | \
            {v[3] for v in variables} | {loop_cond.name}
        allowed = lambda n: n not in boundary and (n in mem or not nodes[n].input)  # noqa: E731
        cond_nodes = self.closure([_split(loop_cond.input[0])[0]], allowed)
        body_starts = [_split(r)[0] for v in variables for r in nodes[v[3]].input]
        body_starts += [n for n in members if n not in boundary and n not in cond_nodes]
        body_nodes = self.closure(body_starts, allowed)
        nvars = len(variables)
        arg_types = [nodes[v[0]].attr["T"].type for v in variables] + \
            [nodes[e].attr["T"].type for e in invariants]
        name = self.fresh_node_name(self.common_prefix(enters + [v[4] for v in variables if v[4]])
                                    or f.removesuffix("/while_context") or "while")
        while_controls: list[str] = []

        def outside(r: str) -> str | None:
            s, _, c = _split(r)
            if c and frame.get(s, "") != f:
                if r not in while_controls:
                    while_controls.append(r)
                return ""
            if c:  # ordering between the condition and the body: implied by the loop
                return ""
            return None

        drop = boundary | {v[4] for v in variables if v[4]}
        cond_map = {_ref(v[1], 0): k for k, v in enumerate(variables)}
        cond_map.update({_ref(e, 0): nvars + k for k, e in enumerate(invariants)})
        body_map = {_ref(v[2], 1): k for k, v in enumerate(variables)}
        body_map.update({_ref(e, 0): nvars + k for k, e in enumerate(invariants)})
        bool_t = self.tf.bool.as_datatype_enum
        cond_fn, e1 = self.build_fn(f"{name}_cond", cond_nodes, cond_map, arg_types, drop,
                                    [loop_cond.input[0]], [bool_t], outside,
                                    f"{where0} (its condition)")
        rets: list[str | int] = [nodes[v[3]].input[0] for v in variables]
        rets += [nvars + k for k in range(len(invariants))]
        body_fn, e2 = self.build_fn(f"{name}_body", body_nodes, body_map, arg_types, drop, rets,
                                    arg_types, outside, f"{where0} (its body)")
        if e1 or e2 or cond_fn is None or body_fn is None:  # None comes with its errors
            return e1 + e2
        # nothing else may read the frame's nodes
        removed = mem | {v[4] for v in variables if v[4]}
        mapping: dict[str, str] = {}
        for k, v in enumerate(variables):
            if v[4]:
                mapping[_ref(v[4], 0)] = _ref(name, k)
                mapping[f"^{v[4]}"] = f"^{name}"
        for n in self.order:
            if n in removed:
                continue
            for r in nodes[n].input:
                s, i, c = _split(r)
                key = f"^{s}" if c else _ref(s, i)
                if s in removed and key not in mapping:
                    errs.append(f"{self.where(nodes[n])}: reads '{r}' from inside loop frame '{f}' "
                                "without an Exit")
        if errs:
            return errs
        for e in enters:
            for r in nodes[e].input:
                if r.startswith("^") and r not in while_controls:
                    while_controls.append(r)
        stateful = any(self.stateful(n) for fn in (cond_fn, body_fn) for n in fn.nodes
                       if n.op != "Placeholder")
        wnode = self.tf.compat.v1.NodeDef(name=name, op="While" if stateful else "StatelessWhile")
        wnode.input.extend([nodes[v[0]].input[0] for v in variables] +
                           [nodes[e].input[0] for e in invariants] + while_controls)
        wnode.attr["T"].list.type.extend(arg_types)
        wnode.attr["cond"].func.name = cond_fn.name
        wnode.attr["body"].func.name = body_fn.name
        wnode.attr["parallel_iterations"].i = nodes[enters[0]].attr["parallel_iterations"].i or 10
        wnode.attr["output_shapes"].list.SetInParent()
        self.fns[cond_fn.name] = cond_fn
        self.fns[body_fn.name] = body_fn
        self.constructs.add(name)
        at = next((v[4] for v in variables if v[4]), members[-1])
        self.remove_and_insert(removed, wnode, at)
        self.replace_refs(mapping, removed, {name})
        return []

    # --- conditionals --------------------------------------------------------------------

    def conditionals(self, p: str, outer: frozenset, merges: list[str], state) -> tuple[list[str], bool]:
        nodes = self.nodes
        in_branch = {b: outer | {(p, b)} for b in (0, 1)}
        branch: dict[str, int] = {}
        for n in self.order:
            for b in (0, 1):
                if state.get(n) == in_branch[b] and nodes[n].op != "Merge":
                    branch[n] = b
        switches = {n for n in self.order if nodes[n].op == "Switch" and state.get(n) == outer
                    and not self.is_loop_switch(nodes[n]) and self.pred_key(nodes[n].input[1]) == p}
        # components: branch nodes, their switches and merges
        parent: dict[str, str] = {}

        def find(x):
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def union(a, b):
            parent[find(a)] = find(b)

        for n in branch:
            find(n)
            for r in nodes[n].input:
                s = _split(r)[0]
                if s in branch or s in switches:
                    union(n, s)
        for m in merges:
            find(m)
            for r in nodes[m].input:
                s = _split(r)[0]
                if s in branch or s in switches:
                    union(m, s)
        groups: dict[str, list[str]] = {}
        for x in parent:
            groups.setdefault(find(x), []).append(x)
        errors: list[str] = []
        did = False
        mset = set(merges)
        dangling = []
        for members in groups.values():
            ms = [n for n in self.order if n in members and n in mset]
            if not ms:
                dangling.append(set(members))
                continue
            sws = [n for n in self.order if n in members and n in switches]
            body = [n for n in self.order if n in members and n in branch]
            if any(nodes[n].op in CF_OPS for n in body):
                continue  # an inner construct first
            err, ok = self.conditional(p, ms, sws, body, branch, state)
            errors += err
            did |= ok
        if did:
            for group in dangling:
                self.drop_unread(group)
        return errors, did

    def drop_unread(self, group: set[str]) -> None:
        """A Switch on the predicate and its branch Identities that nothing reads (tf.cond's
        `switch_t` / `switch_f` when no branch op hangs a control edge on them): pure, gone with
        the conditional (left in place they would look like a conditional of their own)."""
        if any(self.stateful(self.nodes[n]) for n in group):
            return
        for n in self.order:
            if n not in group and any(_split(r)[0] in group for r in self.nodes[n].input):
                return
        self.order = [n for n in self.order if n not in group]
        for n in group:
            del self.nodes[n]

    def conditional(self, p, ms, sws, body, branch, state) -> tuple[list[str], bool]:
        names, fn_names = set(self.all_names), set(self.fn_names)
        errs, ok = self._conditional(p, ms, sws, body, branch, state)
        if errs:
            self.all_names, self.fn_names = names, fn_names
        return errs, ok

    def _conditional(self, p, ms, sws, body, branch, state) -> tuple[list[str], bool]:
        nodes = self.nodes
        name = self.fresh_node_name(self.common_prefix(ms + sws) or
                                    ms[0].rsplit("/", 1)[0] + "/cond")
        where0 = f"{self.filename}: error: conditional '{name}' (on '{p}')"
        members = set(ms) | set(sws) | set(body)
        # any use of a branch node or switch outside the conditional is malformed
        errs = []
        mapping: dict[str, str] = {}
        for j, m in enumerate(ms):
            mapping[_ref(m, 0)] = _ref(name, j)
            mapping[f"^{m}"] = f"^{name}"
        for n in self.order:
            if n in members:
                continue
            for r in nodes[n].input:
                s, i, c = _split(r)
                key = f"^{s}" if c else _ref(s, i)
                if s in members and key not in mapping:
                    what = "the Merge's value_index output" if s in ms else f"'{r}'"
                    errs.append(f"{self.where(nodes[n])}: reads {what} from inside the "
                                f"conditional on '{p}'")
        if errs:
            return errs, False
        arg_refs = [nodes[s].input[0] for s in sws]
        arg_types = [nodes[s].attr["T"].type for s in sws]
        sw_index = {s: k for k, s in enumerate(sws)}
        if_controls: list[str] = []
        for s in sws:
            for r in nodes[s].input[2:]:
                if r.startswith("^") and r not in if_controls:
                    if_controls.append(r)
        extra: dict[str, int] = {}

        def outside(r: str) -> str | None:
            s, i, c = _split(r)
            if c:
                if r not in if_controls:
                    if_controls.append(r)
                return ""
            if r not in extra:
                t = self.ref_type(r)
                if t is None:
                    return None
                extra[r] = len(arg_refs)
                arg_refs.append(r)
                arg_types.append(t)
            return r

        fns: dict[int, _Fn] = {}
        out_types = [nodes[m].attr["T"].type for m in ms]
        for b in (1, 0):
            arg_map = {_ref(s, b): k for s, k in sw_index.items()}
            rets: list[str | int] = []
            for m in ms:
                got = [r for r in nodes[m].input if not r.startswith("^")
                       and (p, b) in self.edge_state(state, r)]
                if len(got) != 1:
                    errs.append(f"{self.where(nodes[m])}: expected one input from the "
                                f"{'then' if b else 'else'} branch of the conditional on '{p}', "
                                f"found {len(got)}")
                    continue
                s, i, _ = _split(got[0])
                rets.append(sw_index[s] if s in sw_index else got[0])
            if errs:
                return errs, False
            fn_nodes = [n for n in body if branch[n] == b]
            fn, e = self.build_fn(f"{name}_{'then' if b else 'else'}", fn_nodes, arg_map, arg_types,
                                  set(sws), rets, out_types, outside, where0)
            if e or fn is None:  # None comes with its errors
                return e, False
            fns[b] = fn
        # extra arguments found while building one branch: give both branches all of them
        for fn in fns.values():
            have = len(fn.arg_names)
            for k in range(have, len(arg_types)):
                a = f"arg{k}"
                while any(x.name == a for x in fn.nodes):
                    a += "_"
                ph = self.tf.compat.v1.NodeDef(name=a, op="Placeholder")
                ph.attr["dtype"].type = arg_types[k]
                fn.nodes.insert(k, ph)
                fn.arg_names.append(a)
            fn.arg_types = list(arg_types)
            # references to extra arguments by their outside ref
            index = {r: fn.arg_names[k] for r, k in extra.items()}
            for node in fn.nodes:
                if node.op == "Placeholder" and node.name in fn.arg_names:
                    continue
                ins = [index.get(r, r) for r in node.input]
                del node.input[:]
                node.input.extend(ins)
            fn.rets = [index.get(r, r) for r in fn.rets]
        pred_ref = nodes[sws[0]].input[1]
        stateful = any(self.stateful(n) for fn in fns.values() for n in fn.nodes
                       if n.op != "Placeholder")
        inode = self.tf.compat.v1.NodeDef(name=name, op="If" if stateful else "StatelessIf")
        inode.input.extend([pred_ref] + arg_refs + if_controls)
        inode.attr["Tcond"].type = self.tf.bool.as_datatype_enum
        inode.attr["Tin"].list.type.extend(arg_types)
        inode.attr["Tout"].list.type.extend(out_types)
        inode.attr["then_branch"].func.name = fns[1].name
        inode.attr["else_branch"].func.name = fns[0].name
        inode.attr["output_shapes"].list.SetInParent()
        for fn in fns.values():
            self.fns[fn.name] = fn
        self.constructs.add(name)
        self.remove_and_insert(members, inode, ms[-1])
        self.replace_refs(mapping, members, {name})
        return [], True

    def drop_dead(self, read_before: set[str]) -> None:
        """Pure nodes that only fed the control flow nodes now gone (e.g. `cond/pred_id`)."""
        while True:
            read = {_split(r)[0] for n in self.order for r in self.nodes[n].input}
            dead = {n for n in self.order if n in read_before and n not in read
                    and not self.stateful(self.nodes[n])}
            if not dead:
                return
            self.order = [n for n in self.order if n not in dead]
            for n in dead:
                del self.nodes[n]

    # --- shapes --------------------------------------------------------------------------

    def infer(self, nodes: list[Any], arg_shapes: dict[str, Any] | None = None) -> Any:
        """Set output_shapes of the constructs among `nodes` (outermost first) and return the
        TensorFlow graph of `nodes` with every shape inferred."""
        tf = self.tf
        from compiler.frontend.importers.tf_graph import stub_unregistered

        by_name = {n.name: n for n in nodes}
        pending = [n.name for n in nodes if n.name in self.constructs and n.op in
                   ("While", "StatelessWhile", "If", "StatelessIf")]
        for n in pending:
            by_name[n].attr["output_shapes"].list.Clear()
        resolved: set[str] = set()
        for _ in range(len(pending) + 1):
            gd = tf.compat.v1.GraphDef()
            gd.versions.producer = tf.version.GRAPH_DEF_VERSION  # else a scalar shape = unknown
            gd.library.CopyFrom(self.library)
            for n in nodes:
                gd.node.add().CopyFrom(n)
                if arg_shapes and n.name in arg_shapes:
                    sh = arg_shapes[n.name]
                    gd.node[-1].attr["shape"].shape.CopyFrom(sh.as_proto())
                    gd.node[-1].attr["shape"].shape.SetInParent()  # a scalar's proto is empty
            gd = stub_unregistered(tf, gd)
            graph = tf.Graph()
            try:
                with graph.as_default():
                    tf.graph_util.import_graph_def(gd, name="")
            except Exception as e:  # noqa: BLE001 - TensorFlow rejects a generated function
                from compiler.frontend.importers.tf_graph import tf_import_error

                raise CompileError(tf_import_error(e, self.filename, by_name)) from None
            todo = [n for n in pending if n not in resolved]
            if not todo:
                return graph
            upstream = self._upstream_constructs(by_name, todo)
            ready = [n for n in todo if not (upstream[n] & set(todo))]
            for n in ready:
                node = by_name[n]
                op = graph.get_operation_by_name(n)
                shapes = [t.shape for t in op.inputs]
                if node.op.endswith("If"):
                    outs = []
                    for key in ("then_branch", "else_branch"):
                        fn = self.fns[node.attr[key].func.name]
                        outs.append(self.infer_fn(fn, shapes[1:]))
                    result = [a.most_specific_compatible_shape(b) for a, b in zip(*outs)]
                else:
                    body = self.fns[node.attr["body"].func.name]
                    cond = self.fns[node.attr["cond"].func.name]
                    for _ in range(64):
                        outs = self.infer_fn(body, shapes)
                        new = [a.most_specific_compatible_shape(b) for a, b in zip(shapes, outs)]
                        if all(a.as_proto() == b.as_proto() for a, b in zip(new, shapes)):
                            break
                        shapes = new
                    self.infer_fn(cond, shapes)
                    result = shapes
                lst = node.attr["output_shapes"].list
                lst.Clear()
                for s in result:
                    lst.shape.add().CopyFrom(s.as_proto())
                resolved.add(n)
        return graph

    def _upstream_constructs(self, by_name, todo):
        memo: dict[str, set] = {}
        out = {}
        for t in todo:
            seen, stack = set(), [_split(r)[0] for r in by_name[t].input]
            while stack:
                s = stack.pop()
                if s in seen or s not in by_name:
                    continue
                seen.add(s)
                stack.extend(_split(r)[0] for r in by_name[s].input)
            out[t] = seen
        _ = memo
        return out

    def infer_fn(self, fn: _Fn, shapes: list[Any]) -> list[Any]:
        fn.arg_shapes = list(shapes)
        graph = self.infer(fn.nodes, dict(zip(fn.arg_names, shapes)))
        return [graph.get_tensor_by_name(r if ":" in r else r + ":0").shape for r in fn.rets]

    # --- to FunctionDefs ----------------------------------------------------------------

    def function_def(self, fn: _Fn) -> Any:
        from tensorflow.core.framework import function_pb2

        fdef = function_pb2.FunctionDef()
        fdef.signature.name = fn.name
        by_name = {n.name: n for n in fn.nodes}
        args = set(fn.arg_names)
        out_names: dict[str, list[str]] = {}
        for n in fn.nodes:
            if n.name in args:
                continue
            op_def = self.registry.get(n.op)
            if op_def is None:
                raise CompileError(f"{self.filename}: error: node '{n.name}' ({n.op}): an op type "
                                   "TensorFlow does not know cannot go into a functionalized "
                                   "loop or conditional")
            names = []
            for arg in op_def.output_arg:
                count = 1
                if arg.number_attr:
                    count = n.attr[arg.number_attr].i
                elif arg.type_list_attr:
                    count = len(n.attr[arg.type_list_attr].list.type)
                names += [f"{arg.name}:{j}" for j in range(count)]
            out_names[n.name] = names

        def conv(r: str) -> str:
            s, i, c = _split(r)
            if c:
                return r
            if s in args:
                return s
            return f"{s}:{out_names[s][i]}"

        for a, t in zip(fn.arg_names, fn.arg_types):
            fdef.signature.input_arg.add(name=a, type=t)
        stateful = False
        for n in fn.nodes:
            if n.name in args:
                continue
            nd = fdef.node_def.add()
            nd.CopyFrom(n)
            del nd.input[:]
            nd.input.extend(conv(r) for r in n.input)
            if "_output_shapes" in nd.attr:
                del nd.attr["_output_shapes"]
            stateful |= self.stateful(n)
        for k, (r, t) in enumerate(zip(fn.rets, fn.ret_types)):
            o = f"output_{k}"
            fdef.signature.output_arg.add(name=o, type=t)
            fdef.ret[o] = conv(r)
        if stateful:
            fdef.signature.is_stateful = True
        if fn.arg_shapes is not None:
            lst = fdef.attr["_input_shapes"].list
            for s in fn.arg_shapes:
                lst.shape.add().CopyFrom(s.as_proto())
        _ = by_name
        return fdef


def functionalize(tf: Any, graph_def: Any, filename: str,
                  warn: Callable[[str], None] | None = None) -> Any:
    """A copy of `graph_def` with its TF1 control flow functionalized (itself if it has none)."""
    unused = unused_control_flow_inputs(graph_def)
    if not has_tf1_control_flow(graph_def) and not unused:
        return graph_def
    out = tf.compat.v1.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    out.node.extend(n for n in graph_def.node if n.name not in unused)
    if unused and warn:
        warn(f"{filename}: note: dropped {len(unused)} unread Placeholder(s) "
             "'unused_control_flow_input*' left by freezing")
    if not has_tf1_control_flow(out):
        return out
    fz = _Functionalizer(tf, out, filename)
    read = {_split(r)[0] for n in out.node for r in n.input}
    fz.run()
    fz.drop_dead(read)
    fz.infer([fz.nodes[n] for n in fz.order])
    result = tf.compat.v1.GraphDef()
    result.versions.CopyFrom(out.versions)
    result.library.CopyFrom(out.library)
    for n in fz.order:
        result.node.add().CopyFrom(fz.nodes[n])
    for fn in fz.fns.values():
        result.library.function.add().CopyFrom(fz.function_def(fn))
    return result
