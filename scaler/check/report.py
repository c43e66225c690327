"""`slo-scaler check` output: a plain table (one line per item, evidence and remedy beneath),
JSON for machines, Markdown for a pull request or a wiki page."""

from __future__ import annotations

import json
from collections import Counter

from scaler.check.catalogue import BY_ID, CHECKLIST
from scaler.check.result import ItemResult, Status

FORMATS = ("table", "json", "markdown")


def _counts(results: list[ItemResult]) -> dict[str, int]:
    counts = Counter(r.status.value for r in results)
    return {s.value: counts.get(s.value, 0) for s in Status}


def table(results: list[ItemResult]) -> str:
    width_model = max((len(r.model) for r in results), default=5)
    width_item = max((len(r.item) for r in results), default=4)
    lines = [f"{'STATUS':<8} {'MODEL':<{width_model}} {'ITEM':<{width_item}} FINDING"]
    indent = " " * 9
    for r in results:
        lines.append(f"{r.status.value:<8} {r.model:<{width_model}} {r.item:<{width_item}} {r.reason}")
        for e in r.evidence:
            lines.append(f"{indent}evidence: {e}")
        if r.remedy:
            lines.append(f"{indent}do: {r.remedy}")
    lines.append(", ".join(f"{n} {s}" for s, n in _counts(results).items()))
    return "\n".join(lines) + "\n"


def as_json(results: list[ItemResult]) -> str:
    items = []
    for r in results:
        item = BY_ID[r.item]
        items.append({**r.to_json(), "title": item.title, "checklist": [CHECKLIST[line] for line in item.lines]})
    return json.dumps({"summary": _counts(results), "items": items}, indent=2) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(results: list[ItemResult]) -> str:
    lines = ["| status | model | item | finding | evidence | what to do |", "|---|---|---|---|---|---|"]
    for r in results:
        evidence = "<br>".join(_cell(str(e)) for e in r.evidence)
        lines.append(f"| **{r.status.value}** | {r.model} | {r.item} | {_cell(r.reason)} | {evidence} | {_cell(r.remedy)} |")
    lines.append("")
    lines.append(", ".join(f"{n} {s}" for s, n in _counts(results).items()))
    return "\n".join(lines) + "\n"


RENDERERS = {"table": table, "json": as_json, "markdown": markdown}
