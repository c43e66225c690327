"""`slo-scaler serve` as a child process, for tests, benchmarks and demos.

Started with port 0 everywhere unless told otherwise; ready once it prints its JSON `serving`
line, which carries the bound ports. Every JSON line it writes is kept (`lines`, `events()`),
so a caller can follow state changes as they are logged.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
from prometheus_client.parser import text_string_to_metric_families

from scaler.server.protocol import ExternalScalerClient

LOCAL_FLAGS = ("--host", "127.0.0.1", "--grpc-port", "0", "--metrics-port", "0", "--rls-port", "0",
               "--discovery", "off")
REPO = Path(__file__).resolve().parents[2]


def sample_value(text: str, name: str, **labels: str) -> float | None:
    """The first sample `name` of a Prometheus text page whose labels include `labels`."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return sample.value
    return None


class ServeProcess:
    def __init__(self, proc: subprocess.Popen, log: Path) -> None:
        self.proc = proc
        self.log = log
        self.lines: list[dict] = []
        self.grpc_port: int | None = None
        self.metrics_port: int | None = None
        self._channel: grpc.Channel | None = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @classmethod
    def start(cls, *flags: str, log: Path, timeout: float = 30.0, local: bool = True) -> ServeProcess:
        """Run `python -m scaler serve [LOCAL_FLAGS] flags...`; later flags win over LOCAL_FLAGS.
        RuntimeError with the log's tail when it exits or stays silent for `timeout` seconds."""
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
        argv = [sys.executable, "-m", "scaler", "serve", *(LOCAL_FLAGS if local else ()), *flags]
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        serve = cls(proc, log)
        deadline = time.monotonic() + timeout
        while not serve.events("serving"):
            if proc.poll() is not None or time.monotonic() > deadline:
                serve.stop()
                raise RuntimeError(f"serve did not start ({proc.returncode=}): {serve.tail()}")
            time.sleep(0.05)
        line = serve.events("serving")[0]
        serve.grpc_port, serve.metrics_port = line["grpc_port"], line["metrics_port"]
        return serve

    def _read(self) -> None:
        with self.log.open("w") as out, self.proc.stderr:  # the pipe closed once serve's stderr ends
            for line in self.proc.stderr:
                out.write(line)
                out.flush()
                try:
                    self.lines.append(json.loads(line))
                except ValueError:
                    pass

    def tail(self, chars: int = 2000) -> str:
        return self.log.read_text()[-chars:] if self.log.exists() else ""

    def events(self, event: str) -> list[dict]:
        return [line for line in list(self.lines) if line.get("event") == event]

    @property
    def client(self) -> ExternalScalerClient:
        """A sync client (as KEDA calls it) on a channel kept for the life of the process."""
        if self._channel is None:
            self._channel = grpc.insecure_channel(f"127.0.0.1:{self.grpc_port}")
        return ExternalScalerClient(self._channel)

    def metrics_text(self) -> str:
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5) as response:
            return response.read().decode()

    def metric(self, name: str, **labels: str) -> float | None:
        """The first sample `name` whose labels include `labels`, from /metrics now."""
        return sample_value(self.metrics_text(), name, **labels)

    def stop(self, grace: float = 10.0) -> int:
        """SIGTERM, then SIGKILL after `grace` seconds; the exit code."""
        if self._channel is not None:
            self._channel.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(2)
        return self.proc.returncode
