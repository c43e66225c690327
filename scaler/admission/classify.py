"""From descriptor entries (what Envoy read from request headers) to an admission Request.

Descriptor keys: `model`, `class` (interactive|agent|background|batch), `priority` (an integer,
as in the Gateway API Inference Extension: negative means sheddable) and `tenant`. A request
with neither class nor priority gets the model's own class (its spec's requestClass). Values
are untrusted header contents: they select among known names and are never echoed anywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from scaler.policy.config import REQUEST_CLASSES

_INTEGER = re.compile(r"^[+-]?[0-9]{1,9}$")


@dataclass(frozen=True)
class Request:
    model: str | None
    request_class: str
    class_source: str  # header | priority | model-default | invalid-header (then the model default)
    tenant: str | None  # as sent; map it with AdmissionConfig.pool before use as a key or label
    cost: int = 1  # Envoy's hits_addend: how many requests this call stands for


def request_class(class_value: str | None, priority_value: str | None, default: str) -> tuple[str, str]:
    """(class, where it came from). An explicit class wins over a priority."""
    if class_value is not None:
        if class_value in REQUEST_CLASSES:
            return class_value, "header"
        return default, "invalid-header"
    if priority_value is not None:
        if not _INTEGER.match(priority_value):
            return default, "invalid-header"
        priority = int(priority_value)
        if priority < 0:
            return "batch", "priority"  # sheddable: shed first in YELLOW and RED
        if priority > 0:
            return "interactive", "priority"  # above the default: served first
        return default, "priority"
    return default, "model-default"


def classify(entries: Mapping[str, str], default_class: str, cost: int = 1) -> Request:
    klass, source = request_class(entries.get("class"), entries.get("priority"), default_class)
    tenant = entries.get("tenant") or None
    return Request(model=entries.get("model") or None, request_class=klass, class_source=source,
                   tenant=tenant, cost=max(1, cost))
