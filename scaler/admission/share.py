"""One replica's share of a model's budget, for when the budget cannot be shared (pure).

With N replicas answering Envoy and the shared store out of reach, each spends 1/N of every rate:
the RED admission rate, every tenant quota, and the batch slots and drain the slot queue is
projected from. The state is
never changed, and UNKNOWN never sheds: a replica on its own share still admits everything the
scaler does not say is short.
"""

from __future__ import annotations

from dataclasses import replace

from scaler.admission.config import AdmissionConfig
from scaler.policy.decide import Decision


def share_of(config: AdmissionConfig, decision: Decision | None, share: float) -> tuple[AdmissionConfig, Decision | None]:
    if not 0.0 < share <= 1.0:
        raise ValueError(f"share: expected a fraction in (0, 1], got {share}")
    if share == 1.0:
        return config, decision
    tenants = {name: replace(t, quota_rps=None if t.quota_rps is None else t.quota_rps * share)
               for name, t in config.tenants.items()}
    if decision is not None and decision.admission_rps is not None:
        decision = replace(decision, admission_rps=decision.admission_rps * share)
    if decision is not None and decision.slots is not None:
        # This replica counts only its own admissions: it gets its share of the slots and the drain.
        decision = replace(decision, slots=decision.slots * share, running=decision.running * share,
                           waiting=decision.waiting * share, drain_rps=decision.drain_rps * share)
    return replace(config, tenants=tenants), decision
