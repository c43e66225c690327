"""The replica model on a manual clock: scheduling rules, conservation, queueing theory."""

from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scaler.engine import EngineParams, Replica, Request

# Unit step times make the arithmetic in expectations readable: every step lasts 1 s
# plus 0.01 s per prefill token and 0.1 s per decoding sequence.
UNIT = EngineParams(
    max_num_seqs=4,
    max_num_batched_tokens=64,
    max_model_len=256,
    kv_cache_tokens=1024,
    block_size=16,
    step_base_s=1.0,
    prefill_s_per_token=0.01,
    decode_s_per_seq=0.1,
    kv_read_s_per_token=0.0,
)


def req(rid, prompt=10, out=3, at=0.0, **kw) -> Request:
    return Request(id=rid, prompt_tokens=prompt, max_tokens=out, arrival_time=at, **kw)


def drive(replica: Replica, arrivals: list[Request], invariant=None):
    """Event loop on a virtual clock: step as soon as the replica may, add arrivals on time."""
    pending = deque(sorted(arrivals, key=lambda r: r.arrival_time))
    now, outcomes = 0.0, []
    while pending or replica.has_work:
        now = max(now, replica.busy_until)
        if not replica.has_work:
            now = max(now, pending[0].arrival_time)
        while pending and pending[0].arrival_time <= now:
            arrival = pending.popleft()
            replica.add(arrival, arrival.arrival_time)
        outcomes.append(replica.step(now))
        if invariant:
            invariant(replica)
    return outcomes


# --- scheduling rules, table-driven --------------------------------------------------


def _scenario_fifo_queueing():
    # One slot: B and C wait in arrival order; each starts the moment its predecessor ends.
    replica = Replica(replace(UNIT, max_num_seqs=1))
    a, b, c = req("a", at=0.0), req("b", at=0.5), req("c", at=0.6)
    drive(replica, [c, a, b])
    return {
        "order": [r.id for r in sorted((a, b, c), key=lambda r: r.first_scheduled_time)],
        "b_starts_when_a_ends": b.first_scheduled_time == a.finish_time,
        "c_starts_when_b_ends": c.first_scheduled_time == b.finish_time,
        "queue_wait_b": round(b.first_scheduled_time - b.arrival_time, 6),
    }


def _scenario_max_num_seqs():
    replica = Replica(replace(UNIT, max_num_seqs=3))
    for i in range(5):
        replica.add(req(f"r{i}", prompt=4), 0.0)
    replica.step(0.0)
    return {"running": replica.num_running, "waiting": replica.num_waiting}


def _scenario_chunked_prefill():
    # A 150-token prompt under a 64-token budget: chunks of 64, 64, 22; first token after the third.
    replica = Replica(UNIT)
    r = req("long", prompt=150, out=2)
    outcomes = drive(replica, [r])
    return {
        "prefill_per_step": [o.prefill_tokens for o in outcomes],
        "decode_per_step": [o.decode_seqs for o in outcomes],
        "first_token_time": round(r.first_token_time, 6),
    }


def _scenario_budget_shared_with_decodes():
    # A decoding request takes 1 token of the budget; the new prompt gets the remaining 63.
    replica = Replica(UNIT)
    replica.add(req("dec", prompt=4, out=10), 0.0)
    first = replica.step(0.0)
    replica.add(req("new", prompt=100, out=1), first.end)
    second = replica.step(first.end)
    return {"prefill": second.prefill_tokens, "decode": second.decode_seqs}


def _scenario_no_chunking_blocks_head_of_line():
    # Without chunking a prompt that does not fit the remaining budget waits, and so do the ones behind it.
    params = replace(UNIT, enable_chunked_prefill=False, max_num_batched_tokens=256)
    replica = Replica(params)
    replica.add(req("a", prompt=200), 0.0)
    replica.add(req("b", prompt=100), 0.0)
    replica.add(req("c", prompt=10), 0.0)
    out = replica.step(0.0)
    return {"prefill": out.prefill_tokens, "running": replica.num_running, "waiting": replica.num_waiting}


def _scenario_kv_exhaustion_preempts_newest():
    # 8 blocks of 16 tokens. Two requests of 60-token prompts hold 4 blocks each; the first decode
    # that needs a 5th block preempts the most recently admitted one, which goes back to the front.
    params = replace(UNIT, kv_cache_tokens=128, max_model_len=128, max_num_batched_tokens=128)
    replica = Replica(params)
    a, b, c = req("a", prompt=60, out=10), req("b", prompt=60, out=10), req("c", prompt=8, out=1, at=0.1)
    replica.add(a, 0.0)
    replica.add(b, 0.0)
    first = replica.step(0.0)
    full_after_prefill = round(replica.kv_usage, 6)
    replica.add(c, first.end)
    outcomes = [first]
    while not any(o.preempted for o in outcomes):
        outcomes.append(replica.step(outcomes[-1].end))
    preempting = outcomes[-1]
    front = replica._waiting.peek()
    drive(replica, [])
    return {
        "kv_after_prefill": full_after_prefill,
        "preempted": [r.id for r in preempting.preempted],
        "front_of_queue": front.id,
        "counter": replica.counters.preemptions,
        "b_preemptions": b.num_preemptions,
        "outputs": (a.output_tokens, b.output_tokens, c.output_tokens),
        "all_length": {a.finished_reason, b.finished_reason, c.finished_reason},
        "kv_at_end": replica.kv_usage,
    }


def _scenario_priority_policy():
    replica = Replica(replace(UNIT, max_num_seqs=1, scheduling_policy="priority"))
    first = req("first", at=0.0, priority=5)
    low = req("low", at=0.1, priority=5)
    high = req("high", at=0.2, priority=0)
    drive(replica, [first, low, high])
    return {"order": [r.id for r in sorted((first, low, high), key=lambda r: r.first_scheduled_time)]}


def _scenario_abort_frees_kv():
    replica = Replica(UNIT)
    replica.add(req("run", prompt=40, out=50), 0.0)
    replica.add(req("wait", prompt=40, out=50), 0.0)
    replica.step(0.0)
    used = replica.kv_usage
    running = replica.abort("run", 1.0)
    replica.abort("wait", 1.0)
    return {
        "used_before": used > 0,
        "kv_after": replica.kv_usage,
        "reason": running.finished_reason,
        "aborted": replica.counters.finished["abort"],
        "unknown": replica.abort("nope", 1.0),
        "has_work": replica.has_work,
    }


def _scenario_stop_before_max_tokens():
    replica = Replica(UNIT)
    r = req("s", out=50, stop_after=4)
    drive(replica, [r])
    return {"output": r.output_tokens, "reason": r.finished_reason, "counted": replica.counters.finished["stop"]}


SCENARIOS = [
    ("fifo queueing", _scenario_fifo_queueing,
     {"order": ["a", "b", "c"], "b_starts_when_a_ends": True, "c_starts_when_b_ends": True,
      # a: prefill 1 + 0.10 s, then two decodes of 1.1 s -> ends at 3.3; b arrived at 0.5.
      "queue_wait_b": 2.8}),
    ("max_num_seqs caps the batch", _scenario_max_num_seqs, {"running": 3, "waiting": 2}),
    ("chunked prefill", _scenario_chunked_prefill,
     {"prefill_per_step": [64, 64, 22, 0], "decode_per_step": [0, 0, 0, 1],
      "first_token_time": round(3 * 1.0 + 1.50, 6)}),
    ("token budget shared with decodes", _scenario_budget_shared_with_decodes, {"prefill": 63, "decode": 1}),
    ("no chunking: head of line", _scenario_no_chunking_blocks_head_of_line,
     {"prefill": 200, "running": 1, "waiting": 2}),
    ("kv exhaustion preempts by recompute", _scenario_kv_exhaustion_preempts_newest,
     {"kv_after_prefill": 1.0, "preempted": ["b"], "front_of_queue": "b", "counter": 1, "b_preemptions": 1,
      "outputs": (10, 10, 1), "all_length": {"length"}, "kv_at_end": 0.0}),
    ("priority policy", _scenario_priority_policy, {"order": ["first", "high", "low"]}),
    ("abort frees kv", _scenario_abort_frees_kv,
     {"used_before": True, "kv_after": 0.0, "reason": "abort", "aborted": 2, "unknown": None, "has_work": False}),
    ("stop before max_tokens", _scenario_stop_before_max_tokens, {"output": 4, "reason": "stop", "counted": 1}),
]


@pytest.mark.parametrize("label,scenario,want", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_scheduling_rules(label, scenario, want):
    assert scenario() == want


def test_timestamps_and_counters_of_one_request():
    replica = Replica(UNIT)
    r = req("x", prompt=20, out=3, at=0.0)
    outcomes = drive(replica, [r])
    # prefill step 1 + 0.2; decodes 1.1 each.
    assert [round(o.duration, 6) for o in outcomes] == [1.2, 1.1, 1.1]
    assert r.queued_time == 0.0 and r.first_scheduled_time == 0.0
    assert r.first_token_time == pytest.approx(1.2)
    assert r.finish_time == r.last_token_time == pytest.approx(3.4)
    assert outcomes[0].first_tokens == [r] and outcomes[-1].finished == [r]
    assert replica.counters.prompt_tokens == 20 and replica.counters.generation_tokens == 3
    assert replica.counters.finished["length"] == 1


def test_step_before_previous_end_is_refused():
    replica = Replica(UNIT)
    replica.add(req("x"), 0.0)
    out = replica.step(0.0)
    with pytest.raises(ValueError, match="now"):
        replica.step(out.end / 2)


def test_recompute_after_preemption_prefills_prompt_and_generated_tokens():
    params = replace(UNIT, kv_cache_tokens=128, max_model_len=128, max_num_batched_tokens=128)
    replica = Replica(params)
    a, b = req("a", prompt=60, out=10), req("b", prompt=60, out=10)
    replica.add(a, 0.0)
    replica.add(b, 0.0)
    outcomes = [replica.step(0.0)]
    while not outcomes[-1].preempted:
        outcomes.append(replica.step(outcomes[-1].end))
    assert outcomes[-1].preempted == [b]
    generated_before = b.output_tokens
    assert generated_before > 0
    outcomes += drive(replica, [])
    recompute = next(o for o in outcomes if o.prefill_tokens and o.start > 0)
    assert recompute.prefill_tokens == 60 + generated_before
    # The recompute is not a new first token, and prompt tokens are counted once per request.
    assert b not in recompute.first_tokens and b.output_tokens == 10
    assert replica.counters.prompt_tokens == 120


@pytest.mark.parametrize(
    "field,value",
    [
        ("max_num_seqs", 0),
        ("max_num_batched_tokens", -1),
        ("block_size", 1.5),
        ("kv_cache_tokens", 100),  # smaller than one max_model_len sequence
        ("step_base_s", -0.1),
        ("decode_s_per_seq", float("nan")),
        ("scheduling_policy", "lifo"),
        ("enable_chunked_prefill", "yes"),
    ],
)
def test_invalid_params_name_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        replace(UNIT, **{field: value}).validate()


def test_no_chunking_requires_budget_for_a_whole_sequence():
    with pytest.raises(ValueError, match="max_num_batched_tokens"):
        replace(UNIT, enable_chunked_prefill=False).validate()


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"prompt": 0}, "prompt_tokens"),
        ({"out": 0}, "max_tokens"),
        ({"out": -3}, "max_tokens"),
        ({"prompt": 200, "out": 100}, "max_tokens"),  # over max_model_len=256
        ({"stop_after": 0}, "stop_after"),
    ],
)
def test_invalid_requests_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        Replica(UNIT).add(req("bad", **kwargs), 0.0)


def test_duplicate_request_id_is_refused():
    replica = Replica(UNIT)
    replica.add(req("same"), 0.0)
    with pytest.raises(ValueError, match="id"):
        replica.add(req("same"), 0.0)


# --- conservation --------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    policy=st.sampled_from(["fcfs", "priority"]),
    chunked=st.booleans(),
    max_num_seqs=st.integers(1, 6),
    kv_blocks=st.integers(8, 24),
    jobs=st.lists(
        st.tuples(
            st.floats(0, 3),  # gap to previous arrival
            st.integers(1, 60),  # prompt
            st.integers(1, 40),  # max_tokens
            st.integers(0, 2),  # priority
            st.one_of(st.none(), st.integers(1, 40)),  # stop_after
        ),
        min_size=1,
        max_size=25,
    ),
)
def test_conservation(policy, chunked, max_num_seqs, kv_blocks, jobs):
    params = replace(
        UNIT,
        scheduling_policy=policy,
        enable_chunked_prefill=chunked,
        max_num_seqs=max_num_seqs,
        max_model_len=100,
        max_num_batched_tokens=100 if not chunked else 32,
        kv_cache_tokens=max(kv_blocks * 16, 112),
    )
    replica = Replica(params)
    t, requests = 0.0, []
    for i, (gap, prompt, out, prio, stop) in enumerate(jobs):
        t += gap
        requests.append(req(f"r{i}", prompt=prompt, out=out, at=t, priority=prio, stop_after=stop))

    def invariant(rep: Replica):
        admitted = [r for r in requests if r.queued_time is not None]
        done = [r for r in admitted if r.finished]
        assert len(done) + rep.num_running + rep.num_waiting == len(admitted)
        held = sum(r.num_blocks for r in admitted if not r.finished)
        assert held == round(rep.kv_usage * params.num_gpu_blocks)
        assert 0.0 <= rep.kv_usage <= 1.0
        assert rep.num_running <= params.max_num_seqs

    outcomes = drive(replica, requests, invariant)
    for r in requests:
        want = r.max_tokens if r.stop_after is None else min(r.max_tokens, r.stop_after)
        assert r.output_tokens == want
        assert r.finished_reason == ("length" if want == r.max_tokens else "stop")
        assert r.arrival_time <= r.first_scheduled_time <= r.first_token_time <= r.finish_time
    assert replica.counters.generation_tokens == sum(r.output_tokens for r in requests)
    assert replica.counters.prompt_tokens == sum(r.prompt_tokens for r in requests)
    assert replica.counters.preemptions == sum(r.num_preemptions for r in requests)
    assert sum(replica.counters.finished.values()) == len(requests)
    assert sum(n for o in outcomes for _, n in o.tokens) == replica.counters.generation_tokens
    assert replica.kv_usage == 0.0


# --- queueing theory -----------------------------------------------------------------


@pytest.mark.parametrize("rho", [0.3, 0.8])
def test_single_slot_replica_is_md1(rho):
    """max_num_seqs=1 with fixed sizes is M/D/1: mean wait = rho * S / (2 (1 - rho))."""
    params = replace(UNIT, max_num_seqs=1, step_base_s=0.01, prefill_s_per_token=0.001, decode_s_per_seq=0.002)
    service = (0.01 + 0.001 * 20) + 2 * (0.01 + 0.002)  # one prefill step + two decode steps
    rate = rho / service
    rng = random.Random(20240611)
    n = 40_000
    t, requests = 0.0, []
    for i in range(n):
        t += rng.expovariate(rate)
        requests.append(req(f"r{i}", prompt=20, out=3, at=t))
    replica = Replica(params)
    drive(replica, requests)
    assert requests[0].finish_time - requests[0].first_scheduled_time == pytest.approx(service)
    warm = requests[n // 10:]
    mean_wait = sum(r.first_scheduled_time - r.arrival_time for r in warm) / len(warm)
    pk = rho * service / (2 * (1 - rho))
    assert mean_wait == pytest.approx(pk, rel=0.08)


# --- calibration of the defaults ------------------------------------------------------


def _closed_loop(params: EngineParams, users: int, prompt: int, out: int, per_user: int):
    """`users` clients, each sending its next request when the previous one finishes."""
    replica = Replica(params)
    requests = []
    for u in range(users):
        r = req(f"u{u}-0", prompt=prompt, out=out)
        replica.add(r, 0.0)
        requests.append(r)
    sent = {u: 1 for u in range(users)}
    now = 0.0
    while replica.has_work:
        outcome = replica.step(now)
        now = outcome.end
        for done in outcome.finished:
            user = int(done.id[1:].split("-")[0])
            if sent[user] < per_user:
                nxt = req(f"u{user}-{sent[user]}", prompt=prompt, out=out, at=now)
                sent[user] += 1
                replica.add(nxt, now)
                requests.append(nxt)
    return requests, now


def test_defaults_reproduce_published_llama_8b_h100_figures():
    """docs/engine.md: ~14 ms TTFT and ~6.5 ms/token at concurrency 1, ~1,384 tok/s at 16."""
    params = EngineParams()
    single, _ = _closed_loop(params, users=1, prompt=230, out=256, per_user=3)
    ttft = sum(r.first_token_time - r.arrival_time for r in single) / len(single)
    tpot = sum((r.finish_time - r.first_token_time) / (r.output_tokens - 1) for r in single) / len(single)
    assert ttft == pytest.approx(0.014, rel=0.1)
    assert tpot == pytest.approx(0.0065, rel=0.1)
    many, elapsed = _closed_loop(params, users=16, prompt=230, out=256, per_user=4)
    throughput = sum(r.output_tokens for r in many) / elapsed
    assert throughput == pytest.approx(1384, rel=0.1)
    assert math.isclose(params.kv_cache_tokens / params.block_size, params.num_gpu_blocks, rel_tol=1e-3)
