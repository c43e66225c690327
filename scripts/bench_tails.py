#!/usr/bin/env python3
"""RLS and GetMetrics tails side by side under the load of a busy cluster (issue 13).

One `slo-scaler serve` (scaler + RLS) polls N models from a real Prometheus every second (an
exporter serves one vLLM page with N models); N ScaledObjects call GetMetricSpec, GetMetrics
and IsActive once a second each, as KEDA does (this process); a second process sends
ShouldRateLimit at --rls-rps, open loop, as Envoy would for every request. Both latencies are
measured by their clients and printed side by side, with the share of RLS answers over Envoy's
default 50 ms timeout, and the RSS of serve and of its RLS process over the measured period (a
soak: `--seconds 600`; each minute, and from minute 3, when every per-model history is full); the
CDFs go to a PNG. The load generators stand for KEDA and Envoy, which run elsewhere in a cluster;
`--nice N` lowers their priority (serve and Prometheus keep theirs) when other work shares the
machine. On a quiet machine leave it at 0: a niced client's own scheduling delays count in the
latencies it measures (4 ms of RLS p99 at nice 10, 3 ms at 0, back to back).

    python scripts/bench_tails.py                          # 300 ScaledObjects, 500 RLS calls/s, 30 s
    python scripts/bench_tails.py --scaledobjects 100 --rls-rps 200 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import threading
import statistics
import time
from pathlib import Path

import grpc
import matplotlib
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench_getmetrics import exporter_page, keda, start_exporter
from lab import Lab
from scaler.ports import free_port
from scaler.rls.stubs import SHOULD_RATE_LIMIT, rls

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

WARMUP_S = 5.0
FILLED_S = 180.0  # by then the longest per-model history (the policy's release hold) is full
ENVOY_TIMEOUT_MS = 50.0
GC_HOOK = Path(__file__).resolve().parent / "gc_hook"


def rls_load(port: int, models: list[str], rps: float, start: float, seconds: float, out) -> None:
    """Child process: ShouldRateLimit at `rps` from `start` (wall clock) for WARMUP_S + seconds."""

    async def run() -> list[float]:
        latencies: list[float] = []
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.unary_unary(SHOULD_RATE_LIMIT.path, request_serializer=SHOULD_RATE_LIMIT.request.SerializeToString,
                                       response_deserializer=SHOULD_RATE_LIMIT.response.FromString)
            rng = random.Random(7)

            async def one(measured: bool) -> None:
                entries = [rls.RateLimitDescriptor.Entry(key="model", value=rng.choice(models)),
                           rls.RateLimitDescriptor.Entry(key="class", value="interactive"),
                           rls.RateLimitDescriptor.Entry(key="tenant", value=f"t{rng.randrange(5)}")]
                request = rls.RateLimitRequest(domain="slo-scaler", descriptors=[rls.RateLimitDescriptor(entries=entries)])
                began = time.perf_counter()
                try:
                    await call(request, timeout=1.0)
                except grpc.aio.AioRpcError:
                    latencies.append(float("inf")) if measured else None
                    return
                if measured:
                    latencies.append(time.perf_counter() - began)

            await asyncio.sleep(max(0.0, start - time.time()))
            tasks, due, end = [], time.time(), start + WARMUP_S + seconds
            while due < end:
                while due <= time.time():
                    tasks.append(asyncio.create_task(one(due >= start + WARMUP_S)))
                    due += 1.0 / rps
                await asyncio.sleep(0.001)
            await asyncio.gather(*tasks)
        return latencies

    out.send(asyncio.run(run()))


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (serve's RLS process)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def sample_rss(pid: int, start: float, end: float, samples: list) -> None:
    """(seconds since start, serve's RSS MB, its RLS process's RSS MB) every 5 s of the measured
    period, on a thread."""
    while time.time() < end:
        if time.time() >= start:
            samples.append((time.time() - start, rss_mb(pid), sum(rss_mb(child) for child in children(pid))))
        time.sleep(5.0)


def quantiles(values_s: list[float]) -> tuple[list[float], dict[str, float]]:
    ms = sorted(1000 * v for v in values_s)
    q = statistics.quantiles(ms, n=1000, method="inclusive")
    return ms, {"p50": q[499], "p90": q[899], "p99": q[989], "p99.9": q[998], "max": ms[-1]}


def print_gc_pauses(path: Path, since: float, until: float) -> None:
    """serve's garbage-collector pauses over the measured period, per generation."""
    pauses: dict[int, list[float]] = {}
    seconds = until - since
    for line in path.read_text().splitlines() if path.exists() else []:
        at, generation, ms = line.split()
        if since <= float(at) <= until:
            pauses.setdefault(int(generation), []).append(float(ms))
    for generation, ms in sorted(pauses.items()):
        ms.sort()
        print(f"serve gc generation {generation}: {len(ms)} collections ({len(ms) / seconds:.1f}/s), pause median "
              f"{statistics.median(ms):.2f} ms, p99 {ms[int(0.99 * (len(ms) - 1))]:.2f} ms, max {ms[-1]:.2f} ms, "
              f"{sum(ms) / seconds:.1f} ms a second")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scaledobjects", type=int, default=300)
    parser.add_argument("--rls-rps", type=float, default=500.0)
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds, after a 5 s warm-up")
    parser.add_argument("--nice", type=int, default=0, help="niceness of the load generators (this process "
                        "and the RLS client); serve and Prometheus keep theirs (default 0)")
    parser.add_argument("--poll-interval", type=float, default=1.0,
                        help="serve's poll interval; a huge value measures the RPC paths alone")
    parser.add_argument("--out", type=Path, default=Path("bench-out/bench-tails.png"), help="CDF plot (PNG)")
    parser.add_argument("--gc-log", action="store_true", help="also log serve's garbage-collector pauses "
                        "(a gc.callbacks hook, scripts/gc_hook) and print them per generation")
    args = parser.parse_args()
    console = Console(stderr=True)

    models = [f"bench-{i:03d}" for i in range(args.scaledobjects)]
    httpd, port = start_exporter(exporter_page(models))
    with Lab() as lab:
        lab.callback(httpd.shutdown)
        prometheus = lab.prometheus([f"127.0.0.1:{port}"], 1.0)
        metadata = [{"scalerAddress": "slo-scaler.keda:9090", "model": m, "ttftSloSeconds": "2",
                     "perReplicaCapacity": "4", "source": "prometheus", "prometheusAddress": prometheus}
                    for m in models]
        rls_port = free_port()
        gc_log = lab.workdir / "gc-pauses.log"
        if args.gc_log:  # serve's start-up loads scripts/gc_hook/sitecustomize.py, which logs each pause
            os.environ["SLO_SCALER_GC_LOG"] = str(gc_log)
            os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(GC_HOOK), os.environ.get("PYTHONPATH")]))
        serve = lab.serve("--poll-interval", str(args.poll_interval), "--rls-port", str(rls_port))
        # The load generators stand for KEDA and Envoy, which run on other machines: with --nice they
        # yield the CPU to serve and Prometheus (both started above).
        os.nice(args.nice)
        console.print(f"{len(models)} ScaledObjects at 1/s, {args.rls_rps:g} RLS calls/s, {args.seconds:g} s "
                      f"measured, load generators at nice {args.nice}; workdir {lab.workdir}")
        receive, send = multiprocessing.get_context("spawn").Pipe(duplex=False)
        start = time.time() + 3.0  # the child starts its clock with the KEDA clients
        child = multiprocessing.get_context("spawn").Process(
            target=rls_load, args=(rls_port, models, args.rls_rps, start, args.seconds, send))
        child.start()
        rss: list[tuple[float, float]] = []
        threading.Thread(target=sample_rss, args=(serve.proc.pid, start + WARMUP_S, start + WARMUP_S + args.seconds, rss),
                         daemon=True).start()
        with Progress(console=console, transient=True) as progress:
            time.sleep(max(0.0, start - time.time() - 0.5))
            keda_latencies, errors = asyncio.run(keda(serve.grpc_port, metadata, args.seconds, WARMUP_S, progress))
        rls_latencies = receive.recv()
        child.join(30)

    rls_failed = sum(1 for v in rls_latencies if v == float("inf"))
    rls_ms, rls_q = quantiles([v for v in rls_latencies if v != float("inf")])
    keda_ms, keda_q = quantiles(keda_latencies)
    over = sum(1 for v in rls_ms if v > ENVOY_TIMEOUT_MS) + rls_failed
    table = Table(title=f"{len(models)} ScaledObjects x 1/s + {args.rls_rps:g} ShouldRateLimit/s, {args.seconds:g} s")
    for column in ("RPC", "calls", "errors", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", f"> {ENVOY_TIMEOUT_MS:g} ms"):
        table.add_column(column, justify="right")
    table.add_row("ShouldRateLimit", str(len(rls_latencies)), str(rls_failed), *(f"{rls_q[k]:.2f}" for k in rls_q),
                  f"{100 * over / max(1, len(rls_latencies)):.2f}%")
    table.add_row("GetMetrics", str(len(keda_ms)), str(sum(errors.values())) + (f" {errors}" if errors else ""),
                  *(f"{keda_q[k]:.2f}" for k in keda_q), "")
    Console(width=160).print(table)  # wide enough for every column when not on a terminal
    if len(rss) >= 2:
        for name, column in (("serve", 1), ("its RLS process", 2), ("both", None)):
            values = [v[column] if column else v[1] + v[2] for v in rss]
            first, last, peak = values[0], values[-1], max(values)
            print(f"{name} RSS over the measured {args.seconds:g} s: first {first:.0f} MB, last {last:.0f} MB "
                  f"({100 * (last - first) / max(first, 1e-9):+.1f}%), peak {peak:.0f} MB, {len(values)} samples")
        minutes = [f"{t / 60:.0f} min {a:.0f}+{b:.0f} MB" for t, a, b in rss if int(t) % 60 < 5]
        print("serve+RLS RSS each minute: " + ", ".join(minutes))
        # Every per-model history is bounded by time (rate window, maxStalenessSeconds, the policy's
        # release hold of 3 scale-ups): the heap grows until the longest is full, then stays.
        filled = [v for v in rss if v[0] >= FILLED_S]
        if len(filled) >= 2:
            first, last = filled[0][1] + filled[0][2], filled[-1][1] + filled[-1][2]
            print(f"serve+RLS RSS from minute {FILLED_S / 60:g} (histories full) to the end: {first:.0f} -> "
                  f"{last:.0f} MB ({100 * (last - first) / first:+.1f}%), peak {max(a + b for _, a, b in filled):.0f} MB")

    if args.gc_log:
        print_gc_pauses(gc_log, start + WARMUP_S, start + WARMUP_S + args.seconds)

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, ms in (("ShouldRateLimit", rls_ms), ("GetMetrics", keda_ms)):
        ax.plot(ms, [i / len(ms) for i in range(1, len(ms) + 1)], label=name)
    ax.axvline(ENVOY_TIMEOUT_MS, linestyle="--", color="grey")
    ax.set_xscale("log")
    ax.set_xlabel("latency seen by the client (ms)")
    ax.set_ylabel("fraction of calls")
    ax.set_title(f"{len(models)} ScaledObjects at 1/s + {args.rls_rps:g} RLS calls/s")
    ax.legend()
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=120)
    console.print(f"plot: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
