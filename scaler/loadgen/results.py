"""Summaries of a load test: latency percentiles, refusals by status code, a per-bin timeline."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from scaler.loadgen.client import ERROR, OK, REFUSED, Result

QUANTILES = (50, 90, 95, 99)


def percentiles(values: Sequence[float]) -> dict[str, float | None]:
    """p50/p90/p95/p99 and mean; None for each when there are no values."""
    if not values:
        return {**{f"p{q}": None for q in QUANTILES}, "mean": None}
    array = np.asarray(values, dtype=float)
    out = {f"p{q}": float(np.percentile(array, q)) for q in QUANTILES}
    out["mean"] = float(array.mean())
    return out


def _group(results: Sequence[Result], slo_ttft_s: float | None) -> dict:
    ok = [r for r in results if r.outcome == OK]
    summary = {
        "requests": len(results),
        "ok": len(ok),
        "refused": sum(r.outcome == REFUSED for r in results),
        "errors": sum(r.outcome == ERROR for r in results),
        "ttft_s": percentiles([r.ttft_s for r in ok]),
        "tpot_s": percentiles([r.tpot_s for r in ok if r.tpot_s is not None]),
        "e2e_s": percentiles([r.e2e_s for r in ok]),
    }
    if slo_ttft_s is not None:
        summary["ttft_within_slo"] = sum(r.ttft_s <= slo_ttft_s for r in ok) / len(ok) if ok else None
    return summary


def summarize(results: Sequence[Result], duration_s: float, slo_ttft_s: float | None = None) -> dict:
    """Totals, latency percentiles of served requests, refusals, and the same per class and tenant."""
    summary = _group(results, slo_ttft_s)
    summary["duration_s"] = duration_s
    summary["throughput_rps"] = summary["ok"] / duration_s if duration_s > 0 else None
    # Every refused attempt counts, retried or not: that is what the server answered.
    summary["refusals_by_status"] = {str(k): v for k, v in sorted(Counter(s for r in results for s in r.refusals).items())}
    summary["retries"] = sum(len(r.waits) for r in results)
    summary["error_kinds"] = dict(Counter((r.error or "").split(":")[0] for r in results if r.outcome == ERROR))
    summary["by_class"] = {c: _group([r for r in results if r.request_class == c], slo_ttft_s) for c in sorted({r.request_class for r in results})}
    summary["by_tenant"] = {t: _group([r for r in results if r.tenant == t], slo_ttft_s) for t in sorted({r.tenant for r in results})}
    return summary


def timeline(results: Iterable[Result], bin_s: float) -> list[dict]:
    """Per time bin (by first attempt): requests sent, served, refused for good, TTFT p99 of served."""
    if not bin_s > 0:
        raise ValueError(f"bin_s: expected seconds > 0, got {bin_s!r}")
    bins: dict[int, list[Result]] = {}
    for r in results:
        bins.setdefault(int(math.floor(r.start / bin_s)), []).append(r)
    rows = []
    for index in range(max(bins) + 1 if bins else 0):
        members = bins.get(index, [])
        ttfts = [r.ttft_s for r in members if r.outcome == OK]
        rows.append({
            "t": index * bin_s,
            "sent": len(members),
            "ok": len(ttfts),
            "refused": sum(r.outcome == REFUSED for r in members),
            "refused_attempts": sum(len(r.refusals) for r in members),
            "ttft_p99_s": float(np.percentile(ttfts, 99)) if ttfts else None,
        })
    return rows


def write_json(path: Path, config: dict, summary: dict, results: Sequence[Result], bins: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"config": config, "summary": summary, "timeline": bins, "requests": [r.to_json() for r in results]}
    path.write_text(json.dumps(document, indent=1))
