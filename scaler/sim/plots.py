"""PNGs per workload: the frontier (attainment against GPU-seconds, every policy's sweep) and the
timeline of the tuned points (arrivals, queue, ready replicas, TTFT p99, refusals)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from scaler.sim.metrics import Timeline  # noqa: E402

# Ours stands out; the bound and the static reference are dashed.
STYLE = {"slo-scaler": dict(color="black", linewidth=2.2, zorder=10),
         "clairvoyant": dict(color="grey", linestyle="--", linewidth=1.4),
         "static": dict(color="tab:olive", linewidth=1.4),
         "static-peak": dict(color="darkgoldenrod", linestyle=":", linewidth=1.4)}


@dataclass(frozen=True)
class FrontierLine:
    """One policy on a frontier plot: its swept points on the evaluation window as (GPU-seconds,
    attainment %, its lowest %, its highest % over seeds), and its tuned point (GPU-seconds, %)."""
    policy: str
    points: tuple[tuple[float, float, float, float], ...]
    tuned: tuple[float, float]


def plot_frontier(path: Path, result, target: float) -> Path:
    """The frontier of one bench result (scaler.sim.sweep): see `draw_frontier`."""
    def at(p):
        return (p.mean("eval", "gpu_seconds"), 100 * p.mean("eval", "slo_attainment"),
                100 * p.stat("eval", "slo_attainment").low, 100 * p.stat("eval", "slo_attainment").high)
    lines = [FrontierLine(r.policy, tuple(at(p) for p in r.points), at(r.best)[:2]) for r in result.policies]
    return draw_frontier(path, result.name, lines, result.bound["eval"].mean, target)


def draw_frontier(path: Path, name: str, lines: list[FrontierLine], bound: float, target: float) -> Path:
    """Evaluation-window attainment against GPU-seconds: one line per policy through its sweep
    (min-max over seeds as bars), the tuned point ringed, the fluid bound as a vertical line."""
    fig, ax = plt.subplots(figsize=(10, 6.5))
    for i, line in enumerate(lines):
        style = dict(STYLE.get(line.policy, {}))
        style.setdefault("color", plt.get_cmap("tab10")(i % 10))
        style.setdefault("linewidth", 1.2)
        xs, ys, lows, highs = (list(v) for v in zip(*line.points))
        # The mean of equal seeds can round a hair past their min or max: bars never go negative.
        ax.errorbar(xs, ys, yerr=[[max(0.0, y - lo) for y, lo in zip(ys, lows)], [max(0.0, hi - y) for y, hi in zip(ys, highs)]],
                    marker="o", markersize=4, capsize=2, label=line.policy, **style)
        ax.plot([line.tuned[0]], [line.tuned[1]], marker="o", markersize=12, markerfacecolor="none",
                markeredgecolor=style["color"], markeredgewidth=2, linestyle="none")
    ax.axvline(bound, color="red", linewidth=1.0, linestyle="-.", label=f"fluid bound {bound:,.0f} GPU-s")
    ax.axhline(100 * target, color="red", linewidth=0.8, linestyle="--", label=f"target {target:.0%}")
    ax.set_xlabel("GPU replica-seconds, evaluation window (mean over seeds)")
    ax.set_ylabel("SLO attainment, evaluation window (%)")
    ax.set_ylim(bottom=max(0.0, min(ax.get_ylim()[0], 100 * target - 5)))
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(f"{name}: every policy's sweep, tuned points ringed (tuned on the first third)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _smooth(values: list[float], window: int) -> list[float]:
    if window <= 1:
        return values
    out, total = [], 0.0
    for i, v in enumerate(values):
        total += v
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def plot_workload(path: Path, workload: str, timelines: list[Timeline], slo_s: float,
                  burst: tuple[float, float] | None = None) -> Path:
    long_run = max((len(t.seconds) for t in timelines), default=0) > 1200
    window = 10 if long_run else 1  # hour-long traces: 10 s moving averages keep lines readable
    fig, axes = plt.subplots(5, 1, figsize=(12, 13), sharex=True)
    first = timelines[0]
    axes[0].plot(first.seconds, _smooth([float(a) for a in first.arrivals], window), color="tab:blue")
    axes[0].set_ylabel("arrivals (req/s)")
    for t in timelines:
        style = STYLE.get(t.policy, dict(linewidth=1.0))
        axes[1].plot(t.seconds, _smooth([float(q) for q in t.queued], window), label=t.policy, **style)
        axes[2].step(t.seconds, t.ready, where="post", label=t.policy, **style)
        xs = [x for x, y in zip(t.ttft_p99_bins, t.ttft_p99) if y is not None]
        ys = [y for y in t.ttft_p99 if y is not None]
        axes[3].plot(xs, ys, label=t.policy, **style)
        axes[4].plot(t.seconds, _smooth([float(r) for r in t.refusals], window), label=t.policy, **style)
    axes[1].set_ylabel("queued requests")
    axes[2].set_ylabel("ready replicas")
    axes[3].set_ylabel("TTFT p99 (s), 10 s bins")
    axes[3].set_yscale("log")
    axes[3].axhline(slo_s, color="red", linewidth=0.8, linestyle="--", label=f"SLO {slo_s:g} s")
    axes[4].set_ylabel("refused attempts/s")
    axes[4].set_xlabel("time (s)")
    for ax in axes:
        ax.grid(alpha=0.3)
        if burst:
            ax.axvspan(burst[0], burst[1], color="orange", alpha=0.12)
    axes[2].legend(loc="upper left", fontsize=8, ncol=3)
    fig.suptitle(f"{workload}: one line per policy at its tuned value, first seed" + (" (10 s moving averages)" if window > 1 else ""))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
