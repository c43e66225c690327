#!/usr/bin/env python3
"""How many requests per second one emulator process serves, and the latency it adds.

Starts `slo-scaler emulate` as a subprocess with every step-time term at zero (the model
takes no time), then runs closed-loop aiohttp clients against one replica's port and the
front door, streaming and not, at several concurrencies. With zero model time, each
request's latency is what the emulator (HTTP, JSON, scheduling) adds. Prints a table and
writes a PNG. The load generator shares the machine: on 2 cores it takes one of them.

    python scripts/bench_emulator.py [--seconds 5] [--concurrency 1 8 32] [--plot bench-out/emulator.png]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

REPO = Path(__file__).resolve().parent.parent
MODEL = "bench"


def free_base_port(count: int) -> int:
    for _ in range(100):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            base = sock.getsockname()[1]
        ok = True
        for port in range(base, base + count):
            with socket.socket() as probe:
                try:
                    probe.bind(("127.0.0.1", port))
                except OSError:
                    ok = False
                    break
        if ok and base + count < 65000:
            return base
    raise SystemExit("no free port range on 127.0.0.1")


def start_emulator(port: int, log_path: Path) -> subprocess.Popen:
    args = [sys.executable, "-m", "scaler", "emulate", "--port", str(port), "--replicas", "1", "--max-replicas", "1",
            "--model", MODEL, "--max-num-seqs", "1024", "--step-base-s", "0", "--prefill-s-per-token", "0",
            "--decode-s-per-seq", "0", "--kv-read-s-per-token", "0"]
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=log_path.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"emulator exited: {log_path.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as resp:
                if resp.status == 200:
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("emulator did not become healthy within 30 s")


async def run_load(url: str, stream: bool, concurrency: int, seconds: float, tokens: int) -> tuple[int, list[float], int]:
    payload = {"model": MODEL, "prompt": "x", "max_tokens": tokens, "stream": stream}
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        async def client():
            nonlocal errors
            while time.perf_counter() < deadline:
                began = time.perf_counter()
                async with session.post(url + "/v1/completions", json=payload) as resp:
                    await resp.read()
                    if resp.status != 200:
                        errors += 1
                        continue
                latencies.append(time.perf_counter() - began)

        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    return round(len(latencies) / elapsed), latencies, errors


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="Duration of each load point (default 5).")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32], help="Closed-loop clients.")
    parser.add_argument("--tokens", type=int, default=1, help="max_tokens per request (default 1).")
    parser.add_argument("--plot", type=Path, default=REPO / "bench-out" / "emulator.png", help="PNG output.")
    args = parser.parse_args()
    if args.seconds <= 0 or args.tokens < 1 or min(args.concurrency) < 1:
        parser.error("--seconds must be > 0, --tokens and --concurrency >= 1")

    console = Console()
    port = free_base_port(2)
    log = Path(tempfile.mkdtemp()) / "emulator.log"
    proc = start_emulator(port, log)
    points = [(target, stream, c) for target in ("replica", "front door") for stream in (False, True)
              for c in args.concurrency]
    rows = []
    try:
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("load points", total=len(points))
            for target, stream, concurrency in points:
                url = f"http://127.0.0.1:{port + 1}" if target == "replica" else f"http://127.0.0.1:{port}"
                rps, lat, errors = asyncio.run(run_load(url, stream, concurrency, args.seconds, args.tokens))
                rows.append((target, stream, concurrency, rps, percentile(lat, 50) * 1e3, percentile(lat, 99) * 1e3,
                             errors))
                progress.advance(task)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)

    table = Table(title=f"emulator, zero model time, max_tokens={args.tokens}, {os.cpu_count()} CPUs "
                        f"(load generator on the same machine)")
    for col in ("target", "stream", "clients", "req/s", "p50 ms", "p99 ms", "errors"):
        table.add_column(col, justify="right")
    for target, stream, c, rps, p50, p99, errors in rows:
        table.add_row(target, "yes" if stream else "no", str(c), str(rps), f"{p50:.2f}", f"{p99:.2f}", str(errors))
    console.print(table)
    best = max(rows, key=lambda r: r[3])
    single = [r for r in rows if r[2] == min(args.concurrency) and r[0] == "replica" and not r[1]][0]
    print(f"peak: {best[3]} req/s ({best[0]}, stream={'yes' if best[1] else 'no'}, {best[2]} clients); "
          f"added latency at {single[2]} client(s), non-streaming: p50 {single[4]:.2f} ms, p99 {single[5]:.2f} ms")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_rps, ax_lat) = plt.subplots(1, 2, figsize=(10, 4))
    for target in ("replica", "front door"):
        for stream in (False, True):
            sel = [r for r in rows if r[0] == target and r[1] == stream]
            label = f"{target}{', stream' if stream else ''}"
            ax_rps.plot([r[2] for r in sel], [r[3] for r in sel], marker="o", label=label)
            ax_lat.plot([r[2] for r in sel], [r[5] for r in sel], marker="o", label=label)
    ax_rps.set(xlabel="concurrent clients", ylabel="requests/s", title="throughput (zero model time)")
    ax_lat.set(xlabel="concurrent clients", ylabel="p99 latency (ms)", title="latency added by the emulator")
    for ax in (ax_rps, ax_lat):
        ax.set_xscale("log", base=2)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    args.plot.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.plot, dpi=120)
    print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
