"""RLS settings, read in one place: the --rls-* flags of `slo-scaler serve` and the tenants file.

Bad values fail at argument parsing, with the flag (or the file's field path) and what was
expected: argparse prints `argument --tenants: tenants[1].weight: ...` and exits 2. The one rule
spanning two flags (TLS certificate and key) is checked when the settings are read, through the
same parser's error().
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping
from urllib.parse import urlsplit

import yaml
from pydantic import TypeAdapter, ValidationError

from scaler.admission.config import AdmissionConfig, TenantConfig, tenants_from_spec
from scaler.policy.config import REQUEST_CLASSES
from scaler.spec.model import Tenant

DOMAIN = "slo-scaler"  # the ratelimit filter's `domain` in templates/envoy
MAX_TENANTS_FILE_BYTES = 1 << 20


@dataclass(frozen=True)
class RlsSettings:
    host: str = "0.0.0.0"
    port: int = 8081
    tls_cert: Path | None = None
    tls_key: Path | None = None
    tls_client_ca: Path | None = None  # require Envoy's client certificate, signed by this CA (mTLS)
    shadow: bool = False  # decide and count, never refuse
    decision_max_age_s: float = 60.0  # older decisions are ignored (admit): the scaler may have stopped
    domain: str = DOMAIN
    admission: AdmissionConfig = AdmissionConfig()  # server-wide; a model's spec may override parts
    state_store: str | None = None  # redis://host:port/db: one admission budget for every serve replica
    state_store_replicas: int | None = None  # N of the 1/N share while the store is down (None: counted in it)
    state_store_timeout_s: float = 0.02  # past this a call to the store spends the local share instead

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "RlsSettings":
        if (args.rls_tls_cert is None) != (args.rls_tls_key is None):
            args.rls_usage_error("argument --rls-tls-cert/--rls-tls-key: expected both or neither")
        if args.rls_tls_client_ca is not None and args.rls_tls_cert is None:
            args.rls_usage_error("argument --rls-tls-client-ca: expected --rls-tls-cert and --rls-tls-key as well "
                                 "(mTLS needs server TLS)")
        admission = AdmissionConfig(
            yellow_shed=args.yellow_shed,
            capacity_code=args.capacity_code,
            quota_code=args.quota_code,
            tenants=args.tenants or {},
            refuse_unknown_models=args.unknown_model == "refuse",
            retry_jitter=args.retry_jitter,
        )
        host = args.rls_host or getattr(args, "host", None) or "0.0.0.0"
        return cls(host=host, port=args.rls_port, tls_cert=args.rls_tls_cert, tls_key=args.rls_tls_key,
                   tls_client_ca=args.rls_tls_client_ca,
                   shadow=args.shadow, decision_max_age_s=args.rls_decision_max_age, admission=admission,
                   state_store=args.state_store, state_store_replicas=args.state_store_replicas,
                   state_store_timeout_s=args.state_store_timeout)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("rate-limit service (Envoy RLS v3: load shedding)")
    group.add_argument("--rls-port", type=_port, default=8081,
                       help="port of the Envoy rate-limit gRPC service; 0 disables it (default 8081)")
    group.add_argument("--rls-host", default=None, help="address the RLS listens on (default: serve's --host, else 0.0.0.0)")
    group.add_argument("--rls-tls-cert", type=_readable, default=None, help="PEM certificate: serve the RLS over TLS")
    group.add_argument("--rls-tls-key", type=_readable, default=None, help="PEM private key for --rls-tls-cert")
    group.add_argument("--rls-tls-client-ca", type=_readable, default=None, metavar="PEM",
                       help="require client certificates signed by this CA on the RLS port (mTLS: only your "
                       "Envoy may report arrivals and ask for verdicts)")
    group.add_argument("--shadow", action="store_true",
                       help="shadow mode: decide and count (reason shadow-*), never refuse")
    group.add_argument("--unknown-model", choices=("admit", "refuse"), default="admit",
                       help="answer for a model the scaler does not know (default admit)")
    group.add_argument("--capacity-code", type=_status, default=503,
                       help="HTTP status for capacity shedding (default 503)")
    group.add_argument("--quota-code", type=_status, default=429,
                       help="HTTP status for a tenant over its quota (default 429)")
    group.add_argument("--tenants", type=load_tenants, default=None, metavar="FILE",
                       help="YAML `tenants:` list (name, weight, quotaRequestsPerSecond), as in a model spec's shedding block")
    group.add_argument("--yellow-shed", type=_classes, default=frozenset({"batch", "background"}), metavar="CLASSES",
                       help="comma-separated classes refused in YELLOW (default batch,background; '' sheds none)")
    group.add_argument("--retry-jitter", type=_fraction, default=0.2,
                       help="Retry-After is spread by +- this fraction (default 0.2)")
    group.add_argument("--rls-decision-max-age", type=_positive, default=60.0, metavar="SECONDS",
                       help="ignore (admit) a model's decision older than this (default 60)")
    group.add_argument("--state-store", type=_redis_url, default=None, metavar="URL",
                       help="redis://host:port/db: keep the admission budget in Redis, one budget for every serve "
                       "replica (default: in this process)")
    group.add_argument("--state-store-replicas", type=_whole, default=None, metavar="N",
                       help="serve replicas sharing the store: while it is out of reach each admits 1/N of the "
                       "budget (default: the replicas seen alive in the store, 1 before any)")
    group.add_argument("--state-store-timeout", type=_positive, default=0.02, metavar="SECONDS",
                       help="a store call slower than this spends the local share instead, and the store is "
                       "left alone for a second (default 0.02; keep it well under Envoy's RLS timeout)")
    parser.set_defaults(rls_usage_error=parser.error)


def load_tenants(path: str) -> Mapping[str, TenantConfig]:
    """Read a tenants file: `tenants: [{name, weight, quotaRequestsPerSecond}, ...]`."""
    file = Path(path)
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"{path}: expected a readable file ({exc.strerror})") from None
    if len(raw) > MAX_TENANTS_FILE_BYTES:
        raise argparse.ArgumentTypeError(f"{path}: expected at most {MAX_TENANTS_FILE_BYTES} bytes")
    try:
        doc = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise argparse.ArgumentTypeError(f"{path}: expected valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(doc, dict) or set(doc) != {"tenants"}:
        raise argparse.ArgumentTypeError(f"{path}: expected a mapping with exactly one key, `tenants`")
    try:
        tenants = TypeAdapter(list[Tenant]).validate_python(doc["tenants"])
    except ValidationError as exc:
        err = exc.errors()[0]
        where = "tenants" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"])
        raise argparse.ArgumentTypeError(f"{path}: {where}: {err['msg']} (got {str(err.get('input'))[:60]!r})") from None
    names = [t.name for t in tenants]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise argparse.ArgumentTypeError(f"{path}: tenants: expected unique names, {duplicate!r} appears twice")
    return tenants_from_spec(tenants)


def _port(raw: str) -> int:
    if not raw.isdigit() or not 0 <= int(raw) <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port in [0, 65535] (0 disables), got {raw!r}")
    return int(raw)


def _redis_url(raw: str) -> str:
    parts = urlsplit(raw)
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"expected redis://host:port/db or rediss://..., got {raw!r}")
    return raw


def _whole(raw: str) -> int:
    if not raw.isdigit() or int(raw) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {raw!r}")
    return int(raw)


def _status(raw: str) -> int:
    if not raw.isdigit() or not 400 <= int(raw) <= 599:
        raise argparse.ArgumentTypeError(f"expected an HTTP error status in [400, 599], got {raw!r}")
    return int(raw)


def _classes(raw: str) -> frozenset[str]:
    classes = frozenset(c.strip() for c in raw.split(",") if c.strip())
    bad = sorted(classes - set(REQUEST_CLASSES))
    if bad:
        raise argparse.ArgumentTypeError(f"expected classes among {','.join(REQUEST_CLASSES)}, got {','.join(bad)!r}")
    return classes


def _fraction(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a fraction in [0, 1), got {raw!r}")
    return value


def _positive(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {raw!r}")
    return value


def _readable(raw: str) -> Path:
    path = Path(raw)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"expected a readable PEM file, got {raw!r}")
    return path
