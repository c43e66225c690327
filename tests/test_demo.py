"""`slo-scaler demo` as a user runs it: the shortened run end to end, and Ctrl-C in the middle.

The shortened run is the slowest test of the suite (about 25 s): it starts the emulator,
Prometheus, serve, Envoy and the actuator for both arms side by side, sends the burst to each and
checks the comparison the README promises. Deselect it with `-m "not slow"`.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import REPO, poll_until

pytestmark = pytest.mark.integration


def _demo(out: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""), COLUMNS="160")
    # As from a terminal: Ctrl-C raises KeyboardInterrupt even when pytest itself was started with
    # SIGINT ignored (a background job of a shell without job control), which the child inherits.
    as_from_a_terminal = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                          "sys.argv[0] = 'slo-scaler'; runpy.run_module('scaler', run_name='__main__')")
    return subprocess.Popen([sys.executable, "-c", as_from_a_terminal, "demo", "--quick", "--out", str(out)],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _closed(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) != 0


def _ports_of(workdir: Path) -> dict[str, int]:
    """Every port the arm's processes listened on, from the files the demo wrote for them."""
    ports = {}
    envoy = workdir / "envoy.yaml"
    if envoy.exists():
        config = yaml.safe_load(envoy.read_text())
        ports["envoy"] = config["static_resources"]["listeners"][0]["address"]["socket_address"]["port_value"]
        ports["envoy-admin"] = config["admin"]["address"]["socket_address"]["port_value"]
        for cluster in config["static_resources"]["clusters"]:
            endpoint = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]
            ports[cluster["name"]] = endpoint["address"]["socket_address"]["port_value"]  # emulator, RLS
    models = workdir / "models.yaml"
    if models.exists():
        ports["prometheus"] = int(yaml.safe_load(models.read_text())[0]["prometheusAddress"].rsplit(":", 1)[1])
    return ports


def _processes_mentioning(text: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if text in cmdline and state != "Z":
                pids.append(int(entry.name))
    return pids


@pytest.mark.slow
def test_shortened_demo_runs_both_arms_and_ends_with_the_comparison(tmp_path):
    out = tmp_path / "demo-out"
    started = time.monotonic()
    proc = _demo(out)
    stdout, _ = proc.communicate(timeout=240)
    took = time.monotonic() - started
    assert proc.returncode == 0, stdout[-4000:]

    # Transitions were printed as they happened, with reasons. The scaler left GREEN with its
    # reason; whether it reached RED depends on timing: admission refuses what would miss between
    # two decisions, which can keep the queue short of RED's line in a burst this short.
    assert re.search(r"scaler\s+GREEN -> (YELLOW|RED) \([\w-]+\)", stdout), stdout[-4000:]
    assert re.search(r"actuator\s+replicas 1 -> \d \(\w+\)", stdout)
    assert re.search(r"fleet\s+replica 2 starting -> ready", stdout)
    for row in ("admitted TTFT p99", "refused attempts by status", "ready replicas every 5 s", "replica-seconds"):
        assert row in stdout

    result = json.loads((out / "comparison.json").read_text())
    slo, base = result["arms"]["slo-scaler"], result["arms"]["baseline"]
    assert slo["requests"] == base["requests"] > 50  # the same burst, twice
    assert base["refused_for_good"] == 0 and base["refused_attempts_by_status"] == {}
    assert slo["refused_for_good"] > 0 and set(slo["refused_attempts_by_status"]) == {"503"}
    assert slo["admitted_ttft_p99_s"] < base["admitted_ttft_p99_s"] / 2
    assert slo["admitted_within_slo"] > base["admitted_within_slo"]
    assert slo["seconds_in_red"] is not None and any(state != "GREEN" for _, state in slo["state_changes"])
    assert slo["first_new_replica_ready_s"] < base["first_new_replica_ready_s"]
    assert slo["max_replicas"] > 1 and base["max_replicas"] > 1  # both arms scaled
    assert (out / "demo-timeline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for arm in ("slo-scaler", "baseline"):
        assert json.loads((out / f"{arm}.json").read_text())["summary"]["requests"] == slo["requests"]

    # Everything the demo started is gone.
    for arm in ("slo-scaler", "baseline"):
        for name, port in _ports_of(out / "work" / arm).items():
            assert _closed(port), (arm, name, port)
    assert _processes_mentioning(str(out)) == []
    print(f"shortened demo took {took:.0f} s")


def test_ctrl_c_stops_everything_the_demo_started(tmp_path):
    out = tmp_path / "demo-out"
    proc = _demo(out)
    lines: list[str] = []
    try:
        # Wait until the slo-scaler arm's processes are up and its load has started.
        deadline = time.monotonic() + 60
        while not any("slo-scaler" in line and "warm-up" in line for line in lines):
            line = proc.stdout.readline()
            assert line or proc.poll() is None, "".join(lines)
            lines.append(line)
            assert time.monotonic() < deadline, "".join(lines)
        workdir = out / "work" / "slo-scaler"
        ports = _ports_of(workdir)
        assert {"envoy", "model_upstream", "slo_scaler_rls", "prometheus"} <= set(ports), ports
        assert not any(_closed(port) for port in ports.values())
        children = _processes_mentioning(str(out))
        assert children  # Prometheus and serve name files in the output directory
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, "".join(lines) + rest
    assert "interrupted" in rest
    # The children first: one may outlive the demo's exit by a moment, and its port with it.
    poll_until(lambda: not _processes_mentioning(str(out)), 5, "the demo's children to be gone")
    for name, port in ports.items():
        assert _closed(port), (name, port)
