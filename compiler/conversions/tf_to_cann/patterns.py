"""tf-to-cann's engine: the mapping table of legalization.py applied as rewrite patterns (one
per row), the inlining of function calls, the host fallback and the legalization report.
`passes/tf_to_cann.py` is the pass over it; `tools/driver/model_info.py` (--mode=3) runs
`analyze_legalization`."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence

from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from compiler.conversions.tf_to_cann.legalization import (
    CANN_DTYPES,
    TABLE,
    Builder,
    LegalizationError,
    Rule,
    TfNode,
    check_dtype,
    tf_attributes,
    tf_op_type,
)
from compiler.ir.diagnostics import OpError, node_name
from compiler.ir.rewriting import with_loc
from dialects import cann
from dialects.tf import is_variant


class TableRule(RewritePattern):
    """The pattern generated for one table row."""

    def __init__(self, rule: Rule):
        self.rule = rule

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter):
        if tf_op_type(op) != self.rule.tf:
            return
        rewriter.replace(op, *self.lower(op))

    def lower(self, op: Operation) -> tuple[list[Operation], list[SSAValue | None]]:
        """The row applied to `op` (of its TF op type): the new ops and the values that replace
        op's results; LegalizationError when the row rejects it."""
        rule = self.rule
        if rule.forward:
            if len(op.operands) < len(op.results):
                raise LegalizationError("forwarding needs one operand per result")
            return [], list(op.operands[:len(op.results)])
        node = TfNode(op)
        if rule.cann in CANN_DTYPES:
            if rule.dtype_operand is None or rule.dtype_operand >= len(op.operands):
                check_dtype(rule.cann, node.result_type().element_type)
            else:
                check_dtype(rule.cann, node.operand_type(rule.dtype_operand).element_type)
        if rule.build is None:
            raise LegalizationError(f"the {rule.tf} row has neither a builder nor forward=True")
        b = Builder(node)
        results: list[SSAValue | None] = list(rule.build(node, b))
        if len(results) < len(op.results):
            for r in op.results[len(results):]:
                if r.uses:
                    raise LegalizationError(f"result #{r.index} is used but has no CANN equivalent")
            results += [None] * (len(op.results) - len(results))
        return b.ops, results


def replace_op(op: Operation, new_ops: Sequence[Operation],
               new_results: Sequence[SSAValue | None] | None = None) -> None:
    """xDSL's `PatternRewriter.replace` (new ops inserted before `op`, its results' uses moved
    to `new_results`, name hints carried over, `op` erased) without a rewriter: tf-to-cann's
    walk has no listener to tell."""
    block = op.parent
    if block is None:
        raise ValueError("Cannot insert operation before an operation without a parent")
    if new_ops:
        block.insert_ops_before(new_ops, op)
    if new_results is None:
        new_results = new_ops[-1].results if new_ops else []
    if len(op.results) != len(new_results):
        raise ValueError(f"Expected {len(op.results)} new results, but got {len(new_results)}")
    for old, new in zip(op.results, new_results):
        if new is old:
            continue
        if new is None:
            old.erase()
        else:
            old.replace_all_uses_with(new)
            if not new.name_hint:
                new.name_hint = old.name_hint
    if len(new_results) == 1 and (only := new_results[0]) is not None \
            and (hint := only.name_hint) is not None:
        for new_op in new_ops:
            for res in new_op.results:
                if not res.name_hint:
                    res.name_hint = hint
    block.erase_op(op)


def host_call(op: Operation) -> cann.HostCallOp:
    attrs = dict(tf_attributes(op))
    new = cann.HostCallOp(operands=[list(op.operands)],
                          result_types=[[r.type for r in op.results]],
                          properties={"op_type": StringAttr(tf_op_type(op) or op.name),
                                      "tf_attrs": DictionaryAttr(attrs)})
    return with_loc(new, op)


class _Collecting:
    """Applies the generated patterns; records (op, why) instead of stopping at the first
    failure, or — with host fallback — wraps the op in a cann.HostCall."""

    def __init__(self, failures: list[tuple[Operation, str]], fallback: bool,
                 hosted: list[tuple[Operation, str]], inlining: bool = False):
        # the inline phase applies only `inline` rows; the main phase every other row
        self.patterns = {t: TableRule(r) for t, r in TABLE.items() if r.inline == inlining}
        self.failures, self.fallback, self.hosted = failures, fallback, hosted
        self.inlining = inlining

    def apply(self, op: Operation) -> None:
        t = tf_op_type(op)
        if t is None:
            return
        if self.inlining != (t in INLINE_ROWS):
            return
        pattern = self.patterns.get(t)
        why = f"{op.name} has no CANN lowering"
        if pattern is not None:
            try:
                replace_op(op, *pattern.lower(op))
                return
            except LegalizationError as e:
                why = f"{op.name} cannot be legalized: {e}"
        if self.fallback and not self.inlining:
            self.hosted.append((op, why))
            replace_op(op, [host_call(op)])
        elif all(f is not op for f, _ in self.failures):
            self.failures.append((op, why))

    def walk(self, module: ModuleOp) -> None:
        """One pass over every op of the module in order (the order xDSL's walker visits them
        in, without re-visiting new ops): each tf op looked up once in the table by its TF op
        type, lowered, its uses replaced.  An error other than a rejection names the op, as
        the walker's."""
        erased: set[Operation] = set()  # ops inside an op that was replaced
        for op in list(module.body.walk()):
            if op in erased:
                continue
            inner = list(op.walk())[1:] if op.regions else None
            try:
                self.apply(op)
            except Exception as err:  # noqa: BLE001 - (as xDSL's walker: the error names the op)
                op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
            if inner and op.parent is None:
                erased.update(inner)


def legalize(op: ModuleOp, allow_host_fallback: bool = False, report: bool = False) -> None:
    """The tf-to-cann pass: inline calls, resolve TensorLists, apply the table to every tf op;
    every node that cannot be legalized is one OpError (see passes/tf_to_cann.py)."""
    failures: list[tuple[Operation, str]] = []
    hosted: list[tuple[Operation, str]] = []
    # the TF op types in the module (inlining only copies bodies that are in it already): the
    # resolutions below act only on ops of their types
    present = {t for o in op.walk() if (t := tf_op_type(o)) is not None}
    counts = inline_calls(op, failures) if present & INLINE_ROWS else Counter()
    if any(is_variant(v.type) for o in op.walk() for v in (*o.results, *(
            a for r in o.regions for b in r.blocks for a in b.args))):
        from compiler.conversions.tf_to_cann.tensor_list_types import resolve_tensor_lists

        resolve_tensor_lists(op)  # TensorList handles -> the buffers they stand for
    if any(t.startswith("TensorArray") for t in present):
        from compiler.conversions.tf_to_cann.tensor_array_v3 import resolve_tensor_arrays

        resolve_tensor_arrays(op)  # TF1 TensorArrayV3 flows -> their buffers
    if "BatchToSpaceND" in present:
        from compiler.conversions.tf_to_cann.dilated import recompose_dilated_convs

        recompose_dilated_convs(op)  # SpaceToBatchND -> conv -> BatchToSpaceND: one dilated conv
    if report:  # the counts are only printed by the report
        counts.update(t for o in op.walk() if (t := tf_op_type(o)) is not None
                      and t not in INLINE_ROWS)
    _Collecting(failures, allow_host_fallback, hosted).walk(op)
    # an op that failed before its constant inputs were legalized may have succeeded since
    failures[:] = [(f, why) for f, why in failures if f.parent is not None]
    failed = {id(f) for f, _ in failures}
    for left in op.walk():
        if tf_op_type(left) is not None and id(left) not in failed:
            failed.add(id(left))
            failures.append((left, f"{left.name} has no CANN lowering"))
    if report:
        print_report(counts, hosted, failures)
    if hosted:
        print(f"tf-to-cann: {len(hosted)} op(s) fall back to the host "
              f"(--allow-host-fallback):", file=sys.stderr)
        for o, why in hosted:
            node = node_name(o)
            print(f"  {why}" + (f" [node '{node}']" if node else ""), file=sys.stderr)
    if failures:
        order = {o: i for i, o in enumerate(op.walk())}
        failures.sort(key=lambda f: order.get(f[0], -1))  # in source order
        raise OpError(failures)


#: TF op types whose rows inline a function body (PartitionedCall, StatefulPartitionedCall).
INLINE_ROWS = frozenset(t for t, r in TABLE.items() if r.inline)

#: Calls nested deeper than this (recursion) are reported instead of inlined forever.
MAX_INLINE_DEPTH = 32


def _referenced_symbols(module: ModuleOp) -> set[str]:
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, SymbolRefAttr
    from xdsl.ir import ParametrizedAttribute

    out: set[str] = set()

    def visit(a) -> None:
        if isinstance(a, SymbolRefAttr):
            out.add(a.root_reference.data)
        elif isinstance(a, ArrayAttr):
            for x in a.data:
                visit(x)
        elif isinstance(a, DictionaryAttr):
            for x in a.data.values():
                visit(x)
        elif isinstance(a, ParametrizedAttribute):
            for x in a.parameters:
                visit(x)

    for o in module.walk():
        for a in (*o.properties.values(), *o.attributes.values()):
            visit(a)
    return out


def inline_calls(module: ModuleOp, failures: list[tuple[Operation, str]]) -> Counter:
    """Inline every tf.PartitionedCall / StatefulPartitionedCall (the table's `inline` rows),
    nested calls included, then drop private callees nothing references any more.  Returns the
    number of calls per op type (for the report); a call that cannot be inlined is a failure."""
    from xdsl.dialects import func

    counts: Counter = Counter()
    callees: set[str] = set()
    for _ in range(MAX_INLINE_DEPTH):
        calls = [o for o in module.walk() if tf_op_type(o) in INLINE_ROWS
                 and all(f is not o for f, _ in failures)]
        if not calls:
            break
        for c in calls:
            counts[tf_op_type(c)] += 1
            f = c.properties.get("f") or c.attributes.get("f")
            f = getattr(f, "func", f)
            if isinstance(f, SymbolRefAttr):
                callees.add(f.root_reference.data)
        _Collecting(failures, False, [], inlining=True).walk(module)
    else:
        for o in module.walk():
            if tf_op_type(o) in INLINE_ROWS and all(f is not o for f, _ in failures):
                failures.append((o, f"{o.name} cannot be legalized: calls nested more than "
                                    f"{MAX_INLINE_DEPTH} deep (recursion?) cannot be inlined"))
    if callees:
        used = _referenced_symbols(module)
        for o in list(module.ops):
            if (isinstance(o, func.FuncOp) and o.sym_name.data in callees
                    and o.sym_name.data not in used
                    and o.sym_visibility is not None and o.sym_visibility.data == "private"):
                module.body.block.erase_op(o)
    return counts


def analyze_legalization(module: ModuleOp, allow_host_fallback: bool = False
                         ) -> tuple[Counter, list[tuple[Operation, str]], list[tuple[Operation, str]]]:
    """Legalize a copy of `module`: (count per TF op type, host fallbacks, failures), every
    failure with the op (of the copy, located as the original) and why.  `module` is unchanged
    (the report pass and cann-compile's --mode=3 pre-check)."""
    copy = module.clone()
    failures: list[tuple[Operation, str]] = []
    hosted: list[tuple[Operation, str]] = []
    counts = inline_calls(copy, failures)
    counts.update(t for o in copy.walk() if (t := tf_op_type(o)) is not None
                  and t not in INLINE_ROWS)
    _Collecting(failures, allow_host_fallback, hosted).walk(copy)
    for left in copy.walk():
        if tf_op_type(left) is not None and all(f is not left for f, _ in failures):
            failures.append((left, f"{left.name} has no CANN lowering"))
    return counts, hosted, failures


def print_report(counts: Counter, hosted, failures, file=None) -> None:
    """Per TF op type: count, the CANN op of its table row, host fallbacks, failures."""
    file = file or sys.stderr
    host = Counter(tf_op_type(o) for o, _ in hosted)
    failed = Counter(tf_op_type(o) for o, _ in failures)
    rows = [("TF op", "count", "CANN op", "host", "failed")]
    for t, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        rule = TABLE.get(t)
        rows.append((t, str(n), rule.cann if rule else "-", str(host[t]), str(failed[t])))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    print("legalization report:", file=file)
    for r in rows:
        print("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip(), file=file)
    total = sum(counts.values())
    print(f"  total {total} tf ops: {total - sum(host.values()) - sum(failed.values())} "
          f"legalized, {sum(host.values())} on the host, {sum(failed.values())} failed", file=file)
