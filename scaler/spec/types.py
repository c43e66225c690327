"""Constrained string and number types used by the model spec.

Every string that ends up in a rendered manifest, a PromQL selector or an Envoy config is checked
against a strict pattern here, so quotes, newlines, `: `, `{{ }}` or PromQL syntax never get past
loading. Patterns are anchored with `^...$`; pydantic runs them with Rust's regex engine, where `$`
matches only at the very end (no trailing-newline loophole as with Python's `re`).
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, WithJsonSchema

AUTO = "auto"

_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS_LABEL = rf"^{_LABEL}$"
DNS_SUBDOMAIN = rf"^{_LABEL}(\.{_LABEL})*$"
LABEL_VALUE = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"
LABEL_KEY = rf"^({_LABEL}(\.{_LABEL})*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
RESOURCE_NAME = rf"^{_LABEL}(\.{_LABEL})*/[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$"
SERVED_NAME = r"^[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?$"
MODEL_URI = r"^(hf|s3|gs|pvc|oci|https)://[A-Za-z0-9][A-Za-z0-9._~/@+=:-]*$"
IMAGE = (
    r"^[a-z0-9]([a-z0-9._-]*[a-z0-9])?(:[0-9]{1,5})?(/[a-z0-9]([a-z0-9._-]*[a-z0-9])?)*"
    r"(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$"
)
CLI_ARG = r"^[A-Za-z0-9_./:=,@+%-]+$"
QUANTITY = r"^[0-9]+(\.[0-9]+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$"
HOSTNAME = rf"^(\*\.)?{_LABEL}(\.{_LABEL})*$"
HTTP_URL = rf"^https?://{_LABEL}(\.{_LABEL})*(:[0-9]{{1,5}})?(/[A-Za-z0-9._~-]+)*/?$"

# What each pattern means, for error messages people can act on.
PATTERN_HELP = {
    DNS_LABEL: "a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit",
    DNS_SUBDOMAIN: "a DNS-1123 subdomain: dot-separated DNS-1123 labels",
    LABEL_VALUE: "a Kubernetes label value: letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
    LABEL_KEY: "a Kubernetes label key: an optional DNS prefix and '/', then letters, digits, '-', '_' and '.'",
    RESOURCE_NAME: "an extended resource name like 'nvidia.com/gpu'",
    SERVED_NAME: "a served model name: letters, digits, '.', '_', '-' and '/', starting and ending with a letter or digit",
    MODEL_URI: "a model URI like 'hf://org/model' or 's3://bucket/path' (schemes hf, s3, gs, pvc, oci, https; no spaces, quotes or query strings)",
    IMAGE: "a container image reference like 'registry:5000/org/image:tag' or '...@sha256:<digest>'",
    CLI_ARG: "one command-line argument of letters, digits and _ . / : = , @ + % - (no spaces, quotes, braces or shell syntax)",
    QUANTITY: "a Kubernetes quantity like '8', '500m' or '48Gi'",
    HOSTNAME: "a host name like 'chat.example.com' (optionally starting with '*.')",
    HTTP_URL: "an http(s) URL of host, optional port and path, like 'http://prometheus.monitoring.svc:9090'",
}


def _string(pattern: str, max_length: int, description: str):
    return Annotated[str, Field(pattern=pattern, min_length=1, max_length=max_length, description=description)]


ModelName = _string(DNS_LABEL, 40, "DNS-1123 label; also the InferenceService name (at most 40 characters so derived names fit)")
Namespace = _string(DNS_LABEL, 63, "Kubernetes namespace (DNS-1123 label)")
SecretName = _string(DNS_SUBDOMAIN, 253, "name of a Secret in the model's namespace")
LabelKey = _string(LABEL_KEY, 317, "Kubernetes label key")
LabelValue = Annotated[str, Field(pattern=LABEL_VALUE, max_length=63, description="Kubernetes label value")]
TenantName = _string(LABEL_VALUE, 63, "tenant id as sent in the x-tenant-id header (label-value syntax)")
ResourceName = _string(RESOURCE_NAME, 253, "extended resource name")
ServedName = _string(SERVED_NAME, 128, "vLLM --served-model-name, the `model_name` label of vLLM metrics")
ModelUri = _string(MODEL_URI, 512, "where the weights come from (KServe storage URI)")
Image = _string(IMAGE, 512, "container image reference")
CliArg = _string(CLI_ARG, 256, "one vLLM command-line argument")
Quantity = _string(QUANTITY, 32, "Kubernetes resource quantity")
Hostname = _string(HOSTNAME, 253, "host name")
HttpUrl = _string(HTTP_URL, 512, "http(s) URL")


def _number_or_auto(low: float):
    """A float > low, or the string 'auto' (the scaler learns the value at run time)."""

    def parse(value: Any) -> float | str:
        if value == AUTO:
            return AUTO
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= low:
            raise ValueError(f"a number greater than {low:g} or 'auto'")
        return float(value)

    schema = {"oneOf": [{"type": "number", "exclusiveMinimum": low}, {"const": AUTO}]}
    return Annotated[float | str, BeforeValidator(parse), WithJsonSchema(schema)]


PositiveOrAuto = _number_or_auto(0.0)
