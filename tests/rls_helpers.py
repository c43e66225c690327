"""Run the real RLS gRPC server (scaler.rls.server.start) on a loop thread, and call it like Envoy."""

from __future__ import annotations

import argparse
import asyncio
import threading

import grpc
from prometheus_client import CollectorRegistry

from conftest import free_port
from scaler.rls import server
from scaler.rls.stubs import SHOULD_RATE_LIMIT, rls
from scaler.server.registry import ModelRegistry


def scrape_metadata(model: str, **extra: str) -> dict[str, str]:
    """Trigger metadata the way a ScaledObject sends it (the target is never scraped in these tests)."""
    return {"model": model, "source": "scrape", "scrapeTargets": "http://127.0.0.1:9/metrics", **extra}


def rls_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    server.add_arguments(parser)
    return parser.parse_args(list(argv))


def request(entries: dict[str, str], domain: str = "slo-scaler", hits: int = 0):
    descriptor = rls.RateLimitDescriptor(entries=[rls.RateLimitDescriptor.Entry(key=k, value=v) for k, v in entries.items()])
    return rls.RateLimitRequest(domain=domain, descriptors=[descriptor], hits_addend=hits)


class RlsHarness:
    """`slo-scaler serve`'s RLS half: a real ModelRegistry and the gRPC server on its own loop."""

    def __init__(self, *argv: str, registry: ModelRegistry | None = None, tls: tuple[bytes, bytes, bytes] | None = None):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.port = free_port()
        self.metrics = CollectorRegistry()
        self.registry = registry or self.run(self._registry())
        self.args = rls_args("--rls-host", "127.0.0.1", "--rls-port", str(self.port), *argv)
        self.server = self.run(server.start(self.registry, self.args, self.metrics))
        target = f"127.0.0.1:{self.port}"
        if tls is not None:
            ca, _, _ = tls
            creds = grpc.ssl_channel_credentials(root_certificates=ca)
            self.channel = grpc.secure_channel(target, creds, options=[("grpc.ssl_target_name_override", "localhost")])
        else:
            self.channel = grpc.insecure_channel(target)
        self.stub = self.channel.unary_unary(SHOULD_RATE_LIMIT.path, request_serializer=SHOULD_RATE_LIMIT.request.SerializeToString,
                                             response_deserializer=SHOULD_RATE_LIMIT.response.FromString)

    @staticmethod
    async def _registry() -> ModelRegistry:
        return ModelRegistry()

    def run(self, coro, timeout: float = 10.0):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def add_model(self, model: str, **metadata: str):
        async def ensure():
            return self.registry.ensure(scrape_metadata(model, **metadata), pinned=True)
        return self.run(ensure())

    def call(self, entries: dict[str, str], **kwargs):
        return self.stub(request(entries, **kwargs), timeout=5)

    def close(self) -> None:
        self.channel.close()
        if self.server is not None:
            self.run(self.server.stop(None))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()
