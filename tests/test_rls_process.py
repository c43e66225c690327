"""The RLS runs in a process of its own: its answers never wait behind serve's poll rounds, it is
started again when it dies, and it does not outlive serve.

The hold is real: a sitecustomize in the serve process (not in the RLS process) makes the policy
block, while holding the GIL, inside a libc read() called through ctypes.PyDLL (which keeps the
GIL) until the test writes a byte. Nothing else in the serve process can run meanwhile: with the
RLS on serve's threads, as before, no ShouldRateLimit could be answered.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import grpc
import pytest

from conftest import free_port, poll_until
from rls_helpers import request
from scaler.rls.service import OK, OVER_LIMIT
from scaler.rls.stubs import SHOULD_RATE_LIMIT
from scaler.server.process import ServeProcess
from scaler.server.protocol import GetMetricsRequest
from scaler_helpers import CAPTURE_MODEL, PageServer, child_pids, vllm_page

HOLD = """
import os, sys
if "serve" in sys.argv:
    import ctypes
    import scaler.server.registry as registry
    _decide = registry.decide

    def decide(model, *args, **kwargs):
        fifo = os.environ["HOLD_FIFO"]
        if os.path.exists(fifo):
            fd = os.open(fifo, os.O_RDWR)  # a writer of its own: read() waits for the test's byte, not EOF
            open(os.environ["HOLD_MARK"], "w").close()
            ctypes.PyDLL(None).read(fd, ctypes.create_string_buffer(1), 1)  # blocks with the GIL held
            os.close(fd)
            os.unlink(fifo)
        return _decide(model, *args, **kwargs)

    registry.decide = decide
"""


@pytest.fixture
def page():
    server = PageServer(vllm_page(waiting=3, running=2))
    yield server
    server.close()


def _rls_stub(port: int):
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    return channel, channel.unary_unary(SHOULD_RATE_LIMIT.path, request_serializer=SHOULD_RATE_LIMIT.request.SerializeToString,
                                        response_deserializer=SHOULD_RATE_LIMIT.response.FromString)


def _models_file(tmp_path: Path, page: PageServer) -> Path:
    models = tmp_path / "models.yaml"
    models.write_text(f"- model: {CAPTURE_MODEL}\n  source: scrape\n  scrapeTargets: {page.url}\n"
                      "  ttftSloSeconds: 2\n  perReplicaCapacity: 4\n")
    return models


def test_rls_answers_while_a_poll_round_holds_the_serve_process(tmp_path, monkeypatch, page):
    (tmp_path / "sitecustomize.py").write_text(HOLD)
    fifo, mark = tmp_path / "hold.fifo", tmp_path / "held"
    os.mkfifo(fifo)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("HOLD_FIFO", str(fifo))
    monkeypatch.setenv("HOLD_MARK", str(mark))
    port = free_port()
    serve = ServeProcess.start("--models", str(_models_file(tmp_path, page)), "--poll-interval", "0.2",
                               "--rls-port", str(port), log=tmp_path / "serve.log")
    channel, should_rate_limit = _rls_stub(port)
    try:
        poll_until(mark.exists, 20, "the first poll round to reach the policy and hold there")
        # serve's own port is stuck behind the round...
        ref = serve.client.ref({"model": CAPTURE_MODEL, "source": "scrape", "scrapeTargets": page.url,
                                "ttftSloSeconds": "2", "perReplicaCapacity": "4"})
        with pytest.raises(grpc.RpcError) as stuck:
            serve.client.GetMetricSpec(ref, timeout=0.5)
        assert stuck.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        # ...and the RLS answers all the same: fail open (no decision yet), from its own process.
        for _ in range(20):
            assert should_rate_limit(request({"model": CAPTURE_MODEL, "class": "interactive"}), timeout=5).overall_code == OK
        assert fifo.exists(), "the round was still holding serve while every answer came"
        with open(fifo, "w") as release:
            release.write("x")
        poll_until(lambda: serve.metric("slo_scaler_rls_decisions_total", model=CAPTURE_MODEL,
                                        reason="no-decision-yet") == 20, 20,
                   "serve to resume and count the answers given meanwhile on its /metrics")
        spec = serve.client.GetMetricSpec(ref, timeout=5).metricSpecs[0]
        answer = serve.client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref, metricName=spec.metricName), timeout=5)
        assert answer.metricValues[0].metricValueFloat > 0, "the held round went on to decide (5 requests in the page)"
    finally:
        channel.close()
        assert serve.stop() == 0


def test_the_rls_process_stops_with_serve_even_when_serve_is_killed(tmp_path, page):
    port = free_port()
    serve = ServeProcess.start("--models", str(_models_file(tmp_path, page)), "--rls-port", str(port),
                               log=tmp_path / "serve.log")
    (rls_pid,) = child_pids(serve.proc.pid)
    serve.proc.send_signal(signal.SIGKILL)
    serve.proc.wait()
    deadline = time.monotonic() + 20
    while Path(f"/proc/{rls_pid}").exists() and time.monotonic() < deadline:
        try:
            os.waitpid(rls_pid, os.WNOHANG)  # not our child (serve's): only /proc tells
        except ChildProcessError:
            pass
        time.sleep(0.05)
    status = Path(f"/proc/{rls_pid}/stat")
    assert not status.exists() or status.read_text().rsplit(")", 1)[1].split()[0] == "Z", \
        "the RLS process exits when serve's end of its socket closes"
    serve.stop()


def test_a_killed_rls_process_is_started_again_and_enforces_at_once(tmp_path):
    backlog = PageServer(vllm_page(waiting=400, running=8))  # far past a 2 s budget: RED
    port = free_port()
    serve = ServeProcess.start("--models", str(_models_file(tmp_path, backlog)), "--poll-interval", "0.2",
                               "--rls-port", str(port), log=tmp_path / "serve.log")
    channel, should_rate_limit = _rls_stub(port)
    interactive = request({"model": CAPTURE_MODEL, "class": "interactive"})

    def refused() -> bool:
        try:
            return should_rate_limit(interactive, timeout=2).overall_code == OVER_LIMIT
        except grpc.RpcError:
            return False  # the port is closed while it starts again

    try:
        poll_until(lambda: serve.metric("slo_scaler_state", model=CAPTURE_MODEL, state="RED") == 1, 20, "RED")
        assert refused()
        (first,) = child_pids(serve.proc.pid)
        os.kill(first, signal.SIGKILL)
        poll_until(lambda: serve.metric("slo_scaler_rls_process_restarts_total") == 1, 20, "serve to start it again")
        poll_until(refused, 20, "the new process to refuse in RED from what serve published to it")
        assert child_pids(serve.proc.pid) != {first}
        assert serve.events("rls_exited") and serve.events("rls_restarted")
    finally:
        channel.close()
        backlog.close()
        assert serve.stop() == 0
