"""A `serve` whose start fails partway stops what it had started before the error propagates.

The parts come up in order (gRPC, the RLS process, /metrics, the poll loop); a taken port or an RLS
process that never answers fails the start at that part. Checked on the real `slo-scaler serve`
subprocess (exit code, one error line naming the flag and port, no RLS process left, ports
bindable) and on ScalerApp itself (the same without a process exit to hide a leak, and a `stop()`
that is safe before, after and during another stop).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import subprocess
import sys
import uuid

import pytest

import scaler.rls.process
from conftest import free_port
from scaler.server.app import ScalerApp, StartupError
from scaler.server.process import LOCAL_FLAGS
from scaler_helpers import (GRPC_CORE_LOG, bindable, child_pids, marked_env, processes_marked, serve_args,
                            silent_python)

@pytest.mark.parametrize("taken_flag", ["--grpc-port", "--rls-port", "--metrics-port"])
def test_serve_with_a_taken_port_exits_with_one_line_naming_it_and_leaves_nothing(taken_flag):
    taken = socket.create_server(("127.0.0.1", 0))
    taken_port = taken.getsockname()[1]
    ports = {flag: free_port() for flag in ("--grpc-port", "--rls-port", "--metrics-port") if flag != taken_flag}
    marker = uuid.uuid4().hex
    env = marked_env(marker)
    flags = [*LOCAL_FLAGS, taken_flag, str(taken_port)]
    for flag, port in ports.items():
        flags += [flag, str(port)]
    try:
        done = subprocess.run([sys.executable, "-m", "scaler", "serve", *flags], env=env, capture_output=True,
                              text=True, timeout=120)  # a hang guard only
    finally:
        taken.close()

    assert done.returncode == 1, done.stderr
    errors = [line for line in done.stderr.splitlines()
              if line.strip() and not line.startswith("{") and not GRPC_CORE_LOG.match(line)]
    assert len(errors) == 1, done.stderr  # no traceback, no warning from a part left running
    assert errors[0].startswith("serve: cannot listen: ") and taken_flag in errors[0] and str(taken_port) in errors[0]
    assert processes_marked(marker) == [], "the RLS process outlived serve"
    assert [flag for flag, port in ports.items() if not bindable(port)] == []


def test_a_failed_start_stops_what_it_had_started_and_a_later_stop_is_a_no_op():
    taken = socket.create_server(("127.0.0.1", 0))  # /metrics comes up after gRPC and the RLS process
    grpc_port, rls_port, before = free_port(), free_port(), child_pids()

    async def start_then_stop() -> None:
        app = ScalerApp(serve_args("--grpc-port", str(grpc_port), "--rls-port", str(rls_port),
                                   "--metrics-port", str(taken.getsockname()[1])))
        with pytest.raises(OSError, match=rf"--metrics-port 127\.0\.0\.1:{taken.getsockname()[1]}: "):
            await app.start()
        assert child_pids() <= before, "the RLS process outlived the failed start"
        assert bindable(grpc_port) and bindable(rls_port)
        await app.stop()
        await app.stop()

    try:
        asyncio.run(start_then_stop())
    finally:
        taken.close()


@pytest.mark.parametrize("given_up_by, error, match", [
    ("serve", StartupError, r"--rls-port \d+: the rate-limit service process did not start"),  # its start timeout
    ("caller", TimeoutError, None),  # the start cancelled while it waits for the RLS process
])
def test_an_rls_process_that_never_answers_is_killed_and_grpc_stopped(tmp_path, monkeypatch, given_up_by, error,
                                                                       match):
    monkeypatch.setattr(sys, "executable", silent_python(tmp_path))  # what serve starts the RLS process with
    if given_up_by == "serve":
        monkeypatch.setattr(scaler.rls.process, "START_TIMEOUT_S", 0.5)
    grpc_port, before = free_port(), child_pids()

    async def start() -> None:
        app = ScalerApp(serve_args("--grpc-port", str(grpc_port), "--rls-port", str(free_port())))
        await (app.start() if given_up_by == "serve" else asyncio.wait_for(app.start(), 1.0))

    with pytest.raises(error, match=match):
        asyncio.run(start())
    assert child_pids() <= before, "the RLS process outlived the failed start"
    assert bindable(grpc_port), "the gRPC server still listens"


def test_stop_is_safe_before_start():
    asyncio.run(ScalerApp(serve_args()).stop())


def test_stops_at_once_and_after_stop_it_once(caplog):
    grpc_port, rls_port, before = free_port(), free_port(), child_pids()

    async def run() -> None:
        app = ScalerApp(serve_args("--grpc-port", str(grpc_port), "--rls-port", str(rls_port)))
        await app.start()
        assert child_pids() > before
        await asyncio.gather(app.stop(), app.stop())
        await app.stop()

    with caplog.at_level(logging.INFO, logger="scaler.server"):
        asyncio.run(run())
    assert [r for r in caplog.records if getattr(r, "fields", {}).get("event") == "stopped"], "never stopped"
    assert len([r for r in caplog.records if getattr(r, "fields", {}).get("event") == "shutdown"]) == 1
    assert child_pids() <= before and bindable(grpc_port) and bindable(rls_port)
