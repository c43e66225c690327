"""Bench results as a markdown table per workload and as results.json."""

from __future__ import annotations

import json
from pathlib import Path

from scaler.sim.metrics import Summary

COLUMNS = (
    ("policy", "policy", None),
    ("ttft_p50_s", "TTFT p50 (s)", "{:.2f}"),
    ("ttft_p95_s", "p95 (s)", "{:.2f}"),
    ("ttft_p99_s", "p99 (s)", "{:.2f}"),
    ("slo_attainment_all", "SLO all", "{:.1%}"),
    ("slo_attainment_admitted", "SLO admitted", "{:.1%}"),
    ("goodput_rps", "goodput (req/s)", "{:.2f}"),
    ("refusal_rate", "refused", "{:.1%}"),
    ("gpu_replica_seconds", "GPU replica-s", "{:,.0f}"),
    ("recovery_s", "recovery (s)", "{:.0f}"),
    ("scale_events", "scale events", "{}"),
    ("flaps", "flaps", "{}"),
)


def cell(value, fmt: str | None) -> str:
    if value is None:
        return "never" if fmt == "{:.0f}" else "-"
    return fmt.format(value) if fmt else str(value)


def markdown_table(rows: list[Summary]) -> str:
    header = "| " + " | ".join(title for _, title, _ in COLUMNS) + " |"
    rule = "|" + "|".join("---" if i == 0 else "---:" for i in range(len(COLUMNS))) + "|"
    lines = [header, rule]
    for row in rows:
        lines.append("| " + " | ".join(cell(getattr(row, key), fmt) for key, _, fmt in COLUMNS) + " |")
    return "\n".join(lines)


def write(out: Path, sections: list[tuple[str, str, list[Summary]]], details: list[dict]) -> tuple[Path, Path]:
    """`sections`: (workload, description, rows). Writes results.md, results.json, details.json."""
    out.mkdir(parents=True, exist_ok=True)
    md = ["# slo-scaler bench results", ""]
    for name, description, rows in sections:
        md += [f"## {name}", "", description, "", markdown_table(rows), ""]
    md_path = out / "results.md"
    md_path.write_text("\n".join(md))
    json_path = out / "results.json"
    json_path.write_text(json.dumps([row.as_json() for _, _, rows in sections for row in rows], indent=2) + "\n")
    (out / "details.json").write_text(json.dumps(details, indent=2, default=str) + "\n")
    return md_path, json_path
