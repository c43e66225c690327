#!/usr/bin/env python3
"""The price of one admission budget across replicas: RLS decisions with the state in this process
and in Redis (serve --state-store), side by side in one run.

    python scripts/bench_state_store.py [--decisions 5000] [--threads 4]

The real RateLimitService (scaler.rls.server.build_service, a real ModelRegistry, a model in RED
with tenants and all four classes) decides `--decisions` calls from one thread, then from
`--threads` threads at once (as grpc's workers call it), against a LocalStore and against a
redis-server started here (Debian's binary, loopback). Prints decisions/s and latency p50/p99,
and what Redis adds.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

MODEL = "bench-model"
TENANTS_YAML = "tenants:\n  - name: web\n    weight: 3\n  - name: api\n    weight: 1\n    quotaRequestsPerSecond: 100000\n"
CLASSES = ("interactive", "agent", "background", "batch")


def service(tenants: Path, *flags: str):
    from admission_helpers import decision
    from prometheus_client import CollectorRegistry
    from rls_helpers import rls_args, scrape_metadata
    from scaler.policy.decide import State
    from scaler.rls.server import build_service
    from scaler.rls.settings import RlsSettings
    from scaler.server.registry import ModelRegistry
    from scaler.sources import Observation

    registry = ModelRegistry()
    entry = registry.ensure(scrape_metadata(MODEL), pinned=True)
    # Inputs and decision dated an hour ahead: fresh (RED, not UNKNOWN) for the whole run.
    ahead = registry.clock() + 3600
    entry.observation = Observation(time=ahead, waiting=50.0, running=8.0, ready_replicas=1, completed_total=None)
    entry.decision = decision(State.RED, 200.0, 5.0, time=ahead)
    return build_service(registry, RlsSettings.from_args(rls_args("--tenants", str(tenants), *flags)),
                         CollectorRegistry())


def run(svc, n: int, threads: int) -> tuple[float, list[float]]:
    from rls_helpers import request

    requests = [request({"model": MODEL, "class": CLASSES[i % 4], "tenant": ("web", "api", "x")[i % 3]})
                for i in range(120)]
    latencies: list[float] = []
    lock = threading.Lock()

    def work(share: int) -> None:
        mine = []
        for i in range(share):
            began = time.perf_counter()
            svc.should_rate_limit(requests[i % len(requests)])
            mine.append(time.perf_counter() - began)
        with lock:
            latencies.extend(mine)

    began = time.perf_counter()
    pool = [threading.Thread(target=work, args=(n // threads,)) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return len(latencies) / (time.perf_counter() - began), latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=5000)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server not found: apt-get install redis-server")
    from conftest import free_port

    with tempfile.TemporaryDirectory() as tmp:
        tenants = Path(tmp) / "tenants.yaml"
        tenants.write_text(TENANTS_YAML)
        port = free_port()
        redis = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", tmp],
                                 stdout=subprocess.DEVNULL)
        try:
            time.sleep(0.5)
            stores = {"local": service(tenants), "redis": service(tenants, "--state-store", f"redis://127.0.0.1:{port}/0")}
            print(f"{'store':<6} {'threads':>7} {'decisions/s':>12} {'p50 ms':>8} {'p99 ms':>8} {'fell back':>9}"
                  f"  (of {args.decisions} decisions)")
            p = {}
            for threads in (1, args.threads):
                for name, svc in stores.items():
                    run(svc, 500, threads)  # warm up: connections, caches
                    before = svc.store.stats.updates.get("fallback", 0)
                    rate, lat = run(svc, args.decisions, threads)
                    # A call past the store's 20 ms timeout leaves Redis alone for a second (the 1/N share).
                    fell_back = svc.store.stats.updates.get("fallback", 0) - before
                    q = statistics.quantiles(lat, n=100)
                    p[name, threads] = (q[49], q[98])
                    print(f"{name:<6} {threads:>7} {rate:>12,.0f} {q[49] * 1e3:>8.3f} {q[98] * 1e3:>8.3f} "
                          f"{fell_back:>9}", flush=True)
                added = [p["redis", threads][i] - p["local", threads][i] for i in (0, 1)]
                print(f"{'added':<6} {threads:>7} {'':>12} {added[0] * 1e3:>8.3f} {added[1] * 1e3:>8.3f}")
            for svc in stores.values():
                svc.store.close()
        finally:
            redis.terminate()
            redis.wait(5)


if __name__ == "__main__":
    main()
