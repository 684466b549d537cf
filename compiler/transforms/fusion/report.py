"""The fusion report: per rule matches and rejected candidates, kernels before/after, HBM saved.

    --fusion-report=report.json   JSON
    --fusion-report=report.txt    a readable table
    --fusion-report=-             the table on stderr (stdout carries the IR)
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict

from compiler.transforms.fusion.engine import Stats
from compiler.transforms.fusion.language import Rule


def build_report(rules: list[Rule], disabled: set[str], stats: Stats, kernels_before: int,
                 kernels_after: int, auto=None) -> dict:
    """`auto`: the automatic fusion's Report (compiler/transforms/fusion/auto.py), or None when it was off."""
    per_rule = []
    for r in sorted(rules, key=lambda r: -r.priority):
        rej = [x for x in stats.rejections if x.rule == r.name]
        per_rule.append({
            "rule": r.name,
            "priority": r.priority,
            "group": r.group,
            "source": r.source,
            "status": "off" if r.name in disabled else
                      ("inactive: " + stats.inactive[r.name] if r.name in stats.inactive else "on"),
            "matches": stats.matches.get(r.name, 0),
            "rejected": len(rej),
            "hbm_bytes_saved": stats.hbm_bytes_saved.get(r.name, 0),
        })
    return {
        "kernels_before": kernels_before,
        "kernels_after": kernels_after,
        "fusions": sum(stats.matches.values()),
        "hbm_bytes_saved": sum(stats.hbm_bytes_saved.values()),
        "hbm_model": "2 x bytes of every intermediate tensor that no longer goes to HBM "
                     "(one write, one read)",
        "rules": per_rule,
        "rejected_candidates": [asdict(x) for x in stats.rejections],
        "auto_fusion": None if auto is None else {
            "fused_kernels": auto.kernels,
            "cube_epilogues": auto.epilogues,
            "ops_fused": auto.ops_fused,
            "depthwise_prologues": auto.depthwise_prologues,
            "conv_stages": list(auto.conv_stages),
            "extra_outputs": auto.extra_outputs,
            "unfused": [asdict(u) for u in auto.unfused],
        },
    }


def format_table(report: dict, max_rejections: int = 40) -> str:
    lines = [f"fusion report: kernels {report['kernels_before']} -> {report['kernels_after']}, "
             f"{report['fusions']} fusions, est. HBM traffic saved {report['hbm_bytes_saved']} bytes",
             "",
             f"{'rule':<34} {'prio':>5} {'status':<10} {'matches':>7} {'rejected':>8} {'HBM saved':>12}"]
    for r in report["rules"]:
        status = r["status"] if len(r["status"]) <= 10 else "inactive"
        lines.append(f"{r['rule']:<34} {r['priority']:>5} {status:<10} {r['matches']:>7} "
                     f"{r['rejected']:>8} {r['hbm_bytes_saved']:>12}")
    rej = report["rejected_candidates"]
    if rej:
        lines += ["", "rejected candidates (rule @ root: node: failed constraint):"]
        for x in rej[:max_rejections]:
            detail = f" ({x['detail']})" if x["detail"] else ""
            lines.append(f"  {x['rule']} @ {x['root']}: {x['node']}: {x['constraint']}{detail}")
        if len(rej) > max_rejections:
            lines.append(f"  ... {len(rej) - max_rejections} more (see the JSON report)")
    hz = report.get("horizontal_fusion")
    if hz is not None:
        lines += ["", f"horizontal fusion: {len(hz['merged'])} groups of sibling cube ops merged "
                      "(one wide conv or matmul + SplitVD)"]
        for m in hz["merged"]:
            pads = f"; zero input rows added to {', '.join(m['padded_readers'])}" \
                if m["padded_readers"] else ""
            lines.append(f"  on {m['input']}: {', '.join(m['convs'])} -> pieces {m['channels']}{pads}")
        for k in hz["skipped"]:
            lines.append(f"  not merged, on {k['input']}: {', '.join(k['convs'])}: {k['reason']}")
    auto = report.get("auto_fusion")
    if auto is not None:
        lines += ["", f"automatic fusion: {auto['ops_fused']} pointwise ops in "
                      f"{auto['fused_kernels']} fused kernels ({auto['cube_epilogues']} of them "
                      "cube epilogues)"]
        if auto.get("depthwise_prologues"):
            lines.append(f"depthwise convs run in their 1x1 conv's A tiles (separable convs): "
                         f"{auto['depthwise_prologues']}")
        if auto.get("conv_stages"):
            lines.append("convs computed in their reader conv's L1 window (conv -> conv): "
                         + ", ".join(auto["conv_stages"]))
        if auto.get("extra_outputs"):
            lines.append("values read by several consumers stored as extra outputs of the kernel "
                         f"computing them (multi-output fusion): {auto['extra_outputs']}")
        if auto["unfused"]:
            lines.append("pointwise ops left as kernels of their own (why no neighbour took them):")
            for u in auto["unfused"]:
                lines.append(f"  {u['op']} ({u['kind']}): {'; '.join(u['reasons'])}")
    return "\n".join(lines) + "\n"


def write_report(path: str, report: dict) -> None:
    if path == "-":
        sys.stderr.write(format_table(report))
        return
    text = json.dumps(report, indent=2) + "\n" if path.endswith(".json") else format_table(report)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
