"""Admission policy (pure): which requests Envoy lets through, given the scaler's decision.

`classify` turns descriptor entries into a Request; `admit` returns a Verdict (with its reason)
and the next AdmissionState of the model. Time and randomness are parameters; no I/O here.
"""

from scaler.admission.admit import AdmissionState, Verdict, admit, other_domain, unknown_model
from scaler.admission.classify import Request, classify
from scaler.admission.config import OTHER_TENANT, AdmissionConfig, TenantConfig

__all__ = [
    "OTHER_TENANT", "AdmissionConfig", "AdmissionState", "Request", "TenantConfig", "Verdict",
    "admit", "classify", "other_domain", "unknown_model",
]
