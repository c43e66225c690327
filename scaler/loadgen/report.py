"""What people look at after a load test: a summary table on the terminal and a PNG."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from scaler.loadgen.client import OK, REFUSED, Result


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.0f}"


def summary_table(summary: dict, title: str = "load test") -> Table:
    """One row per request class plus a total row: counts, refusals, TTFT/TPOT/e2e percentiles."""
    table = Table(title=title)
    for name in ("class", "sent", "ok", "refused", "errors", "TTFT p50 ms", "TTFT p95 ms", "TTFT p99 ms",
                 "TPOT p50 ms", "TPOT p99 ms", "e2e p99 ms"):
        table.add_column(name, justify="left" if name == "class" else "right")

    def row(label: str, group: dict, style: str | None = None) -> None:
        table.add_row(
            label, str(group["requests"]), str(group["ok"]), str(group["refused"]), str(group["errors"]),
            _ms(group["ttft_s"]["p50"]), _ms(group["ttft_s"]["p95"]), _ms(group["ttft_s"]["p99"]),
            _ms(group["tpot_s"]["p50"]), _ms(group["tpot_s"]["p99"]), _ms(group["e2e_s"]["p99"]),
            style=style,
        )

    for name, group in summary["by_class"].items():
        row(name, group)
    row("all", summary, style="bold")
    refusals = ", ".join(f"{code}: {n}" for code, n in summary["refusals_by_status"].items()) or "none"
    table.caption = (f"refused attempts by status: {refusals}; retries {summary['retries']}; "
                     f"served {summary['throughput_rps'] or 0:.2f} req/s over {summary['duration_s']:.0f}s")
    if summary.get("ttft_within_slo") is not None:
        table.caption += f"; TTFT within SLO: {summary['ttft_within_slo']:.1%}"
    return table


def print_summary(summary: dict, console: Console | None = None, title: str = "load test") -> None:
    (console or Console()).print(summary_table(summary, title))


def plot(path: Path, results: Sequence[Result], bins: list[dict], bin_s: float, slo_ttft_s: float | None = None,
         title: str = "load test") -> None:
    """Request rates, TTFT over time (each request and per-bin p99) and TTFT/TPOT distributions."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, (rates, ttft, cdf) = plt.subplots(3, 1, figsize=(10, 10), constrained_layout=True)
    fig.suptitle(title)
    t = [b["t"] for b in bins]
    rates.step(t, [b["sent"] / bin_s for b in bins], where="post", label="sent")
    rates.step(t, [b["ok"] / bin_s for b in bins], where="post", label="served")
    rates.step(t, [b["refused_attempts"] / bin_s for b in bins], where="post", label="refused attempts", color="tab:red")
    rates.set_ylabel("requests/s")
    rates.legend(loc="upper right")

    served = [r for r in results if r.outcome == OK]
    ttft.scatter([r.start for r in served], [r.ttft_s for r in served], s=4, alpha=0.4, label="TTFT (served)")
    p99 = [(b["t"], b["ttft_p99_s"]) for b in bins if b["ttft_p99_s"] is not None]
    if p99:
        ttft.step(*zip(*p99), where="post", color="black", label="p99 per bin")
    refused = [r.start for r in results if r.outcome == REFUSED]
    if refused:
        ttft.scatter(refused, [0] * len(refused), marker="|", color="tab:red", label="refused for good")
    if slo_ttft_s is not None:
        ttft.axhline(slo_ttft_s, color="tab:red", linestyle="--", label="TTFT SLO")
    ttft.set_ylabel("TTFT (s)")
    ttft.set_xlabel("time (s)")
    ttft.legend(loc="upper right")

    for name, values in (("TTFT", [r.ttft_s for r in served]), ("TPOT", [r.tpot_s for r in served if r.tpot_s])):
        if values:
            ordered = np.sort(values)
            cdf.plot(ordered, np.arange(1, len(ordered) + 1) / len(ordered), label=name)
    cdf.set_xscale("log")
    cdf.set_xlabel("seconds")
    cdf.set_ylabel("fraction of served requests")
    cdf.legend(loc="lower right")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
