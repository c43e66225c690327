"""Real parts on loopback for the scaler's scripts: an emulated vLLM fleet, a Prometheus, a
`slo-scaler serve`, and an open-loop burst through the project's load generator.

    with Lab() as lab:
        fleet = lab.emulator(replicas=2, speed=10, flags=[...])
        prom = lab.prometheus(fleet.replica_targets, scrape_interval_s=1)
        serve = lab.serve("--poll-interval", "0.5")
        asyncio.run(send(fleet, burst(base_rps=0.5, peak_rps=1.6, low_s=20, burst_s=50, after_s=20)))
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scaler.loadgen.loadtest import LoadtestConfig, LoadtestRun, run_loadtest  # noqa: E402
from scaler.ports import free_port_range  # noqa: E402
from scaler.server.process import ServeProcess  # noqa: E402
from scaler.workloads.lengths import LengthMix  # noqa: E402
from scaler.workloads.scenarios import burst_scenario  # noqa: E402

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"


def wait_for(check, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = check()
            if value:
                return value
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


@dataclass
class Fleet:
    port: int
    replicas: int
    model: str
    speed: float

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def replica_targets(self) -> list[str]:
        return [f"127.0.0.1:{self.port + i}" for i in range(1, self.replicas + 1)]

    @property
    def scrape_urls(self) -> str:
        return ",".join(f"http://{target}/metrics" for target in self.replica_targets)


class Lab(ExitStack):
    def __init__(self, workdir: Path | None = None) -> None:
        super().__init__()
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="slo-scaler-lab-"))

    def _process(self, argv: list[str], name: str) -> subprocess.Popen:
        log = (self.workdir / f"{name}.log").open("wb")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=REPO)
        self.callback(_stop, proc)
        return proc

    def emulator(self, replicas: int = 2, speed: float = 10.0, model: str = "emu-llama",
                 flags: tuple[str, ...] = ()) -> Fleet:
        port = free_port_range(replicas + 1)
        proc = self._process([sys.executable, "-m", "scaler", "emulate", "--port", str(port), "--replicas",
                              str(replicas), "--max-replicas", str(replicas), "--speed", str(speed), "--model", model,
                              *flags], f"emulator-{port}")
        fleet = Fleet(port, replicas, model, speed)
        wait_for(lambda: proc.poll() is None and http_status(fleet.url + "/health") == 200, 30, "the emulator")
        return fleet

    def prometheus(self, targets: list[str], scrape_interval_s: float = 1.0) -> str:
        """A Prometheus scraping `targets` every `scrape_interval_s`; its URL once all are up."""
        port = free_port_range(1)
        data = self.workdir / f"prometheus-{port}"
        data.mkdir()
        interval = f"{scrape_interval_s:g}s"
        config = {"global": {"scrape_interval": interval, "scrape_timeout": f"{min(scrape_interval_s, 1.0):g}s",
                             "evaluation_interval": interval},
                  "scrape_configs": [{"job_name": "vllm", "static_configs": [{"targets": targets}]}]}
        (data / "prometheus.yml").write_text(yaml.safe_dump(config))
        self._process([PROMETHEUS, f"--config.file={data / 'prometheus.yml'}", f"--storage.tsdb.path={data / 'tsdb'}",
                       f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"], f"prometheus-{port}")
        url = f"http://127.0.0.1:{port}"

        def all_up() -> bool:
            with urllib.request.urlopen(f"{url}/api/v1/query?query=up", timeout=2) as response:
                result = json.loads(response.read())["data"]["result"]
            return len(result) == len(targets) and all(r["value"][1] == "1" for r in result)

        wait_for(all_up, 30 + 2 * scrape_interval_s, "Prometheus to scrape every target")
        return url

    def serve(self, *flags: str) -> ServeProcess:
        serve = ServeProcess.start(*flags, log=self.workdir / f"serve-{len(list(self.workdir.glob('serve-*')))}.log")
        self.callback(serve.stop)
        return serve


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# Short chat-sized requests, so an emulated replica turns many of them around in a few seconds.
SHORT = LengthMix(prompt_median=64, prompt_max=256, long_prompt_frac=0.0, output_median=40, output_max=80,
                  long_output_frac=0.0)


def burst(*, base_rps: float, peak_rps: float, low_s: float, burst_s: float, after_s: float,
          burst_factor: float = 2.5, seed: int = 1) -> list:
    """The project's standard three-phase burst (scaler.workloads.scenarios), short requests."""
    return burst_scenario(random.Random(seed), base_rps=base_rps, peak_rps=peak_rps, low_s=low_s, burst_s=burst_s,
                          after_s=after_s, burst_factor=burst_factor, lengths=SHORT)


async def send(fleet: Fleet, arrivals: list) -> LoadtestRun:
    """Open loop through the project's load tester, against the fleet's front door."""
    return await run_loadtest(LoadtestConfig(url=fleet.url, model=fleet.model, speed=fleet.speed, timeout_s=600),
                              arrivals, show_progress=False)
