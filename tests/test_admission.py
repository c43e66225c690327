"""The admission policy: table-driven single verdicts and multi-second scenarios on a manual clock."""

from __future__ import annotations

import bisect
import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from admission_helpers import Driver, decision, req
from scaler.admission import AdmissionConfig, AdmissionState, TenantConfig, admit, classify, unknown_model
from scaler.admission.admit import _retry_after
from scaler.admission.backlog import BIN_S, Admitted, project
from scaler.admission.config import AdmissionConfigError
from scaler.policy.config import REQUEST_CLASSES
from scaler.policy.decide import State

GREEN, YELLOW, RED = decision(State.GREEN), decision(State.YELLOW, retry_after_s=10.0), decision(State.RED, 5.0)


# --- classification ------------------------------------------------------------------------

@pytest.mark.parametrize("label, entries, default, want", [
    ("class header wins", {"class": "batch", "priority": "5"}, "interactive", ("batch", "header")),
    ("negative priority is sheddable", {"priority": "-1"}, "interactive", ("batch", "priority")),
    ("positive priority is served first", {"priority": "3"}, "batch", ("interactive", "priority")),
    ("zero priority keeps the model's class", {"priority": "0"}, "agent", ("agent", "priority")),
    ("nothing: the model's class", {}, "background", ("background", "model-default")),
    ("unknown class: the model's class", {"class": "premium"}, "agent", ("agent", "invalid-header")),
    ("hostile class", {"class": "interactive\nx: 1"}, "batch", ("batch", "invalid-header")),
    ("hostile priority", {"priority": "1; drop"}, "agent", ("agent", "invalid-header")),
    ("huge priority", {"priority": "9" * 40}, "agent", ("agent", "invalid-header")),
])
def test_classify(label, entries, default, want):
    request = classify({"model": "m", **entries}, default)
    assert (request.request_class, request.class_source) == want, label


def test_classify_reads_tenant_and_cost():
    request = classify({"model": "m", "tenant": "acme"}, "interactive", cost=0)
    assert (request.model, request.tenant, request.cost) == ("m", "acme", 1), "hits_addend 0 means one request"
    assert classify({"model": "m"}, "interactive", cost=3).cost == 3


# --- single verdicts ------------------------------------------------------------------------

@pytest.mark.parametrize("label, config, dec, klass, want_admitted, want_code, want_reason", [
    ("green admits batch", AdmissionConfig(), GREEN, "batch", True, None, "green"),
    ("yellow sheds batch", AdmissionConfig(), YELLOW, "batch", False, 503, "yellow-shed-class"),
    ("yellow sheds background", AdmissionConfig(), YELLOW, "background", False, 503, "yellow-shed-class"),
    ("yellow admits agent", AdmissionConfig(), YELLOW, "agent", True, None, "yellow"),
    ("yellow shed list is configurable", AdmissionConfig(yellow_shed=frozenset({"batch"})), YELLOW, "background", True, None, "yellow"),
    ("capacity code is configurable", AdmissionConfig(capacity_code=429), YELLOW, "batch", False, 429, "yellow-shed-class"),
    ("no decision yet admits", AdmissionConfig(), None, "batch", True, None, "no-decision-yet"),
])
def test_single_verdicts(label, config, dec, klass, want_admitted, want_code, want_reason):
    verdict, _ = admit(config, AdmissionState(), req(klass), dec, now=1.0, rand=0.5, stale_after_s=60)
    assert (verdict.admitted, verdict.code, verdict.reason) == (want_admitted, want_code, want_reason), label
    assert verdict.detail and verdict.state == (dec.state.value if dec else "UNKNOWN")
    assert (verdict.retry_after_s is None) == want_admitted, "every refusal carries Retry-After"


def test_a_stale_decision_admits():
    verdict, _ = admit(AdmissionConfig(), AdmissionState(), req("batch"), decision(State.RED, 0.0, time=0.0),
                       now=61.0, rand=0.5, stale_after_s=60)
    assert (verdict.admitted, verdict.reason) == (True, "decision-stale")
    verdict, _ = admit(AdmissionConfig(), AdmissionState(), req("batch"), decision(State.RED, 0.0, time=0.0),
                       now=59.0, rand=0.5, stale_after_s=60)
    assert (verdict.admitted, verdict.reason) == (False, "red-over-drain-rate")


def test_yellow_retry_after_comes_from_the_policy_with_jitter():
    seen = {admit(AdmissionConfig(retry_jitter=0.2), AdmissionState(), req("batch"), YELLOW, 1.0, rand, 60)[0].retry_after_s
            for rand in (0.0, 0.5, 0.999)}
    assert seen == {8, 10, 12}, "10 s from the policy spread by +-20%, rounded up to whole seconds"


def test_unknown_model_is_admitted_or_refused_as_configured():
    assert unknown_model(AdmissionConfig(), req()).admitted
    refused = unknown_model(AdmissionConfig(refuse_unknown_models=True, capacity_code=503), req())
    assert (refused.admitted, refused.code, refused.reason) == (False, 503, "unknown-model")
    assert refused.retry_after_s == 60


# --- RED: the drainable rate, by class and by tenant -----------------------------------------

def test_red_admits_interactive_at_the_drainable_rate():
    driver = Driver(AdmissionConfig(), decision(State.RED, admission_rps=5.0))
    driver.run(10.0, {("interactive", None): 20.0})
    admitted = driver.admitted[("interactive", "other")]
    assert 48 <= admitted <= 5 * 10 + 5, f"5 req/s for 10 s (+ at most one burst), got {admitted}"
    reasons = {v.reason for v in driver.verdicts if not v.admitted}
    assert reasons == {"red-over-drain-rate"}


def test_red_serves_classes_in_priority_order():
    driver = Driver(AdmissionConfig(), decision(State.RED, admission_rps=10.0))
    driver.run(10.0, {("interactive", None): 8.0, ("agent", None): 8.0, ("batch", None): 8.0})
    inter, agent, batch = (driver.admitted[(k, "other")] for k in ("interactive", "agent", "batch"))
    assert inter >= 78, "interactive, below the rate, is all admitted"
    assert agent >= 15, "agent takes what interactive leaves"
    assert batch <= 3, "batch only ever gets tokens from a nearly full bucket"
    assert inter + agent + batch <= 10 * 10 + 10
    assert {v.reason for v in driver.verdicts if v.request_class == "batch" and not v.admitted} <= {
        "red-class-reserve", "red-over-drain-rate"}


def test_red_lets_batch_use_a_bucket_nobody_else_wants():
    driver = Driver(AdmissionConfig(), decision(State.RED, admission_rps=10.0))
    driver.run(10.0, {("interactive", None): 1.0, ("batch", None): 20.0})
    assert driver.admitted[("batch", "other")] >= 10 * 10 * 0.5, "work-conserving: idle capacity goes to batch"
    assert driver.admitted[("interactive", "other")] == 10, "yet interactive never waits for batch"


def test_red_splits_by_tenant_weight():
    config = AdmissionConfig(tenants={"web": TenantConfig(weight=3), "api": TenantConfig(weight=1)})
    driver = Driver(config, decision(State.RED, admission_rps=8.0))
    driver.run(20.0, {("interactive", "web"): 20.0, ("interactive", "api"): 20.0})
    web, api = driver.admitted[("interactive", "web")], driver.admitted[("interactive", "api")]
    assert web + api <= 8 * 20 + 8
    assert 2.5 <= web / api <= 3.5, f"weights 3:1, got {web}:{api}"
    assert any(v.reason == "red-tenant-share" for v in driver.verdicts)


def test_red_gives_a_quiet_tenants_share_to_the_busy_one():
    config = AdmissionConfig(tenants={"web": TenantConfig(), "api": TenantConfig()})
    driver = Driver(config, decision(State.RED, admission_rps=8.0))
    driver.run(20.0, {("interactive", "web"): 1.0, ("interactive", "api"): 20.0})
    assert driver.admitted[("interactive", "web")] >= 19, "the quiet tenant gets all it asks for"
    assert driver.admitted[("interactive", "api")] >= 6 * 20 - 8, "and the busy one most of the rest, not just half"


def test_unknown_tenants_share_one_pool():
    config = AdmissionConfig(tenants={"web": TenantConfig(weight=1)})
    driver = Driver(config, decision(State.RED, admission_rps=8.0))
    driver.run(20.0, {("interactive", "web"): 20.0, ("interactive", "t1"): 20.0, ("interactive", "t2"): 20.0})
    web, other = driver.admitted[("interactive", "web")], driver.admitted[("interactive", "other")]
    assert {v.tenant for v in driver.verdicts} == {"web", "other"}, "labels stay bounded"
    assert 0.75 <= web / other <= 1.33, f"t1 and t2 together weigh as one tenant, got {web}:{other}"


def test_red_with_no_drainable_rate_refuses_everything():
    driver = Driver(AdmissionConfig(), decision(State.RED, admission_rps=0.0))
    driver.run(3.0, {("interactive", None): 10.0})
    assert sum(driver.admitted.values()) == 0
    assert all(v.code == 503 and v.retry_after_s >= 1 for v in driver.verdicts)


def test_leaving_red_forgets_the_bucket():
    driver = Driver(AdmissionConfig(), decision(State.RED, admission_rps=1.0))
    driver.run(2.0, {("interactive", None): 5.0})
    assert driver.state.red is not None
    driver.decision = GREEN
    driver.offer(req())
    assert driver.state.red is None, "a later RED starts from an empty bucket"


# --- quotas ----------------------------------------------------------------------------------

def test_a_tenant_over_its_quota_gets_429_in_every_state():
    config = AdmissionConfig(tenants={"api": TenantConfig(quota_rps=2.0)})
    driver = Driver(config, GREEN)
    driver.run(10.0, {("interactive", "api"): 10.0, ("interactive", "web"): 10.0})
    assert 20 <= driver.admitted[("interactive", "api")] <= 2 * 10 + 2
    assert driver.refused[("interactive", "other")] == 0 < driver.admitted[("interactive", "other")], (
        "other tenants are not limited")
    refused = [v for v in driver.verdicts if not v.admitted]
    assert {(v.code, v.reason, v.tenant) for v in refused} == {(429, "tenant-over-quota", "api")}
    assert all(1 <= v.retry_after_s <= 2 for v in refused), "Retry-After: until the quota has a token again"
    driver.decision = decision(State.RED, admission_rps=100.0, time=driver.now)
    driver.run(2.0, {("interactive", "api"): 10.0})
    assert driver.verdicts[-1].reason == "tenant-over-quota", "the quota holds in RED too"


def test_quota_code_is_configurable_and_refusals_do_not_spend_quota():
    config = AdmissionConfig(quota_code=503, tenants={"api": TenantConfig(quota_rps=1.0)})
    state = AdmissionState()
    verdict, state = admit(config, state, req(tenant="api"), GREEN, 0.0, 0.5, 60)
    assert verdict.admitted
    verdict, state = admit(config, state, req(tenant="api"), GREEN, 0.1, 0.5, 60)
    assert (verdict.admitted, verdict.code) == (False, 503)
    verdict, state = admit(config, state, req("batch", tenant="api"), YELLOW, 1.2, 0.5, 60)
    assert verdict.reason == "yellow-shed-class"
    verdict, state = admit(config, state, req(tenant="api"), GREEN, 1.2, 0.5, 60)
    assert verdict.admitted, "the shed batch request did not use the quota token"


# --- configuration ----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, field", [
    ({"yellow_shed": frozenset({"premium"})}, "yellowShedClasses"),
    ({"capacity_code": 200}, "capacityCode"),
    ({"quota_code": 600}, "quotaCode"),
    ({"retry_jitter": 1.5}, "retryJitter"),
    ({"burst_s": 0}, "burstSeconds"),
    ({"class_reserve": {"interactive": 0.0}}, "classReserve"),
    ({"class_reserve": {"interactive": 0.0, "agent": 1.0, "background": 0.5, "batch": 0.5}}, "classReserve.agent"),
    ({"tenants": {"a": TenantConfig(weight=0)}}, "tenants[a].weight"),
    ({"tenants": {"a": TenantConfig(quota_rps=math.nan)}}, "tenants[a].quotaRequestsPerSecond"),
])
def test_bad_config_names_the_field(kwargs, field):
    with pytest.raises(AdmissionConfigError) as err:
        AdmissionConfig(**kwargs)
    assert err.value.field == field
    assert str(err.value).startswith(f"{field}: expected")


# --- properties -------------------------------------------------------------------------------

@given(seconds=st.one_of(st.floats(min_value=0, max_value=1e9), st.just(math.inf)),
       jitter=st.floats(min_value=0, max_value=0.99), rand=st.floats(min_value=0, max_value=0.999999))
def test_retry_after_is_a_whole_number_of_seconds_in_bounds(seconds, jitter, rand):
    value = _retry_after(seconds, jitter, rand)
    assert isinstance(value, int) and 1 <= value <= 60


@settings(max_examples=60, deadline=None)
@given(rate=st.floats(min_value=0.0, max_value=50.0),
       gaps=st.lists(st.floats(min_value=0.0, max_value=0.5), min_size=1, max_size=200),
       classes=st.lists(st.sampled_from(REQUEST_CLASSES), min_size=1, max_size=200),
       tenants=st.lists(st.sampled_from(["web", "api", "x"]), min_size=1, max_size=200))
def test_red_never_admits_more_than_the_rate_plus_one_burst(rate, gaps, classes, tenants):
    config = AdmissionConfig(tenants={"web": TenantConfig(weight=2), "api": TenantConfig()})
    driver = Driver(config, decision(State.RED, admission_rps=rate))
    for i, gap in enumerate(gaps):
        driver.now += gap
        verdict = driver.offer(req(classes[i % len(classes)], tenants[i % len(tenants)]))
        assert verdict.reason and verdict.detail
    assert sum(driver.admitted.values()) <= rate * driver.now + max(1.0, rate * config.burst_s) + 1e-9


# --- the slot queue between decisions ---------------------------------------------------------

COUNTING = AdmissionState(admitted=Admitted(since=-10.0))  # admissions counted from before the data time


def _fleet(state: State = State.GREEN, *, running: float, waiting: float = 0.0, ready: int = 1, slots: float | None = 8.0,
           drain: float = 7.0, time: float = 0.0, admission_rps: float | None = None):
    """A decision with the batch numbers the slot queue is projected from (budget 1 s)."""
    return replace(decision(state, admission_rps, time=time), running=running, waiting=waiting, ready_replicas=ready,
                   slots=slots, drain_rps=drain, capacity_rps=drain / max(ready, 1), budget_s=1.0)


def test_a_burst_between_decisions_is_admitted_into_free_slots_and_refused_once_it_would_miss():
    # Data at t=0: 8 of 8 slots busy, drain 7/s, budget 1 s: a request that would wait 1 s for a
    # slot misses (the policy's RED line), so at most 7 may wait beyond the slots.
    driver = Driver(AdmissionConfig(), _fleet(running=8.0), COUNTING)
    driver.run(1.0, {("interactive", None): 30.0})
    admitted = driver.admitted[("interactive", "other")]
    # The queue reaches its limit after ~0.2 s (6 admitted), then takes what drains: ~13 in all.
    assert 11 <= admitted <= 15, admitted
    refused = [v for v in driver.verdicts if not v.admitted]
    assert refused and {v.reason for v in refused} == {"queue-over-budget"} and {v.state for v in refused} == {"GREEN"}
    assert all(v.code == 503 and v.retry_after_s >= 1 for v in refused)
    # The next decision sees the queue the burst made; what drained since lets new requests in again.
    driver.decision = _fleet(running=8.0, waiting=5.0, time=driver.now)
    driver.now += 0.5
    assert driver.offer(req()).admitted, "3.5 drained in 0.5 s: 1.5 waiting + this one, within 7"


def _slot_waits(times: list[float], running: float, slots: int, service_s: float) -> list[float]:
    """Each admitted request's wait for a slot in a discrete batch: the `running` requests at t=0
    finish evenly over one service time (ages spread evenly), every admitted one holds its slot
    `service_s`, first come first served."""
    free = sorted([service_s * (k + 1) / running for k in range(int(running))] + [0.0] * (slots - int(running)))
    waits = []
    for t in times:
        slot = max(free.pop(0), t)
        waits.append(slot - t)
        bisect.insort(free, slot + service_s)
    return waits


def test_a_burst_into_half_empty_batches_queues_at_the_rate_the_old_batch_finishes():
    # 3 of 8 slots busy at the data time. The 5 free slots fill at once, and the requests queued
    # behind them get slots only as the 3 old requests finish (each new one holds its slot a
    # service time, 8/7 s): draining at the full 7/s from the start admitted requests that waited
    # 1.7 s, 70% past the 1 s line.
    state, now, times = COUNTING, 0.0, []
    while now < 2.0:
        now = round(now + 1 / 30, 6)
        verdict, state = admit(AdmissionConfig(), state, req(), _fleet(running=3.0), now, 0.5, 60)
        if verdict.admitted:
            times.append(now)
    waits = _slot_waits(times, running=3.0, slots=8, service_s=8 / 7)
    assert len(times) < 60 and max(waits) > 0.5, "the burst queued and was refused"
    # The fluid projection spreads the old batch's completions evenly: within 10% of the line.
    assert max(waits) <= 1.1, max(waits)


def test_red_admits_at_its_rate_and_never_past_the_queue_it_aims_at():
    # A short queue: RED's rate binds.
    driver = Driver(AdmissionConfig(), _fleet(State.RED, running=8.0, admission_rps=5.0), COUNTING)
    driver.run(2.0, {("interactive", None): 20.0})
    assert 9 <= driver.admitted[("interactive", "other")] <= 5 * 2 + 5
    # A rate computed from data that no longer holds (the queue is 50 deep): the count binds.
    driver = Driver(AdmissionConfig(), _fleet(State.RED, running=8.0, waiting=50.0, admission_rps=5.0), COUNTING)
    driver.run(2.0, {("interactive", None): 20.0})
    assert sum(driver.admitted.values()) == 0
    assert {v.reason for v in driver.verdicts} == {"queue-over-budget"}


def test_an_engine_running_past_its_safe_slots_is_not_a_queue():
    # 20 running on one replica whose safe concurrency is 8 (vLLM's batch is larger): nobody waits.
    driver = Driver(AdmissionConfig(), _fleet(running=20.0), COUNTING)
    driver.run(0.2, {("interactive", None): 20.0})
    assert sum(driver.refused.values()) == 0


@pytest.mark.parametrize("label, dec, observed_at", [
    ("slots unknown", _fleet(running=8.0, waiting=20.0, slots=None), None),
    ("no slots (a learned S of 0)", _fleet(running=8.0, waiting=20.0, slots=0.0), None),
    ("no ready replica (scale from zero)", _fleet(running=0.0, waiting=20.0, ready=0), None),
    ("no drain known", _fleet(running=8.0, waiting=20.0, drain=0.0), None),
    ("the count does not reach back to the data", _fleet(running=8.0, waiting=20.0, time=5.0), 0.5),
])
def test_the_slot_queue_never_refuses_on_what_it_does_not_know(label, dec, observed_at):
    state = AdmissionState() if observed_at is not None else COUNTING
    for i in range(40):
        verdict, state = admit(AdmissionConfig(), state, req(), dec, 5.0 + i * 0.01, 0.5, 60, observed_at=observed_at)
        assert verdict.admitted, (label, i, verdict.detail)


@settings(max_examples=300, deadline=None)
@given(running=st.floats(0, 500), waiting=st.floats(0, 500), ready=st.integers(0, 8),
       slots=st.one_of(st.none(), st.floats(0, 200)), drain=st.floats(0, 1e3), capacity=st.floats(0, 1e3),
       completion=st.floats(0, 1e3), age=st.floats(0, 60), gaps=st.lists(st.floats(0, 2), min_size=1, max_size=30))
def test_the_slot_queue_projection_is_total_and_its_waits_are_never_nan(running, waiting, ready, slots, drain, capacity,
                                                                    completion, age, gaps):
    # Whatever the decision's numbers, projecting never raises and every wait it reports is a
    # number of seconds (infinite for a drain of 1e-308/s, never NaN), and Retry-After stays in
    # bounds: the RLS hot path has no input that breaks it.
    dec = replace(_fleet(running=running, waiting=waiting, ready=ready, slots=slots, drain=drain),
                  capacity_rps=capacity, completion_rps=completion)
    state, now = COUNTING, age
    for gap in gaps:
        now += gap
        verdict, state = admit(AdmissionConfig(), state, req(), dec, now, 0.5, 1e9, observed_at=0.0)
        queue = project(dec, state.admitted, 0.0, now, 1.0)
        if queue is not None:
            assert queue.wait_s(1) >= 0 and queue.excess_s(1) >= 0  # NaN fails both
            assert math.isfinite(queue.allowed) and queue.allowed >= 0
        if not verdict.admitted:
            assert 1 <= verdict.retry_after_s <= 60


def test_the_slot_queue_counts_from_the_data_time_not_the_decision_time():
    # Requests admitted between the scrape (t=0) and the decision reaching admission (t=1) are in
    # no data yet: they count.
    state = COUNTING
    for i in range(10):
        verdict, state = admit(AdmissionConfig(), state, req(), _fleet(running=0.0, time=-5.0), 0.5 + i * 0.05, 0.5, 60,
                               observed_at=-5.0)
        assert verdict.admitted
    late = _fleet(running=8.0, waiting=4.0, time=1.0)
    verdict, _ = admit(AdmissionConfig(), state, req(), late, 1.0, 0.5, 60, observed_at=0.0)
    assert not verdict.admitted, "4 waiting + 10 admitted since - 7 drained: 7 queued, this one would wait > 1 s"
    verdict, _ = admit(AdmissionConfig(), state, req(), late, 1.0, 0.5, 60, observed_at=1.0)
    assert verdict.admitted, "counted from the decision's own time the same requests would be missed"


def test_the_projection_continues_from_the_last_request_as_a_replay_of_every_bin_would():
    # Requests at bin starts: counting them one by one and replaying the bins agree exactly.
    dec = _fleet(running=3.0, drain=7.0)
    cached = replayed = COUNTING
    verdicts = []
    for k in range(1, 60):
        now = k * BIN_S
        a, cached = admit(AdmissionConfig(), cached, req(), dec, now, 0.5, 60)
        b, replayed = admit(AdmissionConfig(), replace(replayed, admitted=replace(replayed.admitted, last=None)),
                            req(), dec, now, 0.5, 60)
        assert (a.admitted, a.reason) == (b.admitted, b.reason), k
        verdicts.append(a.admitted)
    assert True in verdicts and False in verdicts, "both sides of the line were exercised"
