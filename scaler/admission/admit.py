"""The admission decision for one request: pure, with the model's state passed in and returned.

Order of the rules (the first that refuses gives the reason):
1. a tenant over its hard quota is refused with the quota code (429), in every state;
2. no decision yet, an UNKNOWN one (no or stale evidence) or a stale one: admit (fail open);
3. YELLOW refuses the configured classes (batch, background) with the capacity code;
4. a request whose wait for a batch slot, projected from the decision's data and the requests
   admitted since (scaler/admission/backlog.py), reaches the policy's RED line (`miss_ratio` x
   the budget; in RED, the share its rate aims at, `red_queue_ratio`) is refused: between two
   decisions only this count sees a burst fill the free slots;
5. GREEN and YELLOW admit the rest; RED admits at most `decision.admission_rps` (what current
   capacity drains within the TTFT budget) through a token bucket. A class takes a token only
   while the bucket stays above its reserve (interactive may empty it), and a tenant takes from
   its own weighted share of the rate unless the bucket is full enough that the other tenants are
   not using theirs.
Retry-After comes from the policy (time to drain the excess or until new capacity) or from the
tenant's quota bucket, spread by the jitter (`rand` in [0, 1)), clamped to [1, 60] seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

from scaler.admission.backlog import Admitted, project
from scaler.admission.bucket import Bucket
from scaler.admission.classify import Request
from scaler.admission.config import AdmissionConfig
from scaler.policy.decide import RETRY_AFTER_BOUNDS_S, Decision, State

QUOTA_REASON = "tenant-over-quota"
QUEUE_REASON = "queue-over-budget"  # the slot queue projected since the scaler's data


@dataclass(frozen=True)
class Verdict:
    admitted: bool
    code: int | None  # HTTP status of the refusal; None when admitted
    reason: str  # stable code, a metrics label
    detail: str  # one sentence with the numbers, for logs and the error body
    state: str  # the model's state the verdict was taken in (GREEN|YELLOW|RED|UNKNOWN)
    request_class: str
    tenant: str  # the tenant pool (a configured tenant or `other`), safe as a label
    retry_after_s: int | None = None

    @property
    def code_label(self) -> str:
        return "OK" if self.code is None else str(self.code)


@dataclass(frozen=True)
class AdmissionState:
    """What admission remembers about one model between requests."""

    quotas: Mapping[str, Bucket] = field(default_factory=dict)  # per tenant pool, in every state
    red: Bucket | None = None  # the RED bucket; None outside RED (a new RED starts empty)
    shares: Mapping[str, Bucket] = field(default_factory=dict)  # per tenant pool, RED only
    last_seen: Mapping[str, float] = field(default_factory=dict)  # per tenant pool, for the fair-share split
    admitted: Admitted = field(default_factory=Admitted)  # recent admissions, for the slot queue since the data


def _evolve(state: AdmissionState, **changes) -> AdmissionState:
    """`dataclasses.replace` without its walk over the fields: admit() runs for every request (the
    RLS's hot path), and replace() alone was a tenth of a simulated run of ours."""
    return AdmissionState(**{**state.__dict__, **changes})


def _outside_red(state: AdmissionState) -> AdmissionState:
    """The RED buckets dropped (a new RED starts empty); most requests find them dropped already."""
    return state if state.red is None and not state.shares else _evolve(state, red=None, shares={})


def other_domain(config: AdmissionConfig, request: Request) -> Verdict:
    """A rate-limit call for another domain (another use of the same Envoy): not ours to refuse."""
    return Verdict(True, None, "other-domain", "not the slo-scaler rate-limit domain: admitted",
                   "UNKNOWN", request.request_class, config.pool(request.tenant))


def unknown_model(config: AdmissionConfig, request: Request) -> Verdict:
    pool = config.pool(request.tenant)
    if config.refuse_unknown_models:
        return Verdict(False, config.capacity_code, "unknown-model", "the model is not served here",
                       "UNKNOWN", request.request_class, pool, int(RETRY_AFTER_BOUNDS_S[1]))
    return Verdict(True, None, "unknown-model", "the model is not known to the scaler: admitted",
                   "UNKNOWN", request.request_class, pool)


def admit(config: AdmissionConfig, state: AdmissionState, request: Request, decision: Decision | None,
          now: float, rand: float, stale_after_s: float,
          observed_at: float | None = None) -> tuple[Verdict, AdmissionState]:
    """`observed_at`: the data time of the observation behind `decision` (default: its time)."""
    pool = config.pool(request.tenant)
    klass, cost = request.request_class, request.cost
    seen = {**state.last_seen, pool: now}
    state = _evolve(state, last_seen=seen)
    current = decision.state.value if decision is not None else "UNKNOWN"

    def verdict(admitted, reason, detail, code=None, retry=None):
        return Verdict(admitted, code, reason, detail, current, klass, pool, retry)

    tenant = config.tenant(pool)
    quota = None
    if tenant.quota_rps is not None:
        burst = max(cost, tenant.quota_rps * config.quota_burst_s)
        quota = state.quotas.get(pool, Bucket(burst, now)).refill(now, tenant.quota_rps, burst)
        if quota.tokens < cost:
            wait = quota.seconds_until(cost, tenant.quota_rps)
            state = _evolve(state, quotas={**state.quotas, pool: quota})
            return verdict(False, QUOTA_REASON, f"tenant over its quota of {tenant.quota_rps:g} requests/s",
                           config.quota_code, _retry_after(wait, config.retry_jitter, rand)), state

    data_time = observed_at if observed_at is not None else (decision.time if decision is not None else None)

    queue = None  # the slot queue, once projected

    def admitted(reason, detail, new_state):
        quotas = new_state.quotas if quota is None else {**new_state.quotas, pool: quota.take(cost)}
        new_state = _evolve(new_state, quotas=quotas, admitted=new_state.admitted.record(now, cost, data_time, queue))
        return verdict(True, reason, detail), new_state

    if decision is None:
        return admitted("no-decision-yet", "the scaler has not decided for this model yet: admitted", state)
    if decision.state is State.UNKNOWN:
        # No or stale evidence (the decision's reason says which): missing data never sheds.
        return admitted(f"unknown-{decision.reason}", f"UNKNOWN, admitted: {decision.detail}",
                        _outside_red(state))
    if now - decision.time > stale_after_s:
        return admitted("decision-stale", f"the scaler's decision is {now - decision.time:.0f}s old: admitted",
                        _outside_red(state))
    if decision.state is not State.RED:
        state = _outside_red(state)
        if decision.state is State.YELLOW and klass in config.yellow_shed:
            return verdict(False, "yellow-shed-class", f"queue growing: {klass} requests are shed until it recovers",
                           config.capacity_code, _retry_after(decision.retry_after_s, config.retry_jitter, rand)), state
    # Outside RED the decision says requests admitted now make the SLO, as of its data; in RED its
    # rate plans for the queue it saw. The requests admitted since can make either wrong before
    # the next decision sees them: only this count does.
    ratio = config.red_queue_ratio if decision.state is State.RED else config.miss_ratio
    queue = project(decision, state.admitted, data_time, now, ratio)
    if queue is not None and queue.waiting + cost >= queue.allowed:
        wait = max(queue.excess_s(cost), decision.retry_after_s)
        return verdict(False, QUEUE_REASON, (
            f"would wait {queue.wait_s(cost):.2f}s for a batch slot, >= {ratio:g} x the {decision.budget_s:.2f}s "
            f"budget: the requests admitted since the scaler's data {max(0.0, now - data_time):.1f}s ago fill the "
            f"slots faster than {queue.rate_rps:.2f}/s drain"),
            config.capacity_code, _retry_after(wait, config.retry_jitter, rand)), state
    if decision.state is not State.RED:
        return admitted(decision.state.value.lower(), f"{decision.state.value}: admitted", state)
    ok, reason, detail, state = _red(config, state, klass, pool, cost, decision.admission_rps, now)
    if ok:
        return admitted(reason, detail, state)
    return verdict(False, reason, detail, config.capacity_code,
                   _retry_after(decision.retry_after_s, config.retry_jitter, rand)), state


def _red(config: AdmissionConfig, state: AdmissionState, klass: str, pool: str, cost: int,
         admission_rps: float | None, now: float) -> tuple[bool, str, str, AdmissionState]:
    rate = max(0.0, admission_rps or 0.0)
    burst = max(float(cost), rate * config.burst_s)
    bucket = (state.red or Bucket(0.0, now)).refill(now, rate, burst)

    active = [p for p, t in state.last_seen.items() if now - t <= config.active_tenant_s]
    share = config.tenant(pool).weight / sum(config.tenant(p).weight for p in active)
    share_rate, share_burst = rate * share, max(float(cost), burst * share)
    mine = state.shares.get(pool, Bucket(0.0, now)).refill(now, share_rate, share_burst)
    state = _evolve(state, red=bucket, shares={**state.shares, pool: mine})

    room = max(0.0, burst - cost)
    if bucket.tokens < cost:
        return False, "red-over-drain-rate", (
            f"over the {rate:.2f} requests/s current capacity drains within the TTFT budget"), state
    if bucket.tokens < cost + config.class_reserve[klass] * room:
        return False, "red-class-reserve", (
            f"the drainable rate ({rate:.2f} requests/s) is kept for classes above {klass}"), state
    if mine.tokens >= cost:
        return True, "red-within-drain-rate", f"within the tenant's share of {share_rate:.2f} requests/s", (
            _evolve(state, red=bucket.take(cost), shares={**state.shares, pool: mine.take(cost)}))
    if bucket.tokens >= cost + config.borrow_above * room:
        return True, "red-idle-share", "past the tenant's share, using capacity other tenants leave idle", (
            _evolve(state, red=bucket.take(cost)))
    return False, "red-tenant-share", f"tenant past its weighted share ({share:.0%}) of {rate:.2f} requests/s", state


def _retry_after(seconds: float, jitter: float, rand: float) -> int:
    low, high = RETRY_AFTER_BOUNDS_S
    if not math.isfinite(seconds):
        seconds = high
    spread = seconds * (1.0 + jitter * (2.0 * rand - 1.0))
    return int(math.ceil(min(max(spread, low), high)))
