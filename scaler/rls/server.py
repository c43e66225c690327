"""Start the rate-limit gRPC server (wiring only; logic is in service.py).

`add_arguments(parser)` adds the --rls-* flags to the serve command; `start(registry, args)`
starts the gRPC server on its own port and returns it (None when --rls-port is 0), answering
from `registry` (a ModelRegistry in-process; in serve's RLS process, the copy serve publishes to
it, scaler/rls/worker.py), with its metrics in `metrics_registry`.

It runs on grpc's thread-pool server, not on an asyncio loop (the decision only reads the
registry; the admission state has its own lock, see service.py). `serve` runs it in a process
of its own (scaler/rls/process.py), so an answer never waits for the GIL behind a poll round or
KEDA's calls; tests and benchmarks also run it in-process on a real ModelRegistry.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

import grpc
from prometheus_client import REGISTRY, CollectorRegistry

from scaler.rls.metrics import RlsMetrics
from scaler.rls.service import RateLimitService
from scaler.rls.settings import RlsSettings, add_arguments
from scaler.rls.stubs import rls
from scaler.server.guard import SERVER_OPTIONS, SyncDecodeGuard
from scaler.state import open_store

__all__ = ["add_arguments", "start", "serve_settings", "build_service", "RlsServer"]
log = logging.getLogger(__name__)
WORKERS = 8  # calls decided at once; each holds the admission lock for ~0.03 ms


def build_service(registry, settings: RlsSettings, metrics_registry: CollectorRegistry | None = None) -> RateLimitService:
    store = open_store(settings.state_store, replicas=settings.state_store_replicas,
                       timeout_s=settings.state_store_timeout_s)
    metrics = RlsMetrics(registry, store.stats)
    (metrics_registry if metrics_registry is not None else REGISTRY).register(metrics)
    return RateLimitService(registry, settings, metrics, store)


class RlsServer:
    """The running RLS: grpc's server on its own threads; `await stop(grace)` from the loop."""

    def __init__(self, server: grpc.Server, service: RateLimitService, address: str) -> None:
        self.server, self.service, self.address = server, service, address

    async def stop(self, grace: float | None) -> None:
        await asyncio.to_thread(lambda: self.server.stop(grace).wait())
        self.service.store.close()


async def start(registry, args: argparse.Namespace, metrics_registry: CollectorRegistry | None = None
                ) -> RlsServer | None:
    """Serve ShouldRateLimit for `registry` (a scaler.server.registry.ModelRegistry); None when disabled.

    The RLS metrics are registered in `metrics_registry` (the one the scaler's /metrics serves;
    prometheus_client's default REGISTRY when None).
    """
    settings = RlsSettings.from_args(args)
    if settings.port == 0:
        return None
    return await serve_settings(registry, settings, metrics_registry)


async def serve_settings(registry, settings: RlsSettings, metrics_registry: CollectorRegistry | None = None
                         ) -> RlsServer:
    """`start` with the flags already read (the RLS process of `serve` gets them this way)."""
    if registry is not None:
        registry.bind_loop(asyncio.get_running_loop())  # arrivals from RLS threads notify on the loop
    service = build_service(registry, settings, metrics_registry)
    # so_reuseport 0: without it, grpc binds a port another process already holds and shares it.
    server = grpc.server(ThreadPoolExecutor(WORKERS, thread_name_prefix="rls"), interceptors=(SyncDecodeGuard(),),
                         options=[("grpc.so_reuseport", 0), *SERVER_OPTIONS])
    server.add_generic_rpc_handlers((rls.unary_handler("RateLimitService", {"ShouldRateLimit": service.ShouldRateLimit}),))
    address = f"{settings.host}:{settings.port}"
    try:
        if settings.tls_cert is not None:
            client_ca = settings.tls_client_ca.read_bytes() if settings.tls_client_ca is not None else None
            credentials = grpc.ssl_server_credentials([(settings.tls_key.read_bytes(), settings.tls_cert.read_bytes())],
                                                      root_certificates=client_ca,
                                                      require_client_auth=client_ca is not None)
            server.add_secure_port(address, credentials)
        else:
            server.add_insecure_port(address)
    except RuntimeError as error:  # grpc's way of saying the port is taken
        raise OSError(f"--rls-port {address}: {error}") from None
    server.start()
    log.info("rate-limit service", extra={"fields": {"event": "rls_serving", "address": address,
                                                     "tls": settings.tls_cert is not None,
                                                     "mtls": settings.tls_client_ca is not None,
                                                     "shadow": settings.shadow,
                                                     "state_store": service.store.description}})
    return RlsServer(server, service, address)
