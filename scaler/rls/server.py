"""Start the rate-limit gRPC server inside `slo-scaler serve` (wiring only; logic is in service.py).

`add_arguments(parser)` adds the --rls-* flags to the serve command; `start(registry, args)`
starts the gRPC server on its own port and returns it (None when --rls-port is 0). The RLS
shares the scaler's ModelRegistry, so it knows a model as soon as the scaler does, and its
metrics join the scaler's /metrics through `metrics_registry`.
"""

from __future__ import annotations

import argparse
import logging

import grpc
from prometheus_client import REGISTRY, CollectorRegistry

from scaler.rls.metrics import RlsMetrics
from scaler.rls.service import RateLimitService
from scaler.rls.settings import RlsSettings, add_arguments
from scaler.rls.stubs import rls

__all__ = ["add_arguments", "start", "build_service"]
log = logging.getLogger(__name__)


def build_service(registry, settings: RlsSettings, metrics_registry: CollectorRegistry | None = None) -> RateLimitService:
    metrics = RlsMetrics(registry)
    (metrics_registry if metrics_registry is not None else REGISTRY).register(metrics)
    return RateLimitService(registry, settings, metrics)


async def start(registry, args: argparse.Namespace, metrics_registry: CollectorRegistry | None = None
                ) -> grpc.aio.Server | None:
    """Serve ShouldRateLimit for `registry` (a scaler.server.registry.ModelRegistry); None when disabled.

    The RLS metrics are registered in `metrics_registry` (the one the scaler's /metrics serves;
    prometheus_client's default REGISTRY when None).
    """
    settings = RlsSettings.from_args(args)
    if settings.port == 0:
        return None
    service = build_service(registry, settings, metrics_registry)
    # Without this, grpc binds a port another process already holds (SO_REUSEPORT) and shares it.
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((rls.unary_handler("RateLimitService", {"ShouldRateLimit": service.ShouldRateLimit}),))
    address = f"{settings.host}:{settings.port}"
    try:
        if settings.tls_cert is not None:
            credentials = grpc.ssl_server_credentials([(settings.tls_key.read_bytes(), settings.tls_cert.read_bytes())])
            server.add_secure_port(address, credentials)
        else:
            server.add_insecure_port(address)
    except RuntimeError as error:  # grpc's way of saying the port is taken
        raise OSError(f"--rls-port: cannot listen on {address}: {error}") from None
    await server.start()
    log.info("rate-limit service", extra={"fields": {"event": "rls_serving", "address": address,
                                                     "tls": settings.tls_cert is not None, "shadow": settings.shadow}})
    return server
