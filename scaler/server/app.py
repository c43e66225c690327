"""`slo-scaler serve`: KEDA external scaler + rate-limit service on one registry (the RLS in a
process of its own that serve starts and publishes to: scaler/rls/process.py).

Startup order: settings, registry (+ --models), discovery, gRPC (scaler + health), the rate-limit
service process (serving every model known so far), /metrics, the poll loop; then one JSON
`serving` line with the bound ports (port 0 picks a free one, which tests use). SIGTERM or
SIGINT: health NOT_SERVING, stop taking RPCs on both ports (in-flight ones get a grace period),
stop polling, close sources, exit 0; during start-up too (a pod deleted while it starts): the start
is abandoned and what it had started stopped. A part that cannot start (a port taken, an RLS
process that never answers) stops the parts started before it, then the error names the flag.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import signal
from typing import Awaitable, Callable

import grpc
from aiohttp import web
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from scaler.policy.config import ConfigError
from scaler.server import settings
from scaler.server.guard import SERVER_OPTIONS, DecodeGuard
from scaler.server.metrics import ScalerCollector
from scaler.server.poller import Poller
from scaler.server.protocol import SERVICE_NAME, service_handler
from scaler.server.registry import ModelRegistry
from scaler.server.servicer import ExternalScalerServicer
from scaler.server.tls import server_credentials
from scaler.sources.discovery import Discovery, KubernetesPodLister, PodLister

log = logging.getLogger("scaler.server")
SHUTDOWN_GRACE_S = 5.0


class StartupError(Exception):
    """Bad flags, files or environment: reported as one line, exit code 2."""


class StartAbandoned(Exception):
    """stop() was called before or while start() ran: the start was given up, and what it had
    started is stopped by the time this is raised."""


def build_registry(args: argparse.Namespace) -> ModelRegistry:
    try:
        defaults = settings.defaults(args.default, os.environ)
        try:
            registry = ModelRegistry(defaults)
        except ConfigError as error:
            raise ValueError(f"server default {error}") from None
        for index, item in enumerate(settings.load_models(args.models) if args.models else []):
            try:
                registry.ensure(item, pinned=True)
            except ConfigError as error:
                raise ValueError(f"--models {args.models}: item {index}: {error}") from None
    except ValueError as error:
        raise StartupError(str(error)) from None
    return registry


def build_discovery(args: argparse.Namespace) -> Discovery | None:
    if args.discovery == "off":
        return None
    try:
        lister = KubernetesPodLister.from_environment()
    except Exception as error:  # the kubernetes client raises several kinds for "no configuration"
        if args.discovery == "kubernetes":
            raise StartupError(f"--discovery kubernetes: no in-cluster or kubeconfig credentials ({error})") from None
        log.info("discovery off", extra={"fields": {"event": "discovery_off", "why": str(error)}})
        return None
    return Discovery(lister, args.discovery_interval)


def _metrics_runner(prom_registry: CollectorRegistry, before: Callable[[], Awaitable[None]]) -> web.AppRunner:
    async def metrics(_: web.Request) -> web.Response:
        await before()  # counts of every RLS answer given so far are in
        body = generate_latest(prom_registry)
        await before()  # and every decision the page shows has reached the RLS
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    app = web.Application()
    app.router.add_get("/metrics", metrics)
    return web.AppRunner(app, access_log=None)


async def _listen(runner: web.AppRunner, host: str, port: int) -> int:
    """The /metrics port bound and serving; `runner.cleanup()` closes it, whatever this got to."""
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await _to_the_end(site.start())
    except OSError as error:
        raise OSError(f"--metrics-port {host}:{port}: {os.strerror(error.errno) if error.errno else error}") from None
    return site._server.sockets[0].getsockname()[1]


async def _to_the_end(step: Awaitable[None]) -> None:
    """Run `step` to its end even when the start is cancelled meanwhile, then raise the cancel: cut
    short, grpc's start leaves its server unable to stop, and asyncio's bind (which takes a loop turn
    once bound) loses a listening server out of stop()'s reach."""
    task = asyncio.ensure_future(step)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.gather(task, return_exceptions=True)
        raise


class ScalerApp:
    """The running parts of one serve process; `start` then `stop` (tests run it in-process)."""

    def __init__(self, args: argparse.Namespace, pod_lister: PodLister | None = None) -> None:
        """`pod_lister` replaces the Kubernetes client (the discovery seam, for tests)."""
        self.args = args
        self.registry = build_registry(args)
        self.credentials = _credentials(args)
        discovery = Discovery(pod_lister, args.discovery_interval) if pod_lister else build_discovery(args)
        self.poller = Poller(self.registry, interval_s=args.poll_interval, source_timeout_s=args.source_timeout,
                             discovery=discovery, forget_after_s=args.forget_after)
        self.metrics_registry = CollectorRegistry(auto_describe=False)
        self.metrics_registry.register(ScalerCollector(self.registry))
        self.config_watcher = _config_watcher(args, self.registry)
        if self.config_watcher is not None:
            self.metrics_registry.register(self.config_watcher)
        self.grpc_port = self.metrics_port = None
        # The parts `start` brings up, None until each is: `stop` stops those that are.
        self.server: grpc.aio.Server | None = None
        self.health: health.aio.HealthServicer | None = None
        self.rls = None
        self.runner: web.AppRunner | None = None
        self.poll_task: asyncio.Task | None = None
        self.config_task: asyncio.Task | None = None
        self._starting: asyncio.Task | None = None
        self._stopping: asyncio.Future | None = None

    async def start(self) -> None:
        """Bring every part up in order. If one fails (or the start is cancelled), the parts already
        up are stopped before the error propagates: no RLS process, bound port or task outlives it.
        A stop() before or during the start abandons it (StartAbandoned, once stopped): nothing comes
        up after a stop."""
        if self._stopping is None:
            # Its own task, so that stop() can cancel the start without cancelling start's caller.
            self._starting = asyncio.ensure_future(self._start_parts())
            try:
                await self._starting
            except BaseException as error:
                if not (isinstance(error, asyncio.CancelledError) and self._stopping is not None
                        and not asyncio.current_task().cancelling()):  # not abandoned by stop(): failed
                    log.error("start failed; stopping what started", extra={"fields": {
                        "event": "start_failed", "error": f"{type(error).__name__}: {error}"[:300]}})
                    try:
                        await self.stop(0.0)
                    except Exception:  # noqa: BLE001 (the start's error is the one to report)
                        log.exception("stop after a failed start", extra={"fields": {"event": "stop_error"}})
                    raise
        if self._stopping is not None:  # a stop came before, during or just as the start ended
            log.info("start abandoned", extra={"fields": {"event": "start_abandoned"}})
            await self.stop()  # the running stop, to its end
            raise StartAbandoned("stop() was called before the start ended")

    async def _start_parts(self) -> None:
        from scaler.rls.process import RlsProcess  # the shedder lives in its own package

        args = self.args
        self.server = grpc.aio.server(interceptors=(DecodeGuard(),), options=SERVER_OPTIONS)
        self.server.add_generic_rpc_handlers(
            (service_handler(ExternalScalerServicer(self.registry, args.first_poll_wait)),))
        self.health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        address = f"{args.host}:{args.grpc_port}"
        try:
            self.grpc_port = (self.server.add_secure_port(address, self.credentials) if self.credentials
                              else self.server.add_insecure_port(address))
        except RuntimeError as error:  # grpc's way of saying the port is taken
            raise OSError(f"--grpc-port {address}: {error}") from None
        await _to_the_end(self.server.start())
        for service in ("", SERVICE_NAME):
            await self.health.set(service, health_pb2.HealthCheckResponse.SERVING)
        # The RLS in its own process (its own GIL: never waiting behind a poll round or KEDA's calls);
        # its metrics on our /metrics, each page synced with it.
        try:
            self.rls = await RlsProcess.start(self.registry, args, self.metrics_registry)
        except RuntimeError as error:  # it started and failed, or never answered (OSError: it cannot listen)
            raise StartupError(f"--rls-port {args.rls_port}: {error}") from None
        self.runner = _metrics_runner(self.metrics_registry, self._sync_rls)
        self.metrics_port = await _listen(self.runner, args.host, args.metrics_port)
        self.poll_task = asyncio.create_task(self.poller.run())
        self.config_task = asyncio.create_task(self.config_watcher.run()) if self.config_watcher else None
        log.info("serving", extra={"fields": {
            "event": "serving", "grpc_port": self.grpc_port, "metrics_port": self.metrics_port,
            "tls": self.credentials is not None, "rls": self.rls is not None,
            "models": [str(e.key) for e in self.registry.models()]}})

    async def _sync_rls(self) -> None:
        if self.rls is not None:
            await self.rls.sync()

    async def stop(self, grace: float = SHUTDOWN_GRACE_S) -> None:
        """Stop the parts that started: after a whole, partial or failed start, or none. Stopping runs
        once; a later or concurrent call waits for it, and cancelling a caller does not cut it short."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop_parts(grace))
        await asyncio.shield(self._stopping)

    async def _stop_parts(self, grace: float) -> None:
        log.info("shutting down", extra={"fields": {"event": "shutdown"}})
        if self._starting is not None and not self._starting.done():
            # A stop during start-up: the start is cancelled and waited for first, so that no part
            # comes up after the parts below are stopped.
            self._starting.cancel()
            await asyncio.gather(self._starting, return_exceptions=True)
        if self.health is not None:
            await self.health.enter_graceful_shutdown()
        tasks = [task for task in (self.poll_task, self.config_task) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*([self.server.stop(grace)] if self.server is not None else []),
                             *([self.rls.stop(grace)] if self.rls is not None else []))
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.poller.close()
        if self.runner is not None:
            await self.runner.cleanup()
        log.info("stopped", extra={"fields": {"event": "stopped"}})


async def serve(args: argparse.Namespace) -> int:
    # The handlers first: a SIGTERM during start-up is a stop like any other (exit 0), not the
    # default action's death, which would leave the RLS process behind.
    signalled = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, signalled.set)
    app = ScalerApp(args)

    async def stop_when_signalled() -> None:
        await signalled.wait()
        await app.stop()

    stopping = asyncio.create_task(stop_when_signalled())
    try:
        await app.start()
    except StartAbandoned:
        pass  # the signal came during start-up; `stopping` has stopped what it started
    else:
        gc.freeze()  # start-up objects (modules, protos) out of every later collection: gen-2 pauses of ~25 ms were ~7
    await stopping
    return 0


def _config_watcher(args: argparse.Namespace, registry: ModelRegistry):
    """serve --config: applied once before serving (a bad one is logged and counted, and the
    scaler runs on trigger metadata until a good version arrives), then watched every poll."""
    if not getattr(args, "config", None):
        return None
    from scaler.modelconfig.watch import ConfigWatcher

    if not os.path.exists(args.config):
        raise StartupError(f"--config {args.config}: expected a directory of model config files or one file (not found)")
    watcher = ConfigWatcher(args.config, registry, interval_s=args.poll_interval)
    watcher.check()
    return watcher


def _credentials(args: argparse.Namespace) -> grpc.ServerCredentials | None:
    try:
        return server_credentials(args.tls_cert, args.tls_key, args.tls_client_ca)
    except ValueError as error:
        raise StartupError(str(error)) from None
