"""The graph before and after fusion, as Graphviz: what fused is outlined.

    dot = fusion_dot(before_module, after_module)   # DOT text
    write_graph("out.svg", dot)                     # .dot always; .svg/.png via Graphviz's `dot`

Nodes are the top-level ops of @main (constants are left out: they are weights, not work);
edges follow the operands.  An op is matched to the TF node(s) it came from by its location
(`loc("conv1/Conv2D")`, `loc(fused[...])`).  In the "before" picture every group of ops that
fusion turned into one op is drawn inside a dashed box named after the fused op; in the
"after" picture fused ops are filled.  Rendering to SVG needs the `dot` program (Graphviz):
without it, a .svg request is an error saying so, and .dot output always works.
"""

from __future__ import annotations

import shutil
import subprocess

from xdsl.dialects import func
from xdsl.dialects.builtin import FusedLoc, ModuleOp, NameLoc

from compiler.ir.diagnostics import CompileError
from compiler.ir.typed import block_of, loc_parts


def _names(op) -> list[str]:
    loc = op.location
    if isinstance(loc, NameLoc):
        return [loc.desc.data]
    if isinstance(loc, FusedLoc):
        return [p.desc.data for p in loc_parts(loc) if isinstance(p, NameLoc)]
    return []


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _main(module: ModuleOp) -> func.FuncOp:
    from compiler.ir.entry import main_func

    return main_func(module)


def _is_const(op) -> bool:
    return op.name.endswith(".Const") or op.name == "arith.constant"


def _graph(module: ModuleOp, prefix: str, groups: dict[str, str] | None,
           fused_fill: bool) -> list[str]:
    """DOT statements of @main; `groups` maps a TF node name to its fused group's label."""
    fn = _main(module)
    block = block_of(fn.body)
    lines: list[str] = []
    ids: dict = {}
    for i, a in enumerate(block.args):
        ids[a] = f"{prefix}_in{i}"
        lines.append(f'{ids[a]} [label={_q(f"input {i}")}, shape=oval];')
    by_group: dict[str, list[str]] = {}
    plain: list[str] = []
    n = 0
    for op in block.ops:
        if _is_const(op) or isinstance(op, func.ReturnOp):
            continue
        nid = f"{prefix}_n{n}"
        n += 1
        for r in op.results:
            ids[r] = nid
        names = _names(op)
        label = op.name + ("\\n" + "\\n".join(names) if names else "")
        style = ""
        if fused_fill and len(names) > 1:
            style = ', style=filled, fillcolor="#cde6ff"'
        decl = f"{nid} [label={_q(label)}, shape=box{style}];".replace("\\\\n", "\\n")
        group = groups.get(names[0]) if groups and names else None
        if group is not None:
            by_group.setdefault(group, []).append(decl)
        else:
            plain.append(decl)
        for v in op.operands:
            if v in ids:
                lines.append(f"{ids[v]} -> {nid};")
    for k, (group, decls) in enumerate(by_group.items()):
        lines.append(f"subgraph cluster_{prefix}_g{k} {{ label={_q(group)}; style=dashed; "
                     f"color=blue; " + " ".join(decls) + " }")
    lines.extend(plain)
    ret = block.last_op
    if isinstance(ret, func.ReturnOp):
        for i, v in enumerate(ret.operands):
            out = f"{prefix}_out{i}"
            lines.append(f'{out} [label={_q(f"output {i}")}, shape=oval];')
            if v in ids:
                lines.append(f"{ids[v]} -> {out};")
    return lines


def fusion_groups(after: ModuleOp) -> dict[str, str]:
    """TF node name -> label of the fused op (only ops made of two or more nodes)."""
    groups: dict[str, str] = {}
    for op in block_of(_main(after).body).ops:
        names = _names(op)
        if len(names) > 1:
            label = f"{op.name} ({len(names)} ops)"
            for nm in names:
                groups[nm] = label
    return groups


def fusion_dot(before: ModuleOp, after: ModuleOp, title: str = "model") -> str:
    groups = fusion_groups(after)
    lines = [f"digraph {_q(title)} {{", "rankdir=TB; node [fontname=Helvetica, fontsize=10];",
             'subgraph cluster_before { label="before fusion";']
    lines += _graph(before, "b", groups, False)
    lines += ["}", 'subgraph cluster_after { label="after fusion";']
    lines += _graph(after, "a", None, True)
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


def write_graph(path: str, dot_text: str) -> None:
    """Write DOT text, or render it when the extension is .svg/.png/.pdf (needs `dot`)."""
    from compiler.ir.ir_io import write_atomically

    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if ext in ("dot", "gv", ""):
        write_atomically(path, lambda: dot_text)
        return
    if ext not in ("svg", "png", "pdf"):
        raise CompileError(f"{path}: error: --dump-graph writes .dot, .svg, .png or .pdf, "
                           f"not .{ext}")
    exe = shutil.which("dot")
    if exe is None:
        raise CompileError(
            f"{path}: error: rendering .{ext} needs Graphviz's 'dot' program, which is not on "
            f"PATH (install it, e.g. apt-get install graphviz), or ask for a .dot file")
    try:
        res = subprocess.run([exe, f"-T{ext}"], input=dot_text.encode(), capture_output=True,
                             timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise CompileError(f"{path}: error: running dot failed: {e}") from None
    if res.returncode != 0:
        first = (res.stderr.decode(errors="replace").strip().splitlines() or ["failed"])[0]
        raise CompileError(f"{path}: error: dot failed: {first}")
    write_atomically(path, lambda: res.stdout)
