"""Read a `slo-scaler loadtest` results file (loadtest.json) into the little the checks need.

The file is the loadgen's own output (scaler.loadgen.results.write_json): `config`, `summary`,
`timeline` (per bin: sent, ok, refused, refused_attempts) and `requests` (one per request:
start, outcome, ttft_s, refusals, waits, wait_reasons). Errors name the file and the field.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

# How scaler.loadgen.retry.Backoff.delay words a wait chosen without the server's Retry-After;
# every other reason honoured (or capped) a Retry-After the server sent.
NO_RETRY_AFTER = "no Retry-After"


class LoadtestFileError(ValueError):
    """A results file that cannot be read; the message names the file and the field."""


@dataclass(frozen=True)
class Request:
    start: float  # first attempt, seconds from the run's start
    ok: bool
    ttft_s: float | None
    refused_attempts: int
    retry_after_waits: int  # retries whose wait honoured a Retry-After
    other_waits: int  # retries backed off without one
    retries: int


@dataclass(frozen=True)
class Bin:
    t: float
    sent: int
    refused_attempts: int


@dataclass(frozen=True)
class LoadtestEvidence:
    path: str
    model: str | None
    bin_s: float
    bins: tuple[Bin, ...]
    requests: tuple[Request, ...]
    max_retries: int | None
    backoff: dict


def _need(doc: dict, key: str, kind, where: str):
    value = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise LoadtestFileError(f"{where}.{key}: expected {getattr(kind, '__name__', 'a value')}, got {type(value).__name__}")
    return value


def _number(value, where: str, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise LoadtestFileError(f"{where}: expected a finite number, got {value!r}")
    return float(value)


def read(path: str | Path) -> LoadtestEvidence:
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except OSError as exc:
        raise LoadtestFileError(f"{path}: cannot read: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise LoadtestFileError(f"{path}: expected the JSON written by `slo-scaler loadtest --out`: {exc}") from None
    if not isinstance(doc, dict):
        raise LoadtestFileError(f"{path}: expected a JSON object with config, summary, timeline and requests")
    where = str(path)
    config = _need(doc, "config", dict, where)
    summary = _need(doc, "summary", dict, where)
    bin_s = _number(config.get("bin_s"), f"{where}.config.bin_s")
    backoff = config.get("backoff") if isinstance(config.get("backoff"), dict) else {}
    bins = []
    for i, row in enumerate(_need(doc, "timeline", list, where)):
        at = f"{where}.timeline[{i}]"
        bins.append(Bin(_number(_need(row, "t", (int, float), at), f"{at}.t"), int(_need(row, "sent", int, at)),
                        int(_need(row, "refused_attempts", int, at))))
    requests = []
    for i, row in enumerate(_need(doc, "requests", list, where)):
        at = f"{where}.requests[{i}]"
        reasons = _need(row, "wait_reasons", list, at)
        honoured = sum(isinstance(r, str) and not r.startswith(NO_RETRY_AFTER) for r in reasons)
        requests.append(Request(
            start=_number(row.get("start"), f"{at}.start"), ok=row.get("outcome") == "ok",
            ttft_s=_number(row.get("ttft_s"), f"{at}.ttft_s", optional=True),
            refused_attempts=len(_need(row, "refusals", list, at)), retry_after_waits=honoured,
            other_waits=len(reasons) - honoured, retries=len(_need(row, "waits", list, at))))
    model = summary.get("model") or config.get("model")
    max_retries = backoff.get("max_retries")
    return LoadtestEvidence(str(path), model if isinstance(model, str) else None, bin_s, tuple(bins), tuple(requests),
                            max_retries if isinstance(max_retries, int) and not isinstance(max_retries, bool) else None,
                            {k: backoff[k] for k in ("max_retries", "base_s", "cap_s", "jitter") if k in backoff})
