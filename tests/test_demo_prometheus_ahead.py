"""The demo's second arm gets a Prometheus started ahead, which has the replica's first sample at once.

Prometheus (2.42) applies scrape targets on a 5 s tick counted from its own start, however they are
given (file_sd, static_configs, /-/reload: scripts/demo_prometheus_start.py measures each), so a
Prometheus started with its arm had the replica's first sample 4.8-5.1 s after the arm's processes
were up. The demo now starts the next arm's Prometheus while the current one runs
(`Arm.start_prometheus_ahead`); here the real binary, the emulator and the demo's own start and
signal check (`Arm.start_processes`, `Arm.wait_for_signals`) show the order that makes it prompt.
"""

from __future__ import annotations

import asyncio
import io
import socket

import aiohttp
import pytest
from rich.console import Console

from scaler.demo.orchestrator import BASELINE_ARM, Arm, Tools
from scaler.demo.processes import prometheus_binary, wait_until
from scaler.demo.scenario import DemoScenario

pytestmark = pytest.mark.integration

def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


async def _up_samples(session: aiohttp.ClientSession, address: str, instance: str) -> list[str]:
    """Every `up` sample Prometheus kept for the target, oldest first ("0": scrape failed, "1": answered)."""
    async with session.get(f"{address}/api/v1/query", params={"query": f'up{{instance="{instance}"}}[10m]'}) as resp:
        result = (await resp.json())["data"]["result"]
    return [value for _, value in result[0]["values"]] if result else []


async def _target(session: aiohttp.ClientSession, address: str, instance: str) -> dict | None:
    async with session.get(f"{address}/api/v1/targets") as resp:
        targets = (await resp.json())["data"]["activeTargets"]
    return next((t for t in targets if t["labels"].get("instance") == instance), None)


def test_a_prometheus_started_ahead_lists_the_replica_before_it_exists_and_has_its_first_sample_at_once(tmp_path):
    prometheus = prometheus_binary()
    if prometheus is None:
        pytest.skip("no prometheus on PATH (the demo then scrapes the replicas directly)")
    arm = Arm(BASELINE_ARM, DemoScenario().shortened(), Tools(prometheus, None), tmp_path / "work",
              Console(file=io.StringIO()))

    async def scenario() -> tuple[dict, list[str]]:
        try:
            async with aiohttp.ClientSession() as session:
                await arm.start_prometheus_ahead()
                fleet_port, port = arm.ports()
                address, instance = f"http://127.0.0.1:{port}", f"127.0.0.1:{fleet_port + 1}"

                async def listed() -> bool:
                    return await _target(session, address, instance) is not None

                # While the previous arm runs, Prometheus' first tick makes the replica a target.
                await wait_until(listed, 20.0, "Prometheus to list the replica as a target")
                before = await _target(session, address, instance)
                assert not _listening(fleet_port + 1)  # the replica does not exist yet
                source, _ = await arm.start_processes(session)
                await arm.wait_for_signals(source)
                return before, await _up_samples(session, address, instance)
        finally:
            await arm.stop()

    before, samples = asyncio.run(scenario())
    assert before["health"] != "up", before
    # An order, not a time: the target was listed before the replica existed (above), and the sample
    # the demo waited for came from that same target, so no 5 s discovery tick stood in between.
    assert samples and samples[-1] == "1", samples
