#!/usr/bin/env python3
"""How long after a burst starts the scaler first asks KEDA for more replicas, per signal source.

One emulated vLLM fleet (2 replicas, real time by default) takes the project's standard burst
(quiet, then 2.5x the peak, then quiet). Three `slo-scaler serve` processes watch the same
fleet side by side: Prometheus scraping every 15 s, Prometheus scraping every 1 s, and the
direct scrape of the replicas' /metrics. A KEDA-like client polls each one's GetMetrics every
0.25 s; the reaction time is from the burst's first request to the first demand above the
ready replica count (KEDA would then ask for more). Prints a table, writes a PNG.

    python scripts/reaction_time.py               # one run, about 2 minutes
    python scripts/reaction_time.py --runs 3      # median of three bursts (different seeds)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import threading
import time
from pathlib import Path

import grpc
import matplotlib
import yaml
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from lab import Lab, burst, send

from scaler.server.protocol import ExternalScalerClient, GetMetricsRequest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

REPLICAS = 2
ENGINE = ("--max-num-seqs", "2", "--step-base-s", "0.05")  # ~2 short requests per second for two replicas
SOURCES = ("prometheus, scrape every 15 s", "prometheus, scrape every 1 s", "scrape (direct)")
POLICY = {"ttftSloSeconds": "2", "perReplicaCapacity": "auto", "capacityPrior": "1", "scaleUpLatencySeconds": "30",
          "rateWindowSeconds": "10"}


class Watch(threading.Thread):
    """A KEDA-like poller of one ScaledObject: (time, demand) every `every_s`."""

    def __init__(self, serve, metadata: dict[str, str], every_s: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.client, self.ref, self.every_s = serve.client, ExternalScalerClient.ref(metadata), every_s
        self.seen: list[tuple[float, float]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(self.every_s):
            try:
                reply = self.client.GetMetrics(GetMetricsRequest(scaledObjectRef=self.ref), timeout=3)
                self.seen.append((time.time(), reply.metricValues[0].metricValueFloat))
            except grpc.RpcError:
                pass  # no value yet (first poll) or stale: KEDA would keep its last one


def one_run(seed: int, speed: float, low_s: float, burst_s: float, progress) -> dict:
    with Lab() as lab:
        fleet = lab.emulator(replicas=REPLICAS, speed=speed, flags=ENGINE)
        slow = lab.prometheus(fleet.replica_targets, scrape_interval_s=15)
        fast = lab.prometheus(fleet.replica_targets, scrape_interval_s=1)
        sources = {
            SOURCES[0]: {"source": "prometheus", "prometheusAddress": slow},
            SOURCES[1]: {"source": "prometheus", "prometheusAddress": fast},
            SOURCES[2]: {"source": "scrape", "scrapeTargets": fleet.scrape_urls},
        }
        watches = {}
        for index, (name, source) in enumerate(sources.items()):
            metadata = {"model": fleet.model, **POLICY, **source}
            models = lab.workdir / f"models-{index}.yaml"
            models.write_text(yaml.safe_dump([metadata]))
            watches[name] = Watch(lab.serve("--models", str(models)), metadata)
        for watch in watches.values():
            watch.start()
        arrivals = burst(base_rps=0.5, peak_rps=1.6, low_s=low_s, burst_s=burst_s, after_s=10, seed=seed)
        first_burst = min(a.time for a in arrivals if a.time >= low_s)
        started = time.time()
        task = progress.add_task(f"burst, seed {seed}", total=None)
        asyncio.run(send(fleet, arrivals))
        progress.remove_task(task)
        for watch in watches.values():
            watch.stop.set()
            watch.join(5)
    burst_at = started + first_burst / speed
    out = {}
    for name, watch in watches.items():
        before = [d for t, d in watch.seen if t < burst_at]
        reacted = next((t - burst_at for t, d in watch.seen if t >= burst_at and d > REPLICAS), None)
        out[name] = {"reaction_s": reacted, "max_demand_before": max(before, default=0.0),
                     "series": [(t - burst_at, d) for t, d in watch.seen]}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--speed", type=float, default=1.0, help="emulator time compression (default real time)")
    parser.add_argument("--low", type=float, default=45.0, help="quiet model seconds before the burst")
    parser.add_argument("--burst", type=float, default=40.0, help="model seconds of the burst")
    parser.add_argument("--out", type=Path, default=Path("bench-out/reaction-time.png"), help="plot (PNG)")
    args = parser.parse_args()
    console = Console(stderr=True)
    runs = []
    with Progress(console=console, transient=True) as progress:
        for seed in range(1, args.runs + 1):
            runs.append(one_run(seed, args.speed, args.low, args.burst, progress))

    table = Table(title=f"Burst start to first demand > {REPLICAS} ready replicas ({args.runs} run(s))")
    table.add_column("source")
    table.add_column("reaction s (median)", justify="right")
    table.add_column("each run s", justify="right")
    table.add_column("max demand before the burst", justify="right")
    for name in SOURCES:
        times = [run[name]["reaction_s"] for run in runs]
        reacted = [t for t in times if t is not None]
        table.add_row(name, f"{statistics.median(reacted):.1f}" if reacted else "never",
                      " ".join("never" if t is None else f"{t:.1f}" for t in times),
                      f"{max(run[name]['max_demand_before'] for run in runs):.2f}")
    Console().print(table)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name in SOURCES:
        series = runs[0][name]["series"]
        ax.plot([t for t, _ in series], [d for _, d in series], label=name)
    ax.axvline(0, color="black", linestyle="--", label="burst starts")
    ax.axhline(REPLICAS, color="grey", linestyle=":", label=f"{REPLICAS} ready replicas")
    ax.set_xlabel("seconds from the burst's first request")
    ax.set_ylabel("demand sent to KEDA (replicas)")
    ax.set_title("Reaction of the demand metric to a burst, by signal source (run 1)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=120)
    console.print(f"plot: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
