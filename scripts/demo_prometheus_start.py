#!/usr/bin/env python3
"""How soon the demo's Prometheus has the replica's first sample, per way of giving it the target.

Each run starts one demo arm's emulator (one ready replica) and its Prometheus (/usr/bin/prometheus,
the demo's prometheus.yml: scrape every 0.5 s) and times, from the moment both are up (Prometheus
ready, the replica answering), until the demo's own check (`Arm.wait_for_signals`: the replica's
`vllm:num_requests_running` with `up == 1`, queried as serve does) passes. That is the figure the
demo prints as "signals N s later". Four ways:

- file_sd, started with the arm: the targets file written before Prometheus starts (the demo
  until now, and still its first arm);
- static_configs, started with the arm: the replica in prometheus.yml itself;
- /-/reload once up: Prometheus started with no scrape configs (`--web.enable-lifecycle`), the
  demo's config loaded with POST /-/reload once Prometheus and the replica are up;
- started ahead: `Arm.start_prometheus_ahead`, as the demo now starts the next arm's Prometheus
  while the current arm runs; the arm starts once Prometheus has had its first reload tick.

    python scripts/demo_prometheus_start.py             # 3 runs of each, about 2 minutes
    python scripts/demo_prometheus_start.py --runs 5 --png demo-prometheus-start.png
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import matplotlib
import yaml
from rich.console import Console
from rich.table import Table

from scaler.demo.fleetwatch import file_sd, write_file_sd
from scaler.demo.orchestrator import BASELINE_ARM, Arm, Tools
from scaler.demo.processes import http_ok, prometheus_argv, prometheus_binary, prometheus_config, wait_until
from scaler.demo.scenario import DemoScenario

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BEFORE, STATIC, RELOAD, AHEAD = ("file_sd, started with the arm (before)", "static_configs, started with the arm",
                                 "/-/reload once up", "started ahead (after)")
WAYS = (BEFORE, STATIC, RELOAD, AHEAD)


def _arm(workdir: Path) -> Arm:
    quiet = Console(file=io.StringIO())
    return Arm(BASELINE_ARM, DemoScenario().shortened(), Tools(prometheus_binary(), None), workdir, quiet)


async def _start_variant(arm: Arm, session: aiohttp.ClientSession, way: str) -> dict[str, str]:
    """Start the emulator and a Prometheus given the replica one way (not the demo's own start)."""
    fleet_port, port = arm.ports()
    replica = f"127.0.0.1:{fleet_port + 1}"
    config = prometheus_config(arm.sd_file)
    argv = prometheus_argv(arm.tools.prometheus, arm.workdir, port)
    if way == STATIC:
        config["scrape_configs"] = [{"job_name": "vllm", "static_configs": [{"targets": [replica]}]}]
    else:  # RELOAD: nothing to scrape until the reload
        config["scrape_configs"] = []
        argv.append("--web.enable-lifecycle")
    (arm.workdir / "prometheus.yml").write_text(yaml.safe_dump(config))
    await asyncio.gather(
        arm.start_fleet(session, fleet_port),
        arm.group.start("prometheus", argv, lambda: http_ok(session, f"http://127.0.0.1:{port}/-/ready")))
    if way == RELOAD:
        write_file_sd(arm.sd_file, file_sd([fleet_port + 1], "127.0.0.1"))
        (arm.workdir / "prometheus.yml").write_text(yaml.safe_dump(prometheus_config(arm.sd_file)))
        async with session.post(f"http://127.0.0.1:{port}/-/reload") as resp:
            resp.raise_for_status()
    return {"source": "prometheus", "prometheusAddress": f"http://127.0.0.1:{port}"}


async def _target_listed(session: aiohttp.ClientSession, address: str, replica: str) -> bool:
    async with session.get(f"{address}/api/v1/targets") as resp:
        targets = (await resp.json())["data"]["activeTargets"]
    return any(t["labels"].get("instance") == replica for t in targets)


async def measure(way: str, workdir: Path) -> float:
    """Seconds from the arm's processes up to the first sample of the replica in Prometheus."""
    arm = _arm(workdir)
    try:
        async with aiohttp.ClientSession() as session:
            if way == AHEAD:
                await arm.start_prometheus_ahead()
                fleet_port, port = arm.ports()
                address = f"http://127.0.0.1:{port}"
                # The previous arm runs for a minute; its Prometheus' first tick comes 5 s after its start.
                await wait_until(lambda: _target_listed(session, address, f"127.0.0.1:{fleet_port + 1}"), 15.0,
                                 "the target to be listed")
                source, _ = await arm.start_processes(session)
            elif way == BEFORE:
                source, _ = await arm.start_processes(session)  # what the demo's first arm does
            else:
                source = await _start_variant(arm, session, way)
            up = time.monotonic()
            await arm.wait_for_signals(source)
            return time.monotonic() - up
    finally:
        await arm.stop()


def _plot(path: Path, results: dict[str, list[float]]) -> None:
    fig, ax = plt.subplots(figsize=(8, 3.2))
    for row, way in enumerate(WAYS):
        colour = {BEFORE: "tab:red", AHEAD: "tab:green"}.get(way, "tab:grey")
        ax.scatter(results[way], [row] * len(results[way]), color=colour)
    ax.set_yticks(range(len(WAYS)), WAYS)
    ax.invert_yaxis()
    ax.set_xlabel("seconds from processes up to the replica's first sample")
    ax.set_xlim(left=0)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each way (default 3)")
    parser.add_argument("--png", type=Path, help="also plot every run to this PNG")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs: expected a positive count, got {args.runs}")
    if not prometheus_binary():
        print("prometheus not found on PATH (Debian: apt-get install prometheus)", file=sys.stderr)
        return 1
    console = Console()
    results: dict[str, list[float]] = {way: [] for way in WAYS}
    with tempfile.TemporaryDirectory(prefix="demo-prometheus-start-") as tmp:
        for run in range(1, args.runs + 1):
            for way in WAYS:  # interleaved: the machine's load falls on every way alike
                seconds = asyncio.run(measure(way, Path(tmp) / f"{run}-{WAYS.index(way)}"))
                results[way].append(seconds)
                console.print(f"run {run}/{args.runs}  {way:<40} {seconds:5.2f} s")
    table = Table(title="processes up -> the replica's first sample in the demo's Prometheus (scrape every 0.5 s)")
    table.add_column("the replica given to Prometheus")
    table.add_column("runs (s)")
    table.add_column("median", justify="right")
    for way in WAYS:
        table.add_row(way, " ".join(f"{s:.2f}" for s in results[way]), f"{statistics.median(results[way]):.2f} s")
    console.print(table)
    before, after = statistics.median(results[BEFORE]), statistics.median(results[AHEAD])
    console.print(f"before {before:.2f} s, after {after:.2f} s (medians of {args.runs} runs)")
    if args.png:
        _plot(args.png, results)
        console.print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
