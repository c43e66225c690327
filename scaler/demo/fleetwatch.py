"""Watch the emulator fleet: replicas over time, transitions as they happen, Prometheus targets.

The Prometheus file_sd list holds only ready replicas, as in a cluster where a vLLM pod's HTTP
server (and so its /metrics) only comes up once the weights are loaded: a replica that is still
starting must not count as ready capacity.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp
from prometheus_client.parser import text_string_to_metric_families


@dataclass(frozen=True)
class FleetSample:
    t: float
    replicas: int  # desired (the Deployment's spec.replicas)
    ready: int
    starting: int
    draining: int


def transitions(before: dict | None, after: dict, t: float) -> list[str]:
    """Sentences for what changed between two GET /fleet bodies (pure)."""
    old = {m["index"]: m for m in (before or {}).get("members", [])}
    new = {m["index"]: m for m in after.get("members", [])}
    out = []
    for index, member in sorted(new.items()):
        previous = old.get(index)
        if previous is None and before is not None:
            out.append(f"replica {index} starting (ready in {member['ready_in_s']:.0f}s)"
                       if member["state"] == "starting" else f"replica {index} {member['state']}")
        elif previous is not None and previous["state"] != member["state"]:
            out.append(f"replica {index} {previous['state']} -> {member['state']}")
    for index in sorted(set(old) - set(new)):
        out.append(f"replica {index} retired")
    return out


def ready_ports(body: dict) -> list[int]:
    """The ports of the ready replicas in a GET /fleet body (pure)."""
    return [m["port"] for m in body.get("members", []) if m["state"] == "ready" and m["port"]]


def file_sd(ports: list[int], host: str) -> list[dict]:
    """Prometheus file_sd targets for these replica ports (pure)."""
    return [{"targets": [f"{host}:{port}" for port in ports]}] if ports else []


def write_file_sd(path: Path, groups: list[dict]) -> None:
    # Write then rename: Prometheus never reads half a file.
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(groups))
    tmp.replace(path)


class FleetWatch:
    def __init__(self, fleet_url: str, session: aiohttp.ClientSession, clock: Callable[[], float],
                 on_change: Callable[[float, str], None], sd_file: Path | None = None, host: str = "127.0.0.1"):
        self.fleet_url, self.session, self.clock, self.on_change = fleet_url, session, clock, on_change
        self.sd_file, self.host = sd_file, host
        self.samples: list[FleetSample] = []
        self._last: dict | None = None
        self._last_sd: list | None = None

    async def poll(self) -> dict:
        async with self.session.get(self.fleet_url, timeout=aiohttp.ClientTimeout(total=2)) as resp:
            body = await resp.json()
        t = self.clock()
        self.samples.append(FleetSample(t, body["replicas"], body["ready"], body["starting"], body["draining"]))
        for line in transitions(self._last, body, t):
            self.on_change(t, line)
        self._last = body
        if self.sd_file is not None:
            sd = file_sd(ready_ports(body), self.host)
            if sd != self._last_sd:
                write_file_sd(self.sd_file, sd)
                self._last_sd = sd
        return body

    async def run(self, stop: asyncio.Event, every_s: float = 0.25) -> None:
        while not stop.is_set():
            try:
                await self.poll()
            except (aiohttp.ClientError, asyncio.TimeoutError):
                pass  # the fleet is stopping; the next poll or the stop event decides
            try:
                await asyncio.wait_for(stop.wait(), every_s)
            except asyncio.TimeoutError:
                pass


def scaler_state(text: str, model: str) -> str | None:
    """The queue-SLO state of `model` from the scaler's /metrics text (one-hot gauge), or None (pure)."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "slo_scaler_state" and sample.labels.get("model") == model and sample.value == 1.0:
                return sample.labels["state"]
    return None
