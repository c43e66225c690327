"""Helpers for the scaler's tests (reusable by other parts' tests).

- `vllm_page(model, waiting, running, completed)`: the real vLLM 0.29.0 capture
  (tests/fixtures/vllm) with the model name and the three series the scaler reads edited.
- `PageServer`: serves such pages on a free 127.0.0.1 port (stdlib HTTP server, own thread);
  `.close()` makes the port refuse connections (a replica or exporter gone).
- `HostileServer(mode)`: a /metrics or Prometheus endpoint that misbehaves (slow-loris, a huge
  page, a gzip bomb, a redirect, duplicate series).
- `Forwarder(port)`: a TCP forwarder whose `close()` cuts the path (Prometheus loses the pods).
- `InProcessScaler(*serve_flags, pod_lister=None)`: the real ScalerApp (gRPC, health, /metrics,
  poller) on its own event-loop thread, with a sync `client` (ExternalScalerClient); a start that
  fails or times out stops all it started before raising.
- `metric(text, name, **labels)`: one sample of a Prometheus text page (process.sample_value).
- `child_pids(pid)`, `bindable(port)`, `silent_python(tmp_path)`, `marked_env(marker)` and
  `processes_marked(marker)`: what a start or stop left behind (children, listening ports, every
  process of a serve run, even reparented).
- `scaler_server` fixture: `slo-scaler serve` as a subprocess on free ports; returns a
  scaler.server.process.ServeProcess (`.client`, `.metric()`, `.events("state_change")`,
  `.stop()`). Use it with `from scaler_helpers import scaler_server`.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import grpc
import pytest

from conftest import http_get
from scaler.cli import build_parser
from scaler.server.app import ScalerApp
from scaler.server.process import LOCAL_FLAGS, REPO, ServeProcess
from scaler.server.process import sample_value as metric  # noqa: F401 (tests read pages with it)
from scaler.server.protocol import ExternalScalerClient

CAPTURE = Path(__file__).parent / "fixtures" / "vllm" / "metrics_sample_0.29.0.txt"
CAPTURE_MODEL = "qwen2.5-1.5b"


def vllm_page(model: str = CAPTURE_MODEL, waiting: float | str = 0, running: float | str = 0,
              completed: float | str = 10, tpot: tuple[int, int] | None = None, prompt: float | str = 530) -> str:
    """The real capture with the model renamed and the waiting, running,
    request_success_total{finished_reason="length"} and prompt_tokens_total values replaced; `tpot` = (slow, finished)
    rewrites vllm:request_time_per_output_token_seconds: `finished` requests, `slow` of them over
    0.1 s (the capture's 10 all took 0.01-0.025 s)."""
    text = CAPTURE.read_text().replace(f'model_name="{CAPTURE_MODEL}"', f'model_name="{model}"')
    edits = {r"vllm:num_requests_waiting\{[^}]*\}": waiting, r"vllm:num_requests_running\{[^}]*\}": running,
             r'vllm:request_success_total\{[^}]*finished_reason="length"[^}]*\}': completed,
             r"vllm:prompt_tokens_total\{[^}]*\}": prompt}
    for series, value in edits.items():
        text, count = re.subn(rf"^({series}) \S+$", rf"\g<1> {value}", text, flags=re.M)
        assert count == 1, series
    if tpot is not None:
        slow, finished = tpot

        def bucket(match: re.Match) -> str:
            le = float(match.group(2))
            return f"{match.group(1)} {finished - slow if le <= 0.1 else finished}"

        text, count = re.subn(r'^(vllm:request_time_per_output_token_seconds_bucket\{[^}]*le="([^"]+)"[^}]*\}) \S+$',
                              bucket, text, flags=re.M)
        assert count == 20, "the capture's 20 TPOT buckets"
        text, count = re.subn(r"^(vllm:request_time_per_output_token_seconds_count\{[^}]*\}) \S+$",
                              rf"\g<1> {finished}", text, flags=re.M)
        assert count == 1
    return text


class PageServer:
    def __init__(self, text: str = "") -> None:
        self.text = text
        self.status = 200
        self.hits = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                server.hits += 1
                body = server.text.encode()
                self.send_response(server.status)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/metrics"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def serve_args(*flags: str):
    return build_parser().parse_args(["serve", *LOCAL_FLAGS, *flags])


def child_pids(pid: int | None = None) -> set[int]:
    """The child processes of `pid` (default: this process), from every thread's children file
    (Linux), less the session's own background ones (tests/conftest.py: spare Prometheus servers, the
    wheel's pip), which start on timers and threads and may appear between a test's two readings."""
    pids: set[int] = set()
    for task in Path(f"/proc/{pid or os.getpid()}/task").iterdir():
        try:
            pids.update(int(pid) for pid in (task / "children").read_text().split())
        except FileNotFoundError:  # that thread ended meanwhile
            pass
    return {child for child in pids if not _session_background(child)}


def _session_background(pid: int) -> bool:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:  # gone meanwhile
        return False
    return Path(argv[0].decode(errors="replace")).name == "prometheus" or argv[1:3] == [b"-m", b"pip"]


# A serve subprocess started with `marked_env(marker)` passes the marker on to its RLS process, so
# `processes_marked(marker)` finds every process of that run, even one reparented after serve died.
MARKER = "SLO_SCALER_START_FAILURE_TEST"
GRPC_CORE_LOG = re.compile(r"^[DIWEF]\d{4} \d\d:\d\d:\d\d")  # grpc's C core writes its own lines to stderr


def marked_env(marker: str) -> dict[str, str]:
    """The environment for a serve subprocess run from this checkout, carrying `marker`."""
    return dict(os.environ, **{MARKER: marker},
                PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))


def processes_marked(marker: str) -> list[int]:
    """Live processes whose environment carries `marker` (serve and what it started, even reparented)."""
    needle = f"{MARKER}={marker}\0".encode()
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:  # gone meanwhile, or not ours
            continue
    return found


def silent_python(tmp_path: Path) -> str:
    """An 'interpreter' that starts and never answers: as sys.executable, an RLS process that never does."""
    silent = tmp_path / "silent-python"
    silent.write_text("#!/bin/sh\nexec sleep 600\n")
    silent.chmod(0o755)
    return str(silent)


def bindable(port: int) -> bool:
    """Nothing listens on 127.0.0.1:`port` any more."""
    try:
        socket.create_server(("127.0.0.1", port)).close()
    except OSError:
        return False
    return True


class InProcessScaler:
    """`slo-scaler serve` minus signal handling, on a loop thread; close() stops it cleanly.

    A start that fails or takes longer than `start_timeout` stops everything it got to (the loop
    thread, gRPC, the RLS process, /metrics, the poller and its sources) before the error is raised:
    the start's own error, or TimeoutError."""

    def __init__(self, *flags: str, pod_lister=None, channel_credentials: grpc.ChannelCredentials | None = None,
                 start_timeout: float = 30.0):
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="in-process-scaler", daemon=True)
        self._thread.start()
        self.app: ScalerApp | None = None  # set on the loop as soon as it exists, so a failed start can stop it
        self._starting: asyncio.Task | None = None
        # As long as the subprocess fixture waits: on a loaded 2-core machine 10 s was once too short.
        starting = asyncio.run_coroutine_threadsafe(self._start(serve_args(*flags), pod_lister), self.loop)
        try:
            starting.result(start_timeout)
        except BaseException as error:
            timed_out = isinstance(error, TimeoutError) and not starting.done()  # ours, not one start raised
            self._abort()
            if timed_out:
                raise TimeoutError(f"serve did not start within {start_timeout:g} s "
                                   "(what it had started is stopped)") from None
            raise
        self.target = f"127.0.0.1:{self.app.grpc_port}"
        self.channel = (grpc.secure_channel(self.target, channel_credentials,
                                            options=[("grpc.ssl_target_name_override", "localhost")])
                        if channel_credentials else grpc.insecure_channel(self.target))
        self.client = ExternalScalerClient(self.channel)

    async def _start(self, args, pod_lister) -> None:
        self._starting = asyncio.current_task()
        self.app = ScalerApp(args, pod_lister=pod_lister)
        await self.app.start()

    def _abort(self) -> None:
        """After a failed or timed-out start: cancel it, stop what it started, end the loop thread."""
        try:
            asyncio.run_coroutine_threadsafe(self._stop_started(), self.loop).result(60.0)
        finally:
            self._end_loop()

    async def _stop_started(self) -> None:
        """Cancel the start if it still runs (ScalerApp.start then stops what it started), and stop
        an app that did start whole (the start's caller failed or gave up after it)."""
        if self._starting is not None:
            self._starting.cancel()
            await asyncio.gather(self._starting, return_exceptions=True)
        if self.app is not None:  # None: it failed building its settings, nothing was started
            await self.app.stop(0.0)

    def _end_loop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        self.loop.close()

    @property
    def registry(self):
        return self.app.registry

    def run(self, coro, timeout: float = 10.0):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call_soon(self, fn, *args) -> None:
        """Run fn on the server's loop (the registry is single-threaded, like the real server)."""
        self.loop.call_soon_threadsafe(fn, *args)

    def metrics_text(self) -> str:
        status, body = http_get(f"http://127.0.0.1:{self.app.metrics_port}/metrics")
        assert status == 200
        return body.decode()

    def close(self) -> None:
        self.channel.close()
        self.run(self.app.stop())
        self._end_loop()


@pytest.fixture
def scaler_server(tmp_path_factory):
    """Start `slo-scaler serve` subprocesses (scaler.server.process.ServeProcess) on free ports."""
    started: list[ServeProcess] = []

    def start(*flags: str, timeout: float = 30.0) -> ServeProcess:
        try:
            serve = ServeProcess.start(*flags, log=tmp_path_factory.mktemp("serve") / "serve.log", timeout=timeout)
        except RuntimeError as error:
            pytest.fail(str(error))
        started.append(serve)
        return serve

    yield start
    for serve in started:
        serve.stop()


class HostileServer:
    """A /metrics (or Prometheus) endpoint that misbehaves as an adversary would, on its own port:

    - `slow`: headers, then one byte every 0.2 s, forever (slow-loris);
    - `huge`: a 26 MB page of valid lines;
    - `gzip-bomb`: 200 KB of gzip that inflates to 200 MB;
    - `redirect`: 302 to `location` (another host's page);
    - `duplicate`: a page with the model's waiting series twice (summing would double the queue).
    """

    def __init__(self, mode: str, model: str = CAPTURE_MODEL, location: str = "") -> None:
        import gzip

        self.mode, self.hits = mode, 0
        page = vllm_page(model, waiting=3, running=2).encode()
        line = next(x for x in page.decode().splitlines() if x.startswith("vllm:num_requests_waiting{"))
        bodies = {"duplicate": page + line.encode() + b"\n"}
        if mode == "gzip-bomb":
            bodies[mode] = gzip.compress(b"\0" * (200 << 20), compresslevel=9)
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802 (http.server's naming)
                server.hits += 1
                try:
                    server._answer(self, bodies, page)
                except OSError:
                    pass

            do_POST = do_GET  # Prometheus' API is asked by POST

            def log_message(self, *args):
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.location = location
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/metrics"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _answer(self, handler, bodies, page) -> None:
        import time

        if self.mode == "redirect":
            handler.send_response(302)
            handler.send_header("Location", self.location)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        if self.mode == "slow":
            handler.send_response(200)
            handler.send_header("Content-Type", "text/plain")
            handler.end_headers()
            for byte in page * 100:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
                time.sleep(0.2)
            return
        if self.mode == "huge":
            chunk = page * 16  # ~1.6 MB of valid lines (repeated samples)
            handler.send_response(200)
            handler.send_header("Content-Length", str(len(chunk) * 16))
            handler.end_headers()
            for _ in range(16):
                handler.wfile.write(chunk)
            return
        body = bodies[self.mode]
        handler.send_response(200)
        if self.mode == "gzip-bomb":
            handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class Forwarder:
    """A TCP forwarder on a free 127.0.0.1 port to `target_port`: the path from Prometheus to a
    pod. `close()` cuts it (listener and open connections), as a killed port-forward would."""

    def __init__(self, target_port: int) -> None:
        import socket

        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._target = target_port
        self._sockets: list = []
        self._closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket

        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
                upstream = socket.create_connection(("127.0.0.1", self._target))
            except OSError:
                return
            self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source, sink) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.close()
                except OSError:
                    pass

    def close(self) -> None:
        import socket

        self._closed.set()
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() blocked in its thread
        except OSError:
            pass
        self._listener.close()
        for sock in self._sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            except OSError:
                pass
