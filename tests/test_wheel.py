"""The built wheel alone runs every command: templates, descriptor sets and traces are package data.

Builds the wheel from this checkout, installs it (with its `tools` extra) into a fresh venv, and runs
the commands from a folder outside the source tree with no PYTHONPATH, so nothing can be read from
the checkout.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path

import grpc
import pytest

from conftest import free_port_range, poll_until
from scaler.server.process import LOCAL_FLAGS
from scaler.server.protocol import ExternalScalerClient

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def installed(wheel_install):
    """(bin directory, a working folder outside the checkout, environment without PYTHONPATH); the
    build and install start with the session (conftest, tests/wheel_helpers.py)."""
    return wheel_install.result()


def run(installed, *argv, timeout=240):
    bin_dir, work, env = installed
    return subprocess.run([str(bin_dir / "slo-scaler"), *argv], cwd=work, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_the_wheel_carries_no_source_tree_paths(installed):
    bin_dir, work, env = installed
    code = "import scaler, scaler.templates; print(scaler.__file__); print(scaler.templates.__file__)"
    out = subprocess.run([str(bin_dir / "python"), "-c", code], cwd=work, env=env, capture_output=True,
                         text=True, check=True).stdout
    assert str(REPO) not in out and "site-packages" in out


def test_render_from_the_wheel(installed):
    proc = run(installed, "render", str(REPO / "manifests/examples/specs/chat.yaml"), "-o", "out")
    assert proc.returncode == 0, proc.stderr
    assert (installed[1] / "out" / "chat" / "scaledobject.yaml").is_file()


def test_bench_reads_the_packaged_traces(installed):
    proc = run(installed, "bench", "--workload", "azure-code", "--policies", "slo-scaler", "--seeds", "1",
               "--jobs", "1", "--out", "bench")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (installed[1] / "bench" / "results.json").is_file()


def test_serve_answers_get_metric_spec_from_the_wheel(installed):
    bin_dir, work, env = installed
    proc = subprocess.Popen([str(bin_dir / "slo-scaler"), "serve", *LOCAL_FLAGS], cwd=work, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        port = next(json.loads(line)["grpc_port"] for line in proc.stderr if '"serving"' in line)
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            client = ExternalScalerClient(channel)
            ref = client.ref({"model": "m", "prometheusAddress": "http://127.0.0.1:1", "ttftSloSeconds": "1"})
            assert client.GetMetricSpec(ref, timeout=10).metricSpecs[0].targetSizeFloat == 1.0
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


def test_emulate_serves_from_the_wheel(installed):
    bin_dir, work, env = installed
    port = free_port_range(2)  # the front door, then replica 1
    proc = subprocess.Popen([str(bin_dir / "slo-scaler"), "emulate", "--port", str(port), "--cold-start", "0"],
                            cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def metrics():
            with urllib.request.urlopen(f"http://127.0.0.1:{port + 1}/metrics", timeout=2) as response:
                return "vllm:num_requests_running" in response.read().decode()
        poll_until(metrics, 60, "the wheel's emulator to serve /metrics")
    finally:
        proc.terminate()
        proc.wait(15)


def test_demo_finds_its_parts_from_the_wheel(installed):
    proc = run(installed, "demo", "--help")
    assert proc.returncode == 0 and "slo-scaler demo" in proc.stdout
