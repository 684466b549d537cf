"""Whether an op (a module) is still the IR it was: a record of every object its IR is made of.

`Snapshot(op)` lists, walking the op and everything nested in it, each op object, its location,
operands, successors, attribute and property values, result types and name hints, each region
and block with its arguments' types; `snapshot.unchanged(op)` is True only when a fresh record
of `op` holds the same objects in the same places.  xDSL's attributes and types are immutable,
so a pass that changed anything replaced an object there (a new op, value, attribute or type),
moved one, or added or removed one: the records differ.  The record keeps its objects alive, so
an object's identity is never reused by a new one while the snapshot exists.

It answers what a structural comparison with a clone (`Operation.is_structurally_equivalent`)
answers for a module no pass touched, without cloning it; it is stricter (a replacement by an
equal copy, a changed result type or name hint count as a change), so a caller that lowers
afresh on a change stays correct."""

from __future__ import annotations

from xdsl.ir import Block, Operation


class Snapshot:
    """The objects of op's IR (`refs`, compared by identity) and its shape (`counts`: how many
    of each kind per op and block, and the attribute names, compared by equality)."""

    __slots__ = ("counts", "refs")

    def __init__(self, op: Operation):
        self.refs: list[object] = []
        self.counts: list[object] = []
        self._op(op)

    def _op(self, op: Operation) -> None:
        refs, counts = self.refs, self.counts
        refs.append(op)
        refs.append(op.location)
        ops, succ, res = op.operands, op.successors, op.results
        counts += (len(ops), len(succ), len(res), len(op.regions), *op.attributes, None,
                   *op.properties, None)
        refs += ops
        refs += succ
        refs += op.attributes.values()
        refs += op.properties.values()
        for r in res:
            refs.append(r.type)
            counts.append(r.name_hint)
        for region in op.regions:
            refs.append(region)
            blocks = list(region.blocks)
            counts.append(len(blocks))
            for b in blocks:
                self._block(b)

    def _block(self, block: Block) -> None:
        self.refs.append(block)
        args = block.args
        self.counts.append(len(args))
        for a in args:
            self.refs.append(a)
            self.refs.append(a.type)
        n = 0
        for o in block.ops:
            self._op(o)
            n += 1
        self.counts.append(n)

    def unchanged(self, op: Operation) -> bool:
        now = Snapshot(op)
        return now.counts == self.counts and len(now.refs) == len(self.refs) \
            and all(a is b for a, b in zip(now.refs, self.refs, strict=True))
