"""The ScaledObject trigger metadata contract: what a KEDA trigger may say, parsed and checked.

KEDA passes the trigger's metadata verbatim (its own keys such as `scalerAddress` included), so
unknown keys are ignored; known keys are checked strictly and hostile values are rejected before
they can reach a PromQL query, a URL or a metric label. Every error is a ConfigError naming the
key and what was expected. The policy keys are parsed by PolicyConfig (scaler.policy.config).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping
from urllib.parse import urlsplit

from scaler.policy.config import METADATA_KEYS as POLICY_KEYS
from scaler.policy.config import ConfigError, PolicyConfig

SOURCES = ("prometheus", "scrape")
DEFAULT_METRICS_PORT = 8080  # vLLM's HTTP port in KServe's vLLM runtime
MAX_SCRAPE_TARGETS = 64

SOURCE_KEYS = ("model", "namespace", "podSelector", "metricsPort", "source", "prometheusAddress", "scrapeTargets")
KEYS = SOURCE_KEYS + POLICY_KEYS
# Keys that only make sense per ScaledObject: no server-wide default.
NO_DEFAULT = ("model",)

# Longest value a key may have (a scrape target list is long), how many keys and how long a key
# name: checked before anything is parsed or cached, so a hostile ScaledObject costs little.
MAX_VALUE_CHARS = 1024
MAX_TARGETS_CHARS = 16384
MAX_UNKNOWN_VALUE_CHARS = 16384
MAX_KEYS = 128
MAX_KEY_CHARS = 256

# Physically meaningful ranges of the policy keys, inclusive. Tighter than the policy's own
# checks: no accepted value can overflow the policy's arithmetic, divide by zero or plan millions
# of replicas (a capacity of 1e-8 requests/s, a utilisation of 5e-324 were accepted before).
RANGES: dict[str, tuple[float, float]] = {
    "ttftSloSeconds": (0.01, 3600.0),
    "expectedPrefillSeconds": (0.0, 3600.0),
    "scaleUpLatencySeconds": (0.1, 3600.0),  # an emulated replica starts in under a second
    "perReplicaCapacity": (0.001, 100_000.0),
    "maxConcurrency": (1.0, 100_000.0),
    "targetUtilization": (0.05, 1.0),
    "prefillTokensPerSecond": (1.0, 10_000_000.0),
    "capacityPromptTokens": (1.0, 10_000_000.0),
    "burstReplicas": (0.0, 1000.0),  # the demand's own cap (decide.MAX_DEMAND_REPLICAS)
    "burstRecurrence": (0.0, 1.0),
    "tpotSloSeconds": (0.001, 60.0),
    "yellowEnterRatio": (0.01, 10.0),
    "yellowExitRatio": (0.01, 10.0),
    "redEnterRatio": (0.01, 10.0),
    "redExitRatio": (0.01, 10.0),
    "stateHoldSeconds": (0.0, 3600.0),
    "backlogDrainRatio": (0.01, 1.0),
    "rateWindowSeconds": (1.0, 3600.0),
    "maxStalenessSeconds": (1.0, 3600.0),
    "capacityPrior": (0.001, 100_000.0),
    "scaleUpLatencyPrior": (0.1, 3600.0),
}
MIN_BUDGET_S = 0.01  # ttftSloSeconds - expectedPrefillSeconds

MODEL_RE = re.compile(r"[A-Za-z0-9._/:-]{1,253}")
NAMESPACE_RE = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
_LABEL_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
LABEL_KEY_RE = re.compile(rf"([a-z0-9]([-a-z0-9.]{{0,251}}[a-z0-9])?/)?{_LABEL_NAME}")
LABEL_VALUE_RE = re.compile(rf"({_LABEL_NAME})?")
HOST_RE = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9.]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\]")
URL_PATH_RE = re.compile(r"(/[A-Za-z0-9._~-]*)*")


@dataclass(frozen=True)
class SourceSpec:
    """Where one model's signals come from."""

    kind: str  # prometheus | scrape
    prometheus_address: str | None = None
    scrape_targets: tuple[str, ...] = ()  # static /metrics URLs; empty means discovery
    namespace: str | None = None
    pod_selector: str | None = None  # normalised equality-based selector, e.g. "app=x,tier=gpu"
    metrics_port: int = DEFAULT_METRICS_PORT

    @property
    def discovery_key(self) -> tuple[str, str] | None:
        """(namespace, selector) when pods can be discovered for this model."""
        return (self.namespace, self.pod_selector) if self.namespace and self.pod_selector else None


@dataclass(frozen=True)
class ScalerMetadata:
    model: str
    source: SourceSpec
    policy: PolicyConfig

    @property
    def metric_name(self) -> str:
        """The name KEDA gives the HPA's external metric (it prefixes `sN-` itself)."""
        return metric_name(self.model)


def metric_name(model: str) -> str:
    return "slo-demand-" + re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")[:180]


def parse(metadata: Mapping[str, str], defaults: Mapping[str, str] | None = None,
          namespace: str | None = None) -> ScalerMetadata:
    """Parse one trigger's metadata over server-wide `defaults`; `namespace` is the ScaledObject's."""
    merged = {**(defaults or {}), **metadata}
    model = _model(merged.get("model"))
    ns = _namespace(merged.get("namespace") or namespace) if merged.get("namespace") or namespace else None
    return ScalerMetadata(model=model, source=_source(merged, ns), policy=_policy(merged))


class ModelKey(tuple):
    """(namespace, model): "" as namespace when the model was configured without one."""

    __slots__ = ()

    def __new__(cls, namespace: str | None, model: str) -> "ModelKey":
        return tuple.__new__(cls, (namespace or "", model))

    def __getnewargs__(self) -> tuple[str, str]:  # pickled to the RLS process
        return self[0], self[1]

    @property
    def namespace(self) -> str:
        return self[0]

    @property
    def model(self) -> str:
        return self[1]

    def __str__(self) -> str:
        return f"{self[0]}/{self[1]}" if self[0] else self[1]

    @property
    def path(self) -> str:
        """"<namespace>/<model>" ("/<model>" without one): unique, since a namespace has no "/"."""
        return f"{self[0]}/{self[1]}"


def key_of(parsed: "ScalerMetadata") -> ModelKey:
    return ModelKey(parsed.source.namespace, parsed.model)


_SOURCE_FIELDS = {"source": "kind", "prometheusAddress": "prometheus_address", "scrapeTargets": "scrape_targets",
                  "namespace": "namespace", "podSelector": "pod_selector", "metricsPort": "metrics_port"}


def metadata_of(parsed: ScalerMetadata) -> dict[str, str]:
    """The metadata keys `parsed` stands for, spelled as parse() reads them (for messages)."""
    out = {"model": parsed.model}
    for key, name in _SOURCE_FIELDS.items():
        value = getattr(parsed.source, name)
        if value not in (None, ()):
            out[key] = ",".join(value) if isinstance(value, tuple) else str(value)
    return {**out, **parsed.policy.to_metadata()}


def first_difference(a: ScalerMetadata, b: ScalerMetadata) -> str | None:
    """The first key (in KEYS order) on which two parsed configurations disagree, or None."""
    left, right = metadata_of(a), metadata_of(b)
    return next((key for key in KEYS if left.get(key) != right.get(key)), None)


def check_sizes(metadata: Mapping[str, str], namespace: str | None = None) -> None:
    """Reject oversized metadata before it is parsed or cached (ConfigError naming the key)."""
    if len(metadata) > MAX_KEYS:
        raise ConfigError("metadata", f"at most {MAX_KEYS} keys", f"{len(metadata)} keys")
    if namespace is not None and len(namespace) > 63:
        raise ConfigError("namespace", "a Kubernetes namespace name (at most 63 characters)", namespace)
    for key, value in metadata.items():
        if len(key) > MAX_KEY_CHARS:
            raise ConfigError(key[:40] + "...", f"a key name of at most {MAX_KEY_CHARS} characters")
        limit = (MAX_TARGETS_CHARS if key == "scrapeTargets" else MAX_VALUE_CHARS) if key in KEYS \
            else MAX_UNKNOWN_VALUE_CHARS
        if len(value) > limit:
            raise ConfigError(key, f"a value of at most {limit} characters", f"{len(value)} characters")


def _policy(merged: Mapping[str, str]) -> PolicyConfig:
    """The policy keys, parsed by PolicyConfig, then held to RANGES."""
    policy = PolicyConfig.from_metadata({k: v for k, v in merged.items() if k in POLICY_KEYS})
    for key, (low, high) in RANGES.items():
        raw = merged.get(key)
        if raw is None or str(raw).strip().lower() == "auto":
            continue
        if not low <= float(str(raw).strip()) <= high:  # PolicyConfig has checked it is a finite number
            raise ConfigError(key, f"a number in [{low:g}, {high:g}]", raw)
    if policy.budget_s < MIN_BUDGET_S:
        raise ConfigError("expectedPrefillSeconds", f"at most ttftSloSeconds - {MIN_BUDGET_S:g} (the queue budget)",
                          merged.get("expectedPrefillSeconds"))
    return policy


def check_defaults(defaults: Mapping[str, str]) -> None:
    """Server-wide defaults: known keys only (they are ours, not KEDA's), each value valid alone
    (a default source may still lack its address: each trigger then names it)."""
    for key, value in defaults.items():
        if key not in KEYS or key in NO_DEFAULT:
            allowed = ", ".join(k for k in KEYS if k not in NO_DEFAULT)
            raise ConfigError(key, f"a metadata key that takes a server default (one of {allowed})")
        if key in _FIELDS:
            _FIELDS[key](value)
    check_sizes(defaults)
    _policy(defaults)


def _model(raw: str | None) -> str:
    if raw is None or not MODEL_RE.fullmatch(raw):
        raise ConfigError("model", "the vLLM model_name: 1 to 253 of A-Z a-z 0-9 . _ / : -", raw)
    return raw


def _source(merged: Mapping[str, str], namespace: str | None) -> SourceSpec:
    given = {key: _FIELDS[key](merged[key]) for key in _FIELDS if merged.get(key)}
    kind = given.get("source", "prometheus")
    port = given.get("metricsPort", DEFAULT_METRICS_PORT)
    selector = given.get("podSelector")
    targets = given.get("scrapeTargets", ())
    address = given.get("prometheusAddress")
    if selector and not namespace:
        raise ConfigError("namespace", "a namespace for podSelector (the ScaledObject's namespace is used when set)")
    if kind == "prometheus" and address is None:
        raise ConfigError("prometheusAddress", "an http(s) URL with host and port for source prometheus "
                          "(or a server default: serve --default prometheusAddress=URL)")
    if kind == "scrape" and not targets and not selector:
        raise ConfigError("scrapeTargets", "comma-separated http(s) /metrics URLs for source scrape, "
                          "or podSelector (with metricsPort) to discover the pods")
    return SourceSpec(kind=kind, prometheus_address=address if kind == "prometheus" else None,
                      scrape_targets=targets if kind == "scrape" else (), namespace=namespace,
                      pod_selector=selector, metrics_port=port)


def _namespace(raw: str) -> str:
    if not NAMESPACE_RE.fullmatch(raw):
        raise ConfigError("namespace", "a Kubernetes namespace name (lower-case DNS label)", raw)
    return raw


def _choice(key: str, raw: str, options: tuple[str, ...]) -> str:
    if raw not in options:
        raise ConfigError(key, "one of " + "|".join(options), raw)
    return raw


def _port(key: str, raw: str) -> int:
    text = str(raw).strip()
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise ConfigError(key, "a TCP port number in [1, 65535]", raw)
    return int(text)


def _url(key: str, raw: str, default_path: str = "") -> str:
    """An http(s) URL with an explicit host and port, an optional plain path and nothing else."""
    expected = "an http(s) URL with host and port, like http://prometheus.monitoring:9090"
    text = str(raw).strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise ConfigError(key, expected, raw) from None
    host = parts.netloc.rsplit(":", 1)[0] if parts.netloc else ""
    if (parts.scheme not in ("http", "https") or port is None or not HOST_RE.fullmatch(host)
            or "@" in parts.netloc or parts.query or parts.fragment or not URL_PATH_RE.fullmatch(parts.path)):
        raise ConfigError(key, expected, raw)
    path = parts.path.rstrip("/") if parts.path not in ("", "/") else default_path
    return f"{parts.scheme}://{host}:{port}{path}"


def _targets(raw: str) -> tuple[str, ...]:
    items = [item.strip() for item in str(raw).split(",") if item.strip()]
    if not 1 <= len(items) <= MAX_SCRAPE_TARGETS:
        raise ConfigError("scrapeTargets", f"1 to {MAX_SCRAPE_TARGETS} comma-separated http(s) URLs", raw)
    return tuple(sorted({_url("scrapeTargets", item, default_path="/metrics") for item in items}))


def _selector(raw: str) -> str:
    """An equality-based label selector (key=value, key==value or key!=value, comma-separated)."""
    expected = "an equality-based label selector like app=llama,tier!=cpu"
    terms = []
    for term in str(raw).split(","):
        match = re.fullmatch(r"\s*([^=!\s]+)\s*(==|=|!=)\s*([^=!\s]*)\s*", term)
        if not match or not LABEL_KEY_RE.fullmatch(match[1]) or not LABEL_VALUE_RE.fullmatch(match[3]):
            raise ConfigError("podSelector", expected, raw)
        terms.append(f"{match[1]}{'!=' if match[2] == '!=' else '='}{match[3]}")
    return ",".join(terms)


_FIELDS = {
    "namespace": _namespace,
    "source": lambda raw: _choice("source", raw, SOURCES),
    "metricsPort": lambda raw: _port("metricsPort", raw),
    "podSelector": _selector,
    "scrapeTargets": _targets,
    "prometheusAddress": lambda raw: _url("prometheusAddress", raw),
}
