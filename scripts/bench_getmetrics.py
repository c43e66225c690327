#!/usr/bin/env python3
"""GetMetrics latency with many ScaledObjects, as KEDA would poll them.

Starts an exporter serving one vLLM /metrics page with N models (the real 0.29.0 capture's
series, renamed), a real Prometheus scraping it every second (or none with --source scrape),
and `slo-scaler serve` polling every model every second. Then N ScaledObjects each call
GetMetricSpec, GetMetrics and IsActive once a second (spread over the second, like KEDA's
per-ScaledObject loops) for --seconds, and the GetMetrics latencies seen by the client are
printed (p50, p90, p99, max) and plotted (CDF PNG).

    python scripts/bench_getmetrics.py                 # 200 ScaledObjects, Prometheus, 30 s
    python scripts/bench_getmetrics.py --source scrape --scaledobjects 500
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import grpc
import matplotlib
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from lab import REPO, Lab

from scaler.server.protocol import ExternalScalerClient, GetMetricsRequest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CAPTURE = REPO / "tests" / "fixtures" / "vllm" / "metrics_sample_0.29.0.txt"
SERIES = ("vllm:num_requests_waiting", "vllm:num_requests_running", "vllm:request_success")


def exporter_page(models: list[str]) -> str:
    """The capture's waiting, running and success families, one set of series per model."""
    lines = CAPTURE.read_text().splitlines()
    head = [line for line in lines if line.startswith(("# HELP", "# TYPE")) and line.split()[2] in SERIES]
    body = [line for line in lines if re.match(r"(vllm:num_requests_(waiting|running)|vllm:request_success_total)\{",
                                               line)]
    out = list(head)
    for i, model in enumerate(models):
        for line in body:
            line = line.replace('model_name="qwen2.5-1.5b"', f'model_name="{model}"')
            value = {"vllm:num_requests_waiting": i % 7, "vllm:num_requests_running": i % 5}.get(line.split("{")[0])
            out.append(line.rsplit(" ", 1)[0] + f" {value if value is not None else 100 + i}")
    return "\n".join(out) + "\n"


def start_exporter(page: str) -> tuple[ThreadingHTTPServer, int]:
    body = page.encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, args=(0.1,), daemon=True).start()
    return httpd, httpd.server_address[1]


async def keda(port: int, metadata: list[dict[str, str]], seconds: float, warmup_s: float, progress) -> tuple:
    """Every ScaledObject: spec, metrics, activity once a second; GetMetrics latencies after warm-up."""
    latencies: list[float] = []
    errors: dict[str, int] = {}
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        client = ExternalScalerClient(channel)
        start = time.monotonic() + 0.5
        end = start + warmup_s + seconds
        task = progress.add_task("ScaledObjects polling", total=warmup_s + seconds)

        async def scaled_object(index: int, meta: dict[str, str]) -> None:
            ref = ExternalScalerClient.ref(meta, name=f"so-{index}", namespace="bench")
            tick = start + index / len(metadata)  # spread over the second
            while tick < end:
                await asyncio.sleep(max(0.0, tick - time.monotonic()))
                try:
                    name = (await client.GetMetricSpec(ref, timeout=3)).metricSpecs[0].metricName
                    began = time.perf_counter()
                    await client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref, metricName=name), timeout=3)
                    if tick >= start + warmup_s:
                        latencies.append(time.perf_counter() - began)
                    await client.IsActive(ref, timeout=3)
                except grpc.aio.AioRpcError as error:
                    errors[error.code().name] = errors.get(error.code().name, 0) + 1
                tick += 1.0

        async def ticker():
            while time.monotonic() < end:
                progress.update(task, completed=max(0.0, time.monotonic() - start))
                await asyncio.sleep(0.5)

        await asyncio.gather(ticker(), *(scaled_object(i, m) for i, m in enumerate(metadata)))
    return latencies, errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scaledobjects", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds, after a 5 s warm-up")
    parser.add_argument("--source", choices=("prometheus", "scrape"), default="prometheus")
    parser.add_argument("--poll-interval", type=float, default=1.0,
                        help="serve's poll interval; a huge value measures the RPC path alone")
    parser.add_argument("--out", type=Path, default=Path("bench-out/bench-getmetrics.png"), help="CDF plot (PNG)")
    args = parser.parse_args()
    console = Console(stderr=True)

    models = [f"bench-{i:03d}" for i in range(args.scaledobjects)]
    httpd, port = start_exporter(exporter_page(models))
    with Lab() as lab:
        lab.callback(httpd.shutdown)
        console.print(f"exporter with {len(models)} models on :{port}; workdir {lab.workdir}")
        source = {"source": "scrape", "scrapeTargets": f"http://127.0.0.1:{port}/metrics"}
        if args.source == "prometheus":
            source = {"source": "prometheus", "prometheusAddress": lab.prometheus([f"127.0.0.1:{port}"], 1.0)}
        metadata = [{"scalerAddress": "slo-scaler.keda:9090", "model": m, "ttftSloSeconds": "2",
                     "perReplicaCapacity": "4", **source} for m in models]
        # The ScaledObjects register themselves on their first call, as with KEDA.
        serve = lab.serve("--poll-interval", str(args.poll_interval))
        with Progress(console=console, transient=True) as progress:
            latencies, errors = asyncio.run(keda(serve.grpc_port, metadata, args.seconds, 5.0, progress))
        round_s = [serve.metric("slo_scaler_source_query_seconds", model=m, source=args.source) for m in models[:1]]

    ms = sorted(1000 * x for x in latencies)
    q = statistics.quantiles(ms, n=1000, method="inclusive")
    table = Table(title=f"GetMetrics, {len(models)} ScaledObjects x 1/s, source {args.source}, "
                        f"poll every {args.poll_interval:g} s")
    for column in ("calls", "errors", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "source round s"):
        table.add_column(column, justify="right")
    table.add_row(str(len(ms)), str(sum(errors.values())) + (f" {errors}" if errors else ""), f"{q[499]:.2f}",
                  f"{q[899]:.2f}", f"{q[989]:.2f}", f"{q[998]:.2f}", f"{ms[-1]:.2f}",
                  f"{round_s[0]:.3f}" if round_s[0] is not None else "-")
    Console().print(table)

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(ms, [i / len(ms) for i in range(1, len(ms) + 1)])
    for label, value in (("p50", q[499]), ("p99", q[989])):
        ax.axvline(value, linestyle="--", color="grey")
        ax.annotate(f"{label} {value:.2f} ms", (value, 0.05 if label == "p50" else 0.5), rotation=90)
    ax.set_xscale("log")
    ax.set_xlabel("GetMetrics latency seen by the client (ms)")
    ax.set_ylabel("fraction of calls")
    ax.set_title(f"{len(models)} ScaledObjects polled every second ({args.source})")
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=120)
    console.print(f"plot: {args.out}")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
