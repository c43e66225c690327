"""Envoy's side of load shedding: the parameters and `render_envoy_config` for a standalone Envoy.

The same `EnvoyParams` feed the Istio EnvoyFilters (see templates/envoy/), so the rate-limit
filter, the RLS cluster, the descriptor actions and the 429/503 mapping are identical in both.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Mapping

from scaler.render.derive import PORTS, rls_host
from scaler.render.templating import render_template
from scaler.spec import ModelSpec
from scaler.spec.types import SERVED_NAME

_HOST = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$")
_SERVED = re.compile(SERVED_NAME)
_NAMESPACE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
STATUS_CODES = (429, 503)
RLS_TLS_DIR = "/etc/slo-scaler/rls-tls"  # the gateway's mount of spec.shedding.rlsTls.secretName


@dataclass(frozen=True)
class EnvoyParams:
    served_name: str
    rls_host: str
    rls_port: int
    status_code: int = 503  # rate_limited_status: used when the RLS names no status
    rls_timeout_ms: int = 50
    # The model's namespace, sent as the descriptor entry `namespace` next to `model` (the same
    # served name in two namespaces is two models); None sends none (the name must then be unique).
    namespace: str | None = None
    # Where the gateway has Envoy's client certificate for the RLS (tls.crt, tls.key, ca.crt):
    # set, the RLS cluster speaks mutual TLS; None, plaintext.
    rls_tls_dir: str | None = None

    def __post_init__(self):
        if not isinstance(self.served_name, str) or not _SERVED.match(self.served_name) or len(self.served_name) > 128:
            raise ValueError(f"served_name: expected a served model name (letters, digits, '.', '_', '-', '/'), got {self.served_name!r}")
        if self.namespace is not None and (not isinstance(self.namespace, str) or not _NAMESPACE.match(self.namespace)):
            raise ValueError(f"namespace: expected a Kubernetes namespace name (lower-case DNS label), got {self.namespace!r}")
        _check_host("rls_host", self.rls_host)
        _check_port("rls_port", self.rls_port)
        if self.status_code not in STATUS_CODES:
            raise ValueError(f"status_code: expected one of {STATUS_CODES}, got {self.status_code!r}")
        if isinstance(self.rls_timeout_ms, bool) or not isinstance(self.rls_timeout_ms, int) or not 5 <= self.rls_timeout_ms <= 1000:
            raise ValueError(f"rls_timeout_ms: expected an integer in [5, 1000], got {self.rls_timeout_ms!r}")

    @classmethod
    def from_spec(cls, spec: ModelSpec, rls_address: str | None = None) -> "EnvoyParams":
        host, port = split_address("rls_address", rls_address) if rls_address else (rls_host(spec), PORTS["rls"])
        return cls(spec.model.served_name, host, port, spec.shedding.status_code, spec.shedding.rls_timeout_ms,
                   spec.namespace, RLS_TLS_DIR if spec.shedding.rls_tls.enabled else None)

    @property
    def timeout(self) -> str:
        return f"{self.rls_timeout_ms / 1000:.3f}s"

    @property
    def status_codes(self) -> tuple[int, ...]:
        return STATUS_CODES

    @property
    def rls_cluster_type(self) -> str:
        return cluster_type(self.rls_host)


def render_envoy_config(
    spec_or_params: ModelSpec | EnvoyParams | Mapping,
    listen_port: int,
    upstream: str,
    rls_address: str,
    admin_port: int,
) -> str:
    """A complete standalone envoy.yaml: listener -> ratelimit filter -> router -> upstream.

    `spec_or_params` is a ModelSpec, an EnvoyParams, or a mapping of EnvoyParams fields without
    the RLS address (e.g. {"served_name": "m", "status_code": 503}). `upstream` and `rls_address`
    are "host:port"; `rls_address` overrides the spec's scaler address.
    """
    rls_host, rls_port = split_address("rls_address", rls_address)
    if isinstance(spec_or_params, ModelSpec):
        params = EnvoyParams.from_spec(spec_or_params, rls_address)
    elif isinstance(spec_or_params, EnvoyParams):
        params = EnvoyParams(spec_or_params.served_name, rls_host, rls_port, spec_or_params.status_code,
                             spec_or_params.rls_timeout_ms, spec_or_params.namespace, spec_or_params.rls_tls_dir)
    else:
        params = EnvoyParams(rls_host=rls_host, rls_port=rls_port, **dict(spec_or_params))
    _check_port("listen_port", listen_port)
    _check_port("admin_port", admin_port)
    if listen_port == admin_port:
        raise ValueError(f"admin_port: expected a port other than listen_port ({listen_port})")
    up_host, up_port = split_address("upstream", upstream)
    return render_template(
        "envoy/envoy.yaml.j2",
        p=params,
        listen_port=listen_port,
        admin_port=admin_port,
        upstream_host=up_host,
        upstream_port=up_port,
        upstream_cluster_type=cluster_type(up_host),
    )


def split_address(name: str, address: str) -> tuple[str, int]:
    if not isinstance(address, str) or address.count(":") != 1:
        raise ValueError(f"{name}: expected 'host:port', got {address!r}")
    host, port = address.split(":")
    _check_host(name, host)
    if not port.isdigit():
        raise ValueError(f"{name}: expected 'host:port' with a numeric port, got {address!r}")
    _check_port(name, int(port))
    return host, int(port)


def cluster_type(host: str) -> str:
    """STATIC for an IP literal, STRICT_DNS for a name (Service DNS)."""
    try:
        ipaddress.ip_address(host)
        return "STATIC"
    except ValueError:
        return "STRICT_DNS"


def _check_host(name: str, host: object) -> None:
    if not isinstance(host, str) or not _HOST.match(host) or len(host) > 253:
        raise ValueError(f"{name}: expected a host name or IPv4 address, got {host!r}")


def _check_port(name: str, port: object) -> None:
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise ValueError(f"{name}: expected a port in [1, 65535], got {port!r}")
