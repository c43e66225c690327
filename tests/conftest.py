"""Shared fixtures that start real servers on free loopback ports.

- `prometheus_server(scrape_configs, rule_files=())`: Prometheus (services.py: a container where
  Docker answers, else the Debian /usr/bin/prometheus) with the
  given scrape configs (list of dicts, as in prometheus.yml), global scrape/evaluation
  interval 1 s, a temporary TSDB; ready once /-/ready answers 200; killed at teardown. Started
  ahead of the test (_PrometheusSpares), so its first scrape comes sooner.
  Returns a `PrometheusServer` with `.url`, `.query(promql)` and `.targets()`.
- `emulator_fleet(*extra_args, replicas=2, ...)`: `python -m scaler emulate` as a subprocess on
  a free port range; ready once the front door's /health answers 200 (or, with replicas=0,
  once /fleet answers); stopped with SIGTERM at teardown. Returns an `EmulatorFleet`.
- `poll_until(fn, timeout, what)`: call fn until it returns a truthy value or the deadline passes.

Test modules can also `from conftest import poll_until, free_port_range, ...`.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

import services

from scaler.ports import free_port, free_port_range  # noqa: F401 (tests import them from here)

REPO = Path(__file__).resolve().parent.parent


def poll_until(fn, timeout: float, what: str, interval: float = 0.1):
    """Return fn()'s first truthy value; fail the test naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = fn()
            if value:
                return value
        except (OSError, ValueError, urllib.error.URLError) as exc:
            last_error = exc
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}" + (f" (last error: {last_error})"
                                                                             if last_error else ""))
        time.sleep(interval)


def http_get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def http_json(method: str, url: str, body: dict | None = None, timeout: float = 5.0) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def _stop(proc: subprocess.Popen, grace: float = 10.0) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# --- Prometheus ----------------------------------------------------------------------


@dataclass
class PrometheusServer:
    url: str
    server: services.Server

    def query(self, promql: str) -> list[dict]:
        """Instant query; the `result` list of Prometheus' HTTP API (raises on an API error)."""
        status, body = http_get(f"{self.url}/api/v1/query?" + urllib.parse.urlencode({"query": promql}))
        payload = json.loads(body)
        if status != 200 or payload.get("status") != "success":
            raise ValueError(f"query {promql!r} failed: {status} {payload}")
        return payload["data"]["result"]

    def kill(self) -> None:
        """Stop the server now (an outage, as a test sees it)."""
        self.server.stop()

    def targets(self) -> list[dict]:
        status, body = http_get(f"{self.url}/api/v1/targets")
        return json.loads(body)["data"]["activeTargets"] if status == 200 else []


@dataclass
class _Spare:
    server: services.Server
    workdir: Path
    url: str
    started: float  # time.monotonic() at start: its reload ticks follow every TICK_S from then

    def next_tick(self, now: float, margin: float = 0.3) -> float:
        """When a config loaded now is applied: the first tick at least `margin` from now."""
        steps = max(1, math.ceil((now + margin - self.started) / _PrometheusSpares.TICK_S))
        return self.started + steps * _PrometheusSpares.TICK_S


class _PrometheusSpares:
    """Prometheus servers started ahead of the tests that take them.

    Prometheus applies scrape targets on a 5 s tick that starts with the process (the scrape
    manager's reload ticker; 2.42 has no flag for it), so a fresh one scrapes its first target 5-6 s
    after it starts: each test that started one waited that long. A spare starts with no scrape
    configs and its own empty TSDB while other tests run; the test's config is loaded into it
    (/-/reload) and applied at its next tick. Two spares are kept, started half a tick apart, and
    the test takes the one whose tick comes first: at most 2.5 s away (1.25 s on average).
    """

    TICK_S = 5.0
    KEEP = 2

    def __init__(self, tmp_path_factory):
        self._tmp = tmp_path_factory
        self._spares: list[_Spare] = []
        self._planned: dict[threading.Timer, float] = {}  # spares still to start, and when
        self._lock = threading.Lock()
        self._closed = False

    def _start(self, workdir: Path) -> _Spare:
        _write_prometheus_config(workdir, [], ())
        port = free_port()
        started = time.monotonic()
        server = services.start("prometheus", [
            f"--config.file={workdir / 'prometheus.yml'}", f"--storage.tsdb.path={workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn", "--web.enable-lifecycle"], workdir)
        return _Spare(server, workdir, f"http://127.0.0.1:{port}", started)

    def _plan(self) -> None:
        """Plan a spare half a tick out of phase with the other one (now, if there is none)."""
        with self._lock:
            others = [spare.started for spare in self._spares] + list(self._planned.values())
        now = time.monotonic()
        delay = (others[0] + self.TICK_S / 2 - now) % self.TICK_S if others else 0.0
        workdir = self._tmp.mktemp("prometheus")

        def start() -> None:
            try:
                spare = self._start(workdir)
            except Exception:  # noqa: BLE001 (a test finding no spare starts one itself: the error is its own)
                spare = None
            with self._lock:
                del self._planned[timer]
                keep = spare is not None and not self._closed
                if keep:
                    self._spares.append(spare)
            if spare is not None and not keep:
                spare.server.stop()

        timer = threading.Timer(delay, start)
        timer.daemon = True
        with self._lock:
            self._planned[timer] = now + delay
        timer.start()

    def _top_up(self) -> None:
        while len(self._spares) + len(self._planned) < self.KEEP:
            self._plan()

    def prime(self) -> None:
        self._top_up()

    def take(self) -> _Spare:
        """The started spare whose tick comes first (else one started now); a new one is planned."""
        now = time.monotonic()
        with self._lock:
            dead = [spare for spare in self._spares if not spare.server.running()]
            self._spares = [spare for spare in self._spares if spare not in dead]
            taken = min(self._spares, key=lambda spare: spare.next_tick(now), default=None)
            if taken is not None:
                self._spares.remove(taken)
        for spare in dead:
            spare.server.stop()
        taken = taken or self._start(self._tmp.mktemp("prometheus"))
        self._top_up()
        return taken

    def close(self) -> None:
        with self._lock:
            self._closed = True
            timers = list(self._planned)
        for timer in timers:
            timer.cancel()
            timer.join()
        for spare in self._spares:
            spare.server.stop()


def _write_prometheus_config(workdir: Path, scrape_configs: list[dict], rule_files) -> None:
    config = {
        "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
        "scrape_configs": scrape_configs,
    }
    if rule_files:
        config["rule_files"] = [str(path) for path in rule_files]
    (workdir / "prometheus.yml").write_text(yaml.safe_dump(config))


@pytest.fixture(scope="session")
def _prometheus_spares(tmp_path_factory):
    spares = _PrometheusSpares(tmp_path_factory)
    yield spares
    spares.close()


@pytest.fixture(scope="session", autouse=True)
def _started_ahead(request):
    """What later tests of this session need and take long to start, started with its first test: a
    spare Prometheus, the wheel's install (tests/wheel_helpers.py)."""
    needed = {name for item in request.session.items for name in getattr(item, "fixturenames", ())}
    if "prometheus_server" in needed:
        request.getfixturevalue("_prometheus_spares").prime()
    if "wheel_install" in needed:
        request.getfixturevalue("wheel_install")


@pytest.fixture
def prometheus_server(_prometheus_spares):
    started: list[services.Server] = []

    def start(scrape_configs: list[dict], rule_files: list[str | Path] = (), timeout: float = 30.0) -> PrometheusServer:
        spare = _prometheus_spares.take()
        server, url = spare.server, spare.url
        started.append(server)

        def ready():
            if not server.running():
                pytest.fail(f"prometheus ({server.how}) exited: {server.log()[-2000:]}")
            return http_get(f"{url}/-/ready", timeout=1.0)[0] == 200

        poll_until(ready, timeout, "prometheus /-/ready")
        _write_prometheus_config(spare.workdir, scrape_configs, rule_files)
        try:  # answers once the config is applied; an invalid one is an error naming it
            urllib.request.urlopen(urllib.request.Request(f"{url}/-/reload", method="POST"), timeout=timeout).close()
        except urllib.error.HTTPError as error:
            pytest.fail(f"prometheus refused the config: {error.read().decode(errors='replace')}")
        return PrometheusServer(url, server)

    yield start
    for server in started:
        server.stop()


# --- the built wheel -------------------------------------------------------------------


@pytest.fixture(scope="session")
def wheel_install(tmp_path_factory):
    """This checkout's wheel installed into a fresh venv, built in the background (`.result()` waits)."""
    from wheel_helpers import WheelInstall

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    # xdist's workers share their base folder's parent: one of them builds there for all.
    root = tmp_path_factory.getbasetemp().parent / "wheel" if worker else tmp_path_factory.mktemp("wheel")
    install = WheelInstall(root, worker or "main")
    yield install
    install.stop()


# --- Redis ---------------------------------------------------------------------------


@dataclass
class RedisServer:
    port: int
    server: services.Server
    workdir: Path

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.server.stop()


def start_redis(workdir: Path, port: int | None = None, timeout: float = 20.0) -> RedisServer:
    """redis-server on loopback, no persistence; ready once it answers PING. `port` restarts one."""
    import redis

    port = port or free_port()
    server = services.start("redis", ["--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", str(workdir)], workdir)
    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=1)

    def ping():
        if not server.running():
            pytest.fail(f"redis ({server.how}) exited: {server.log()[-2000:]}")
        try:
            return client.ping()
        except redis.RedisError:
            return False

    poll_until(ping, timeout, "redis PING")
    client.close()
    return RedisServer(port, server, workdir)


@pytest.fixture
def redis_server(tmp_path_factory):
    """Start Redis (a container where Docker answers, else Debian's redis-server); stopped at teardown."""
    started: list[RedisServer] = []

    def start(port: int | None = None) -> RedisServer:
        server = start_redis(tmp_path_factory.mktemp("redis"), port)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


# --- emulator ------------------------------------------------------------------------


@dataclass
class EmulatorFleet:
    port: int
    proc: subprocess.Popen
    log: Path
    max_replicas: int
    args: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def replica_url(self, index: int) -> str:
        return f"http://127.0.0.1:{self.port + index}"

    def fleet(self) -> dict:
        status, body = http_json("GET", f"{self.url}/fleet")
        assert status == 200, body
        return body

    def set_replicas(self, n: int) -> dict:
        status, body = http_json("PUT", f"{self.url}/fleet", {"replicas": n})
        assert status == 200, body
        return body


def start_emulator_fleet(workdir: Path, *extra_args: str, replicas: int = 2, max_replicas: int = 4,
                         speed: float = 1.0, cold_start: float = 0.0, timeout: float = 30.0) -> EmulatorFleet:
    port = free_port_range(max_replicas + 1)
    args = [sys.executable, "-m", "scaler", "emulate", "--port", str(port), "--replicas", str(replicas),
            "--max-replicas", str(max_replicas), "--speed", str(speed), "--cold-start", str(cold_start), *extra_args]
    log = workdir / f"emulator-{port}.log"
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with log.open("wb") as out:  # the child writes to its own copy of the descriptor
        proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    fleet = EmulatorFleet(port, proc, log, max_replicas, args)

    def up():
        if proc.poll() is not None:
            pytest.fail(f"emulator exited with {proc.returncode}: {log.read_text()[-2000:]}")
        path = "/health" if replicas else "/fleet"
        if http_get(fleet.url + path, timeout=1.0)[0] != 200:
            return False
        # Each replica also listens on its own port (the scrape targets): the front door can answer
        # first, and a test that scrapes a replica at once read "connection refused" (a flake).
        return all(http_get(f"{fleet.replica_url(i)}/metrics", timeout=1.0)[0] == 200 for i in range(1, replicas + 1))

    poll_until(up, timeout, "the emulator's front door and its replicas' ports")
    return fleet


@pytest.fixture
def emulator_fleet(tmp_path_factory):
    started: list[EmulatorFleet] = []

    def start(*extra_args: str, **kwargs) -> EmulatorFleet:
        fleet = start_emulator_fleet(tmp_path_factory.mktemp("emulator"), *extra_args, **kwargs)
        started.append(fleet)
        return fleet

    yield start
    for fleet in started:
        _stop(fleet.proc)
