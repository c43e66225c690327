"""One PNG timeline per workload: arrivals, queue, ready replicas, TTFT p99, refusals; a line per policy."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from scaler.sim.metrics import Timeline  # noqa: E402

# Ours stands out; the bound and the static reference are dashed.
STYLE = {"slo-scaler": dict(color="black", linewidth=2.2, zorder=10),
         "oracle": dict(color="grey", linestyle="--", linewidth=1.4),
         "static-peak": dict(color="tab:brown", linestyle=":", linewidth=1.4)}


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
    fig.suptitle(f"{workload}: one line per policy" + (" (10 s moving averages)" if window > 1 else ""))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
