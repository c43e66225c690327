"""What one checklist item concluded: a status, the evidence behind it and what to do.

Evidence always names where a value came from (a spec field, a PromQL query, a field of the load
test file, a Kubernetes object), so a reader can repeat the measurement. UNKNOWN means the
evidence could not be reached; it never counts as passing, and only FAIL fails the run.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Status(str, enum.Enum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"
    UNKNOWN = "UNKNOWN"


@dataclass(frozen=True)
class Evidence:
    source: str  # spec field, PromQL, loadtest file field or Kubernetes object
    value: object

    def __str__(self) -> str:
        return f"{self.source} = {_show(self.value)}"


@dataclass(frozen=True)
class ItemResult:
    item: str  # stable id, e.g. "spec.scale-to-zero"
    model: str  # namespace/name of the spec
    status: Status
    reason: str  # why this status, naming the cause
    evidence: tuple[Evidence, ...]
    remedy: str  # what to do; empty when nothing is to be done

    def to_json(self) -> dict:
        return {
            "item": self.item, "model": self.model, "status": self.status.value, "reason": self.reason,
            "evidence": [{"source": e.source, "value": _jsonable(e.value)} for e in self.evidence],
            "remedy": self.remedy,
        }


def result(item: str, model: str, status: Status, reason: str, evidence: list[Evidence] | tuple[Evidence, ...],
           remedy: str = "") -> ItemResult:
    if not evidence:
        raise ValueError(f"{item}: every result carries evidence")
    return ItemResult(item, model, status, reason, tuple(evidence), remedy if status is not Status.PASS else "")


def exit_code(results: list[ItemResult]) -> int:
    """1 when any item FAILs (a CI gate), else 0; WARN and UNKNOWN are reported, not fatal."""
    return 1 if any(r.status is Status.FAIL for r in results) else 0


def _show(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if value is None:
        return "none"
    return str(value)


def _jsonable(value: object) -> object:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)
