"""ShouldRateLimit: Envoy's descriptor in, the admission verdict out as a RateLimitResponse.

The only mutable state is each model's AdmissionState, replaced after every verdict under one
lock (grpc's worker threads call in; a verdict holds it for ~0.03 ms) in the store: this process's,
or Redis shared by every serve replica (serve --state-store; scaler/state). The service never answers
with a gRPC error: whatever goes wrong inside, it admits (Envoy would fail open anyway, but an
error also costs a timeout and a log line per request). A model that is UNKNOWN (no or stale
evidence) is admitted with `unknown-<why>` as the reason, counted, and logged at most once per
UNKNOWN_LOG_EVERY_S per model.
"""

from __future__ import annotations

import json
import logging
import random
import threading
from typing import Callable

from scaler.admission import AdmissionState, Verdict, admit, classify, other_domain, unknown_model
from scaler.admission.admit import QUOTA_REASON
from scaler.admission.share import share_of
from scaler.modelconfig.runtime import ModelAdmission
from scaler.rls.metrics import UNKNOWN_MODEL, RlsMetrics
from scaler.rls.settings import RlsSettings
from scaler.rls.stubs import rls
from scaler.state import AdmissionStore, LocalStore

log = logging.getLogger(__name__)
OK = rls.RateLimitResponse.Code.Value("OK")
OVER_LIMIT = rls.RateLimitResponse.Code.Value("OVER_LIMIT")
STATUS_METADATA_KEY = "slo_scaler_status"  # read by local_reply_config in templates/envoy/_ratelimit.j2
UNKNOWN_LOG_EVERY_S = 10.0
UNKNOWN_KEY = ("", UNKNOWN_MODEL)  # what requests for no known model count under
_ERROR_TYPES = {"capacity": ("server_error", "overloaded"), "quota": ("requests", "rate_limit_exceeded")}


class RateLimitService:
    def __init__(self, registry, settings: RlsSettings, metrics: RlsMetrics, store: AdmissionStore | None = None,
                 rand: Callable[[], float] = random.random):
        self.registry = registry  # scaler.server.registry.ModelRegistry; its clock dates the decisions
        self.settings = settings
        self.metrics = metrics
        self._rand = rand
        self.store = store or LocalStore()  # each model's AdmissionState: here, or shared in Redis
        # A model's own codes, tenants, YELLOW classes and shadow flag (serve --config), else the flags'.
        self._per_model = ModelAdmission(registry.shedding, settings.admission, settings.shadow)
        self._lock = threading.Lock()
        self._unknown_logged: dict[tuple[str, str], tuple[float, int]] = {}  # key -> (last log time, admits since)

    def ShouldRateLimit(self, request, context):  # noqa: N802 (the gRPC method name)
        return self.should_rate_limit(request)

    def should_rate_limit(self, request):
        try:
            with self._lock:
                verdict, key, shadow = self._decide(request)
                enforced = verdict.admitted or not shadow
                reason = verdict.reason if enforced else f"shadow-{verdict.reason}"
                code = verdict.code_label if enforced else "OK"
                self.metrics.count(*key, verdict.request_class, verdict.tenant, code, reason)
                if verdict.state == "UNKNOWN" and verdict.reason.startswith("unknown-"):
                    self._log_unknown(key, verdict)
        except Exception:  # fail open: never turn a bug in the shedder into an outage
            log.exception("rate-limit decision failed; admitting", extra={"fields": {"event": "rls_error"}})
            return rls.RateLimitResponse(overall_code=OK)
        if enforced and not verdict.admitted:
            return refusal(verdict)
        return rls.RateLimitResponse(overall_code=OK)

    def _decide(self, request) -> tuple[Verdict, tuple[str, str], bool]:
        """The verdict, the (namespace, model) it counts under, and whether it is only shadowed."""
        entries = _entries(request)
        cost = max(1, request.hits_addend)
        if request.domain != self.settings.domain:
            return other_domain(self.settings.admission, classify(entries, "interactive", cost)), UNKNOWN_KEY, self.settings.shadow
        # With `namespace`, that namespace's model; without, the served name only when it is unique.
        entry = self.registry.get(entries["model"], entries.get("namespace")) if "model" in entries else None
        if entry is None:
            return unknown_model(self.settings.admission, classify(entries, "interactive", cost)), UNKNOWN_KEY, self.settings.shadow
        req = classify(entries, entry.config.request_class, cost)
        admission, shadow = self._per_model.for_model(entry.key, entry.config)
        now = self.registry.clock()
        decision, observed_at, rand = entry.decision_at(now), entry.observed_at, self._rand()

        def update(state: AdmissionState, share: float):
            # `share` < 1 only while a shared store is out of reach: this replica's slice of the budget.
            config, shared_decision = share_of(admission, decision, share)
            return admit(config, state, req, shared_decision, now, rand, self.settings.decision_max_age_s,
                         observed_at=observed_at)

        verdict = self.store.update(entry.key.path, update)  # "<namespace>/<model>": one budget per model
        if verdict.reason != QUOTA_REASON:
            # Demand the scaler should serve: what was admitted or shed for capacity. Requests past
            # their tenant's quota would be refused however many replicas ran, so they are not.
            entry.record_arrivals(req.cost, admitted=verdict.admitted or shadow)  # admitted: vLLM will see it
        return verdict, entry.key, shadow

    def _log_unknown(self, key: tuple[str, str], verdict: Verdict) -> None:
        now = self.registry.clock()
        last, since = self._unknown_logged.get(key, (-UNKNOWN_LOG_EVERY_S, 0))
        if now - last < UNKNOWN_LOG_EVERY_S:
            self._unknown_logged[key] = (last, since + 1)
            return
        self._unknown_logged[key] = (now, 0)
        log.warning("admitting: model state unknown", extra={"fields": {
            "event": "rls_admit_unknown", "namespace": key[0], "model": key[1], "reason": verdict.reason, "detail": verdict.detail,
            "admitted_since_last_line": since + 1}})


def refusal(verdict: Verdict):
    """OVER_LIMIT with Retry-After, the status for local_reply_config and an OpenAI-style error body."""
    kind = "quota" if verdict.reason == QUOTA_REASON else "capacity"
    error_type, error_code = _ERROR_TYPES[kind]
    body = {"error": {
        "message": f"{verdict.detail}; retry after {verdict.retry_after_s}s ({verdict.reason})",
        "type": error_type, "param": None, "code": error_code,
    }}
    response = rls.RateLimitResponse(
        overall_code=OVER_LIMIT,
        response_headers_to_add=[rls.HeaderValue(key="retry-after", value=str(verdict.retry_after_s))],
        raw_body=json.dumps(body, separators=(",", ":")).encode(),
    )
    response.dynamic_metadata.update({STATUS_METADATA_KEY: str(verdict.code)})
    return response


def _entries(request) -> dict[str, str]:
    """The entries of the first descriptor that names a model (the one slo-scaler's Envoy config sends)."""
    for descriptor in request.descriptors:
        entries: dict[str, str] = {}
        for entry in descriptor.entries:
            entries.setdefault(entry.key, entry.value)
        if "model" in entries:
            return entries
    return {}
