"""A fleet of emulated vLLM replicas: one HTTP server per replica plus a front door.

Replica i listens on port P+i like a pod (its own OpenAI API, /health and /metrics, with a
registry of its own). Port P is the front door: it sends each request to the least-loaded
ready replica and carries the control API, GET/PUT /fleet. A replica's port opens when it
is added; while it starts (cold start) it answers 503 everywhere, /metrics included, as a vLLM
pod still loading weights has nothing to scrape; while it drains it answers 503 on /health and
on the API and still serves /metrics. A drained replica is retired and its port closed.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from scaler.emulator.clock import ModelClock
from scaler.emulator.driver import ReplicaDriver
from scaler.emulator.metrics import VllmMetrics
from scaler.emulator.openai_api import ApiError, ServedModel, add_api_routes, error_response
from scaler.engine import EngineParams, Fleet, FleetChanges, Member, MemberState

TICK_WALL_S = 0.05  # how often promotions and retirements are checked, in wall seconds
FLUSH_WALL_S = 2.0  # a retired replica's last step delivers its tokens before the replica stops


@dataclass(frozen=True)
class FleetSettings:
    params: EngineParams
    model: str = "meta-llama/Llama-3.1-8B-Instruct"
    host: str = "127.0.0.1"
    port: int = 8000
    replicas: int = 1
    max_replicas: int = 16
    cold_start_s: float = 60.0
    speed: float = 1.0

    def validate(self) -> FleetSettings:
        self.params.validate()
        if not self.model or any(c in self.model for c in "\"'\n\r\t{}"):
            raise ValueError(f"model: expected a plain model name, got {self.model!r}")
        if isinstance(self.max_replicas, bool) or not 1 <= self.max_replicas <= 1000:
            raise ValueError(f"max_replicas: expected an integer between 1 and 1000, got {self.max_replicas!r}")
        if isinstance(self.replicas, bool) or not 0 <= self.replicas <= self.max_replicas:
            raise ValueError(f"replicas: expected an integer between 0 and max_replicas={self.max_replicas}, "
                             f"got {self.replicas!r}")
        if not 1 <= self.port or self.port + self.max_replicas > 65535:
            raise ValueError(f"port: {self.port} plus max_replicas={self.max_replicas} must stay within 1..65535")
        if not self.cold_start_s >= 0:
            raise ValueError(f"cold_start_s: expected seconds >= 0, got {self.cold_start_s!r}")
        ModelClock(self.speed)  # validates speed
        return self


class _ReplicaServer:
    """The HTTP face of one fleet member."""

    def __init__(self, fleet_server: FleetServer, member: Member) -> None:
        self.member = member
        self.metrics = VllmMetrics(fleet_server.settings.model)
        self.driver = ReplicaDriver(member.replica, fleet_server.clock, self.metrics)
        self.port: int | None = None
        self._runner: web.AppRunner | None = None
        self._fleet_server = fleet_server

    def resolve(self) -> tuple[ReplicaDriver, int]:
        if self.member.state is not MemberState.READY:
            raise ApiError(503, f"replica {self.member.index} is {self.member.state.value}", "ServiceUnavailableError")
        return self.driver, self.member.index

    async def open(self) -> None:
        settings = self._fleet_server.settings
        app = web.Application()
        add_api_routes(app, self._fleet_server.served, self.resolve)
        app.router.add_get("/health", self._health)
        app.router.add_get("/metrics", self._metrics)
        self.driver.start()
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None, handler_cancellation=True)
        await self._runner.setup()
        port = settings.port + self.member.index
        try:
            await web.TCPSite(self._runner, settings.host, port).start()
            self.port = port
        except OSError as exc:
            # The member still serves through the front door; /fleet shows "port": null.
            print(f"replica {self.member.index}: cannot listen on {settings.host}:{port}: {exc}", file=sys.stderr)

    async def close(self) -> None:
        await self.driver.finish_in_flight(FLUSH_WALL_S)
        await self.driver.stop()
        if self._runner:
            await self._runner.cleanup()

    async def _health(self, _: web.Request) -> web.Response:
        if self.member.state is MemberState.READY:
            return web.Response(status=200)
        return error_response(503, f"replica {self.member.index} is {self.member.state.value}",
                              "ServiceUnavailableError")

    async def _metrics(self, _: web.Request) -> web.Response:
        if self.member.state is MemberState.STARTING:
            return error_response(503, f"replica {self.member.index} is starting", "ServiceUnavailableError")
        return web.Response(body=generate_latest(self.metrics.registry), headers={"Content-Type": CONTENT_TYPE_LATEST})


class FleetServer:
    def __init__(self, settings: FleetSettings, log: Callable[[str], None] = print) -> None:
        self.settings = settings.validate()
        self.clock = ModelClock(settings.speed)
        self.served = ServedModel(settings.model, settings.params.max_model_len,
                                  settings.params.scheduling_policy == "priority")
        self.fleet = Fleet(settings.params, max_replicas=settings.max_replicas)
        self._servers: dict[int, _ReplicaServer] = {}
        self._pending: set[asyncio.Task] = set()
        self._runner: web.AppRunner | None = None
        self._ticker: asyncio.Task | None = None
        self._log = log

    # --- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application()
        add_api_routes(app, self.served, self._route)
        app.router.add_get("/health", self._health)
        app.router.add_get("/fleet", self._get_fleet)
        app.router.add_put("/fleet", self._put_fleet)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None, handler_cancellation=True)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.settings.host, self.settings.port).start()
        await self._apply(self.fleet.start(self.settings.replicas, self.clock.now()))
        self._ticker = asyncio.get_running_loop().create_task(self._tick_forever())

    async def stop(self) -> None:
        if self._ticker:
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)
        await asyncio.gather(*self._pending, return_exceptions=True)
        for server in list(self._servers.values()):
            await server.close()
        self._servers.clear()
        if self._runner:
            await self._runner.cleanup()

    # --- fleet changes -----------------------------------------------------------------

    async def _apply(self, changes: FleetChanges) -> None:
        for member in changes.retired:
            server = self._servers.pop(member.index, None)
            if server:
                await server.close()
            self._log(f"replica {member.index} retired")
        for member in changes.draining:
            self._log(f"replica {member.index} draining ({member.replica.load} requests left)")
        for member in changes.added:
            server = _ReplicaServer(self, member)
            self._servers[member.index] = server
            await server.open()
            where = f"http://{self.settings.host}:{server.port}" if server.port else "no port"
            self._log(f"replica {member.index} {member.state.value} on {where}"
                      + (f", ready in {member.ready_at - self.clock.now():.1f} model s"
                         if member.state is MemberState.STARTING else ""))
        for member in changes.promoted:
            if member not in changes.added:
                self._log(f"replica {member.index} ready")

    def _tick(self) -> None:
        changes = self.fleet.tick(self.clock.now())
        if changes:
            task = asyncio.get_running_loop().create_task(self._apply(changes))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    async def _tick_forever(self) -> None:
        while True:
            self._tick()
            await asyncio.sleep(TICK_WALL_S)

    # --- front door --------------------------------------------------------------------

    def _route(self) -> tuple[ReplicaDriver, int]:
        self._tick()
        member = self.fleet.route()
        if member is None or member.index not in self._servers:
            raise ApiError(503, "no ready replica to serve the request", "ServiceUnavailableError")
        return self._servers[member.index].driver, member.index

    async def _health(self, _: web.Request) -> web.Response:
        self._tick()
        if self.fleet.ready:
            return web.Response(status=200)
        return error_response(503, "no ready replica", "ServiceUnavailableError")

    def describe(self) -> dict:
        now = self.clock.now()
        members = []
        for member in self.fleet.members:
            server = self._servers.get(member.index)
            members.append({
                "index": member.index,
                "port": server.port if server else None,
                "state": member.state.value,
                "ready_at": round(self.clock.to_epoch(member.ready_at), 3),
                "ready_in_s": round(member.time_until_ready(now), 3),
                "running": member.replica.num_running,
                "waiting": member.replica.num_waiting,
            })
        return {
            "model": self.settings.model,
            "replicas": self.fleet.desired,
            "ready": self.fleet.ready,
            "starting": self.fleet.starting,
            "draining": self.fleet.draining,
            "max_replicas": self.settings.max_replicas,
            "speed": self.settings.speed,
            "members": members,
        }

    async def _get_fleet(self, _: web.Request) -> web.Response:
        self._tick()
        return web.json_response(self.describe())

    async def _put_fleet(self, http: web.Request) -> web.Response:
        try:
            body = json.loads(await http.read())
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return error_response(400, f"JSON decode error: {exc}", "BadRequestError")
        if not isinstance(body, dict) or "replicas" not in body:
            return error_response(400, 'replicas: Field required (send {"replicas": N})', "BadRequestError",
                                  "replicas")
        n = body["replicas"]
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= self.settings.max_replicas:
            return error_response(
                400, f"replicas: expected an integer between 0 and {self.settings.max_replicas}, got {json.dumps(n)}",
                "BadRequestError", "replicas")
        changes = self.fleet.set_replicas(n, self.clock.now(), self.settings.cold_start_s)
        await self._apply(changes)
        return web.json_response(self.describe())
