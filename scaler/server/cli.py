"""`slo-scaler serve`: the KEDA external scaler and the Envoy rate-limit service in one process."""

from __future__ import annotations

import argparse
import asyncio
import sys

from scaler.server import logs


def register(subparsers: argparse._SubParsersAction) -> None:
    from scaler.rls import server as rls_server

    parser = subparsers.add_parser(
        "serve",
        help="Run the KEDA external scaler (gRPC) and the rate-limit service on shared state.",
        description="KEDA's ScaledObject points its `external` (or `external-push`) trigger at --grpc-port; "
        "the trigger metadata says which model, where its signals are and its TTFT SLO (docs/scaler.md).",
    )
    parser.add_argument("--host", default="0.0.0.0", help="address for the gRPC and metrics ports (default 0.0.0.0)")
    parser.add_argument("--grpc-port", type=int, default=9090, help="KEDA external scaler port; 0 picks one (default 9090)")
    parser.add_argument("--metrics-port", type=int, default=9091, help="Prometheus /metrics port; 0 picks one (default 9091)")
    parser.add_argument("--poll-interval", type=_positive, default=1.0, metavar="SECONDS",
                        help="seconds between signal rounds for every model (default 1)")
    parser.add_argument("--source-timeout", type=_positive, default=2.0, metavar="SECONDS",
                        help="timeout of one Prometheus query or /metrics scrape (default 2)")
    parser.add_argument("--first-poll-wait", type=_positive, default=2.0, metavar="SECONDS",
                        help="how long the first GetMetrics of a new model waits for its first round (default 2; "
                        "KEDA's deadline is 3)")
    parser.add_argument("--default", action="append", default=[], metavar="KEY=VALUE",
                        help="server-wide default for a trigger metadata key, e.g. prometheusAddress=http://prom:9090 "
                        "(repeatable; also SLO_SCALER_DEFAULT_<KEY> such as SLO_SCALER_DEFAULT_TTFT_SLO_SECONDS)")
    parser.add_argument("--models", metavar="FILE",
                        help="YAML list of models to poll from start (each a mapping of trigger metadata keys)")
    parser.add_argument("--config", metavar="DIR|FILE",
                        help="per-model runtime config rendered by `slo-scaler render` (a mounted ConfigMap directory or "
                        "one file; docs/modelconfig.md): wins over trigger metadata, reloaded when it changes")
    parser.add_argument("--discovery", choices=("auto", "kubernetes", "off"), default="auto",
                        help="pod discovery for podSelector: auto uses in-cluster or kubeconfig credentials when "
                        "present (default auto)")
    parser.add_argument("--discovery-interval", type=_positive, default=2.0, metavar="SECONDS",
                        help="how often the pods of one selector are listed (default 2)")
    parser.add_argument("--forget-after", type=_positive, default=600.0, metavar="SECONDS",
                        help="drop a model no ScaledObject asked about for this long (default 600)")
    parser.add_argument("--tls-cert", metavar="PEM", help="serve gRPC over TLS with this certificate")
    parser.add_argument("--tls-key", metavar="PEM", help="private key of --tls-cert")
    parser.add_argument("--tls-client-ca", metavar="PEM",
                        help="require client certificates signed by this CA (mTLS; KEDA's tlsClientCert/tlsClientKey)")
    parser.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")
    rls_server.add_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from scaler.server.app import StartupError, serve

    logs.configure(args.log_level)
    # Source threads (Prometheus queries, page parsing) must not hold the GIL for the default
    # 5 ms slices while KEDA's RPCs wait on the loop: hand it back every millisecond.
    sys.setswitchinterval(0.001)
    try:
        return asyncio.run(serve(args))
    except StartupError as error:
        print(f"serve: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"serve: cannot listen: {error}", file=sys.stderr)
        return 1


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return value
