"""End to end: clients -> real Envoy -> emulated vLLM, with the RLS inside `slo-scaler serve`.

Two identical one-replica emulator fleets take the same load in the same run: fleet A behind an
Envoy rendered from templates/ (rate-limit filter -> RLS), fleet B behind the same Envoy config
with the rate-limit filter taken out (the shedder off). One continuous open-loop run: a GREEN
load (about half of what a replica drains) until the scaler settles in GREEN, a measured GREEN
phase, then about twice what a replica drains. Afterwards the RLS is stopped: Envoy must keep
serving.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time

import aiohttp
import openai
import pytest
import yaml

from conftest import free_port, poll_until
from envoy_helpers import EnvoyProcess, without_ratelimit
from scaler.loadgen.client import OK, Client, Result
from scaler.loadgen.endpoint import Endpoint
from scaler.loadgen.retry import Backoff
from scaler.render.envoy import render_envoy_config
from scaler_helpers import metric, scaler_server  # noqa: F401 (fixture)

pytestmark = pytest.mark.integration

MODEL = "chat"
SLO_S = 1.0
# One replica with these engine flags and sizes at --speed 0.125 drains 6.6 to 7.3 requests/s
# (measured; less on a busy machine): calibrated a little under it, as an operator would.
CAPACITY_RPS = 6.0
ENGINE = ("--max-num-seqs", "4", "--model", MODEL)
SPEED = 0.125  # the emulated GPU at an eighth of its speed: fewer, slower requests leave the CPUs free
PROMPT_TOKENS, OUTPUT_TOKENS = 100, 8
GREEN_S, OVERLOAD_S, CUTOFF_S = 4.0, 12.0, 4.0

# (class, tenant, requests/s). Partner's requests past its quota of 1/s are refused with 429 and
# are not demand for the scaler.
PHASES = {
    "warmup": [("interactive", "web", 2.0), ("batch", "web", 1.0), ("interactive", "partner", 2.0)],
    "overload": [("interactive", "web", 10.0), ("batch", "web", 5.0)],
}
PHASES["green"] = PHASES["warmup"]


class LoadRun:
    """The same open-loop load through several Envoys at once, the phase switched by the test.
    One attempt per request (no retries); TTFT on the wall clock. At `finish`, requests without a
    first token by the cutoff are cancelled and keep ttft_s None (they waited at least that long)."""

    def __init__(self, urls: list[str]):
        self.urls, self.phase, self.cutoff_s = urls, "warmup", CUTOFF_S
        self.results: dict[str, list[tuple[str, Result]]] = {url: [] for url in urls}
        self._stopping = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._future = asyncio.run_coroutine_threadsafe(self._run(), self._loop)

    async def _run(self) -> None:
        tasks: list[asyncio.Task] = []
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            clients = {url: Client(session, Endpoint.from_url(url), MODEL, backoff=Backoff(max_retries=0),
                                   clock=time.monotonic, timeout_s=60.0) for url in self.urls}
            due: dict[tuple, float] = {}
            while not self._stopping.is_set():
                phase, now = self.phase, time.monotonic()
                for klass, tenant, rps in PHASES[phase]:
                    key = (phase, klass, tenant)
                    due.setdefault(key, now)
                    while due[key] <= now:
                        due[key] += 1.0 / rps
                        for url, client in clients.items():
                            result = Result(id=f"r{len(tasks)}", request_class=klass, tenant=tenant,
                                            prompt_tokens=PROMPT_TOKENS, max_tokens=OUTPUT_TOKENS, scheduled=now)
                            self.results[url].append((phase, result))
                            tasks.append(asyncio.create_task(client.send(result)))
                await asyncio.sleep(0.005)
            _, pending = await asyncio.wait(tasks, timeout=self.cutoff_s)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    def finish(self) -> dict[str, dict[str, list[Result]]]:
        self._stopping.set()
        try:
            self._future.result(self.cutoff_s + 30)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
            self._loop.close()
        out: dict[str, dict[str, list[Result]]] = {url: {} for url in self.urls}
        for url, items in self.results.items():
            for phase, result in items:
                out[url].setdefault(phase, []).append(result)
        return out


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def _summary(name: str, results: list[Result]) -> str:
    lines = [name]
    for klass in ("interactive", "batch"):
        mine = [r for r in results if r.request_class == klass]
        served = [r.ttft_s for r in mine if r.ttft_s is not None]
        codes = {status: sum(r.status == status for r in mine) for status in {r.status for r in mine}}
        p95 = f"{_p95(served):.2f}s" if served else "-"
        lines.append(f"  {klass}: {len(mine)} sent, statuses {codes}, TTFT p95 {p95} of {len(served)} with a first token")
    return "\n".join(lines)


class StateWatch:
    """Samples serve's /metrics every 0.25 s: (time, state, admission rate in force)."""

    def __init__(self, scaler):
        self.scaler, self.samples, self._stop = scaler, [], threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(0.25):
            try:
                text = self.scaler.metrics_text()
            except (OSError, AssertionError):
                continue
            state = next((s for s in ("GREEN", "YELLOW", "RED") if metric(text, "slo_scaler_state", model=MODEL, state=s) == 1), None)
            self.samples.append((time.monotonic(), state, metric(text, "slo_scaler_rls_admission_rate", model=MODEL)))

    def stop(self):
        self._stop.set()
        self._thread.join(5)

    def green_for(self, seconds: float) -> bool:
        now = time.monotonic()
        recent = [state for t, state, _ in self.samples if now - t <= seconds]
        return bool(self.samples) and now - self.samples[0][0] >= seconds and set(recent) == {"GREEN"}

    def states(self, since: float, until: float = math.inf) -> list[str]:
        return [state for t, state, _ in self.samples if since <= t < until]

    def red_rates(self, since: float) -> list[float]:
        return [rate for t, _, rate in self.samples if t >= since and rate is not None and math.isfinite(rate)]


def _openai_refusal(port: int, request_class: str, tenant: str, attempts: int = 10):
    """The official OpenAI client until a request is refused: (status, headers, error body), or None."""
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0, timeout=30)
    for _ in range(attempts):
        try:
            client.completions.create(model=MODEL, prompt="hello " * 10, max_tokens=2,
                                      extra_headers={"x-request-class": request_class, "x-tenant-id": tenant})
        except openai.APIStatusError as error:
            return error.status_code, error.response.headers, error.body
    return None


def test_shedding_end_to_end_with_real_envoy(scaler_server, emulator_fleet, tmp_path):
    fleet_on = emulator_fleet(*ENGINE, replicas=1, max_replicas=1, speed=SPEED)
    fleet_off = emulator_fleet(*ENGINE, replicas=1, max_replicas=1, speed=SPEED)
    replica = fleet_on.fleet()["members"][0]
    (tmp_path / "models.yaml").write_text(yaml.safe_dump([{
        "model": MODEL, "source": "scrape", "scrapeTargets": f"http://127.0.0.1:{replica['port']}/metrics",
        "ttftSloSeconds": SLO_S, "perReplicaCapacity": CAPACITY_RPS, "scaleUpLatencySeconds": 10,
        "rateWindowSeconds": 6, "requestClass": "interactive"}]))  # stateHoldSeconds at its default
    (tmp_path / "tenants.yaml").write_text(yaml.safe_dump({"tenants": [
        {"name": "web", "weight": 3}, {"name": "partner", "weight": 1, "quotaRequestsPerSecond": 1}]}))
    rls_port = free_port()
    scaler = scaler_server("--models", str(tmp_path / "models.yaml"), "--tenants", str(tmp_path / "tenants.yaml"),
                           "--rls-port", str(rls_port), "--poll-interval", "0.25")
    poll_until(lambda: scaler.metric("slo_scaler_state", model=MODEL, state="GREEN") == 1, 20, "a first decision")

    ports = {name: (free_port(), free_port()) for name in ("on", "off")}
    params = {"served_name": MODEL, "status_code": 503, "rls_timeout_ms": 250}
    config_on = render_envoy_config(params, ports["on"][0], f"127.0.0.1:{fleet_on.port}", f"127.0.0.1:{rls_port}",
                                    ports["on"][1])
    config_off = without_ratelimit(render_envoy_config(params, ports["off"][0], f"127.0.0.1:{fleet_off.port}",
                                                       f"127.0.0.1:{rls_port}", ports["off"][1]))
    envoy_on = EnvoyProcess(config_on, ports["on"][1], tmp_path, "envoy-on")
    envoy_off = EnvoyProcess(config_off, ports["off"][1], tmp_path, "envoy-off")
    url_on, url_off = (f"http://127.0.0.1:{ports[name][0]}" for name in ("on", "off"))
    watch = StateWatch(scaler)
    load = LoadRun([url_on, url_off])
    try:
        # The scaler sees traffic start as a burst; measure GREEN once it has settled there.
        poll_until(lambda: watch.green_for(2.0), 30, "the scaler settling in GREEN under the GREEN load")
        load.phase = "green"
        green_at = time.monotonic()
        quota = _openai_refusal(ports["on"][0], "interactive", "partner")
        poll_until(lambda: time.monotonic() - green_at >= GREEN_S, GREEN_S + 5, "the GREEN phase")
        load.phase = "overload"
        overload_at = time.monotonic()
        poll_until(lambda: time.monotonic() - overload_at >= OVERLOAD_S, OVERLOAD_S + 5, "the overload phase")
        capacity = _openai_refusal(ports["on"][0], "batch", "web")
    finally:
        results = load.finish()
        watch.stop()
    on, off = results[url_on], results[url_off]
    print("", _summary("GREEN, shedder on", on["green"]), _summary("overload, shedder on", on["overload"]),
          _summary("overload, shedder off", off["overload"]),
          f"admission rates in force: {[round(r, 2) for r in watch.red_rates(overload_at)]}",
          *(f"{e['ts']:.2f} {e['previous_state']} -> {e['state']}: {e['detail']}" for e in scaler.events("state_change")),
          sep="\n")

    try:
        # GREEN: everything passes, except the partner tenant past its quota: 429 with Retry-After.
        assert set(watch.states(green_at, overload_at)) == {"GREEN"}, "the GREEN load kept the scaler GREEN"
        assert all(r.outcome == OK for r in off["green"]), "no shedder: all served"
        assert all(r.outcome == OK for r in on["green"] if r.tenant == "web"), [r.status for r in on["green"]]
        partner = [r.status for r in on["green"] if r.tenant == "partner"]
        assert partner.count(429) >= len(partner) / 4 and set(partner) <= {200, 429}, partner
        assert quota is not None, "the OpenAI client saw no refusal for the partner tenant"
        status, headers, body = quota
        assert status == 429 and 1 <= int(headers["retry-after"]) <= 60
        assert body["code"] == "rate_limit_exceeded" and "tenant-over-quota" in body["message"]

        # Overload: RED. Interactive passes at about the drainable rate, batch is shed with 503.
        rates = watch.red_rates(overload_at)
        assert rates, "the scaler went RED and the RLS enforced an admission rate"
        in_force = sum(rates) / len(rates)
        inter_on = [r for r in on["overload"] if r.request_class == "interactive"]
        served = [r for r in inter_on if r.outcome == OK]
        batch_on = [r.status for r in on["overload"] if r.request_class == "batch"]
        assert batch_on.count(503) >= 0.8 * len(batch_on), "batch is shed with 503"
        admitted_rps = len(served) / OVERLOAD_S
        # Upper bounds only: a loaded machine serves less, never more, so these hold however busy it is.
        assert 0 < admitted_rps <= 1.3 * CAPACITY_RPS, (
            f"interactive admitted at {admitted_rps:.1f}/s; the drainable rate is about {CAPACITY_RPS}/s")
        assert admitted_rps <= 1.35 * in_force, (
            f"interactive admitted at {admitted_rps:.1f}/s, the admission rate in force averaged {in_force:.1f}/s")
        assert {r.status for r in inter_on} <= {200, 503}
        assert capacity is not None, "the OpenAI client saw no refusal for batch in RED"
        status, headers, body = capacity
        assert status == 503 and 1 <= int(headers["retry-after"]) <= 60 and body["type"] == "server_error"

        # Same load, same run: the shedder keeps admitted TTFT in the SLO; without it the SLO breaks.
        ttft_on = [r.ttft_s for r in served]
        ttft_off = [r.ttft_s if r.ttft_s is not None else math.inf
                    for r in off["overload"] if r.request_class == "interactive"]
        assert _p95(ttft_on) <= SLO_S, f"shedder on: admitted p95 TTFT {_p95(ttft_on):.2f}s, SLO {SLO_S}s"
        assert _p95(ttft_off) > 2 * SLO_S, f"shedder off: p95 TTFT {_p95(ttft_off):.2f}s should break the SLO"

        # RLS gone: Envoy fails open (failure_mode_deny: false), and counts it.
        before = envoy_on.stat("cluster.model_upstream.ratelimit.failure_mode_allowed")
        scaler.stop()
        after_stop = LoadRun([url_on])
        after_stop.phase = "warmup"
        poll_until(lambda: len(after_stop.results[url_on]) >= 10, 10, "requests after the RLS stopped")
        statuses = [r.status for phase in after_stop.finish()[url_on].values() for r in phase]
        assert statuses and set(statuses) == {200}, statuses
        assert envoy_on.stat("cluster.model_upstream.ratelimit.failure_mode_allowed") >= before + len(statuses)
    finally:
        envoy_on.stop()
        envoy_off.stop()
