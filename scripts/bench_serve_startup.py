"""`slo-scaler serve` start-up: seconds until it serves, resident memory, modules loaded.

    python scripts/bench_serve_startup.py [--repo DIR ...] [--runs 5]

Each --repo is a checkout to run from (PYTHONPATH=DIR; default this one), so two versions are
measured side by side in one run. Memory is VmRSS of the process once it answers GetMetricSpec.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc

from scaler.server.process import LOCAL_FLAGS
from scaler.server.protocol import ExternalScalerClient

HEAVY = ("matplotlib", "numpy", "rich", "scaler.sim", "scaler.demo", "grpc_tools.protoc", "jinja2", "kubernetes")
SITECUSTOMIZE = """
import atexit, json, os, sys
atexit.register(lambda: open(os.environ["MODULES_OUT"], "w").write(json.dumps(sorted(sys.modules))))
"""


def once(repo: Path, tmp: Path) -> tuple[float, float, int, int]:
    (tmp / "sitecustomize.py").write_text(SITECUSTOMIZE)
    out = tmp / "modules.json"
    env = dict(os.environ, PYTHONPATH=f"{repo}{os.pathsep}{tmp}", MODULES_OUT=str(out))
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "scaler", "serve", *LOCAL_FLAGS], env=env, cwd=tmp,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    port = None
    for line in proc.stderr:
        if '"serving"' in line:
            port = json.loads(line)["grpc_port"]
            break
    if port is None:
        raise SystemExit(f"serve from {repo} did not start")
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        client = ExternalScalerClient(channel)
        client.GetMetricSpec(client.ref({"model": "m", "prometheusAddress": "http://127.0.0.1:1",
                                         "ttftSloSeconds": "1"}), timeout=10)
    seconds = time.perf_counter() - started
    rss_kb = next(int(line.split()[1]) for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines()
                  if line.startswith("VmRSS:"))
    proc.terminate()
    proc.communicate(timeout=10)
    modules = json.loads(out.read_text())
    heavy = sum(any(m == h or m.startswith(h + ".") for h in HEAVY) for m in modules)
    return seconds, rss_kb / 1024, len(modules), heavy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", action="append", type=Path, help="checkout to run from (repeatable)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    repos = args.repo or [Path(__file__).resolve().parents[1]]
    print(f"{'checkout':<40} {'start s (median)':>16} {'RSS MiB':>8} {'modules':>8} {'heavy':>6}")
    for repo in repos:
        rows = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                rows.append(once(repo.resolve(), Path(tmp)))
        seconds, rss, modules, heavy = (statistics.median(col) for col in zip(*rows))
        print(f"{str(repo):<40} {seconds:>16.2f} {rss:>8.0f} {modules:>8.0f} {heavy:>6.0f}", flush=True)


if __name__ == "__main__":
    main()
