"""InProcessScaler: a start that fails or times out leaves nothing running.

Each test starts a real ScalerApp (gRPC, the RLS process, /metrics, the poller) that fails at a
different point, then checks what the process can observe: the loop thread is gone, the ports it
listened on can be bound again, and no child process (the RLS) is left.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import threading

import pytest
import yaml

from conftest import free_port
from scaler.server.app import ScalerApp
from scaler_helpers import (CAPTURE_MODEL, InProcessScaler, PageServer, bindable, child_pids, silent_python,
                            vllm_page)


class Ports:
    """gRPC and RLS ports for the scaler; `assert_nothing_left()` once its start has failed."""

    def __init__(self) -> None:
        self.children_before = child_pids()
        self.grpc, self.rls = free_port(), free_port()

    def assert_nothing_left(self) -> None:
        assert not [t for t in threading.enumerate() if t.name == "in-process-scaler"], "the loop thread still runs"
        assert child_pids() <= self.children_before, "a child process (the RLS) outlived the failed start"
        assert bindable(self.grpc), "the gRPC server still listens"
        assert bindable(self.rls), "the RLS process still listens"


@pytest.fixture
def ports() -> Ports:
    return Ports()


def test_a_taken_metrics_port_fails_the_start_and_stops_grpc_and_the_rls(ports):
    taken = socket.create_server(("127.0.0.1", 0))  # /metrics comes up after gRPC and the RLS process
    try:
        with pytest.raises(OSError):
            InProcessScaler("--grpc-port", str(ports.grpc), "--rls-port", str(ports.rls),
                            "--metrics-port", str(taken.getsockname()[1]))
    finally:
        taken.close()
    ports.assert_nothing_left()


@pytest.fixture
def polled_model(tmp_path):
    page = PageServer(vllm_page(waiting=3, running=2))
    models = tmp_path / "models.yaml"
    models.write_text(yaml.safe_dump([{"model": CAPTURE_MODEL, "source": "scrape", "scrapeTargets": page.url,
                                       "ttftSloSeconds": "2", "perReplicaCapacity": "4",
                                       "scaleUpLatencySeconds": "60"}]))
    yield models, page
    page.close()


async def _fail_once_polled(page: PageServer) -> None:
    while page.hits == 0:  # the poller is running: it has scraped the model's page
        await asyncio.sleep(0.05)
    raise RuntimeError("injected failure after the start")


async def _never_finish(page: PageServer) -> None:
    await asyncio.Event().wait()


@pytest.mark.parametrize("then, error, match, start_timeout", [
    (_fail_once_polled, RuntimeError, "injected failure", 30.0),  # every part running, then the start raises
    (_never_finish, TimeoutError, "serve did not start within 1 s", 1.0),  # cancelled wherever it is by then
])
def test_a_start_that_fails_or_never_finishes_stops_what_it_started(ports, polled_model, monkeypatch, then, error,
                                                                    match, start_timeout):
    models, page = polled_model
    real_start = ScalerApp.start

    async def start_then(app):
        await real_start(app)
        await then(page)

    monkeypatch.setattr(ScalerApp, "start", start_then)
    with pytest.raises(error, match=match):
        InProcessScaler("--models", str(models), "--poll-interval", "0.2",
                        "--grpc-port", str(ports.grpc), "--rls-port", str(ports.rls), start_timeout=start_timeout)
    ports.assert_nothing_left()


def test_a_timeout_while_the_rls_process_starts_kills_that_process(ports, tmp_path, monkeypatch):
    """An RLS process that never answers (here: one that only sleeps): the cancelled start kills it."""
    monkeypatch.setattr(sys, "executable", silent_python(tmp_path))  # what serve starts the RLS process with
    with pytest.raises(TimeoutError, match="serve did not start"):
        InProcessScaler("--grpc-port", str(ports.grpc), "--rls-port", str(ports.rls), start_timeout=1.0)
    ports.assert_nothing_left()
