"""Start the rate-limit gRPC server inside `slo-scaler serve` (wiring only; logic is in service.py).

`add_arguments(parser)` adds the --rls-* flags to the serve command; `start(registry, args)`
starts the gRPC server on its own port and returns it (None when --rls-port is 0).
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("rate-limit service (Envoy RLS v3, load shedding)")
    group.add_argument("--rls-port", type=int, default=8081,
                       help="port of the Envoy rate-limit gRPC service; 0 disables it (default 8081)")
    group.add_argument("--rls-host", default="0.0.0.0", help="address the RLS listens on (default 0.0.0.0)")
    group.add_argument("--rls-tls-cert", default=None, help="PEM certificate: serve the RLS over TLS")
    group.add_argument("--rls-tls-key", default=None, help="PEM private key for --rls-tls-cert")
    group.add_argument("--shadow", action="store_true",
                       help="decide and count, never refuse (safe rollout)")
    group.add_argument("--unknown-model", choices=("admit", "refuse"), default="admit",
                       help="answer for a model the scaler does not know (default admit)")
    group.add_argument("--capacity-code", type=int, default=503,
                       help="HTTP status for capacity shedding (default 503)")
    group.add_argument("--quota-code", type=int, default=429,
                       help="HTTP status for a tenant over its quota (default 429)")
    group.add_argument("--tenants", default=None, metavar="FILE",
                       help="YAML file with tenant weights and quotas (see docs/shedding.md)")


async def start(registry, args):
    """Start the RLS for `registry` (a scaler.server.registry.ModelRegistry); None when disabled."""
    if args.rls_port == 0:
        return None
    raise NotImplementedError("scaler.rls.server.start: being written (issue 4)")
