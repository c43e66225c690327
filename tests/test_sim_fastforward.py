"""Replica.fast_forward leaves the state that as many step() calls would (the simulator's speed-up)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

from scaler.engine import EngineParams, Replica, Request

PARAMS = EngineParams(max_num_seqs=8, max_num_batched_tokens=256, max_model_len=1024, kv_cache_tokens=4096,
                      block_size=16)


def fill(replica, lengths):
    for i, (prompt, out) in enumerate(lengths):
        replica.add(Request(id=str(i), prompt_tokens=prompt, max_tokens=out, arrival_time=0.0), 0.0)


@settings(max_examples=60, deadline=None)
@given(lengths=st.lists(st.tuples(st.integers(1, 400), st.integers(1, 300)), min_size=1, max_size=12),
       picks=st.lists(st.floats(0, 1), min_size=200, max_size=200))
def test_fast_forward_matches_stepping(lengths, picks):
    stepped, jumped = Replica(PARAMS), Replica(PARAMS)
    fill(stepped, lengths)
    fill(jumped, lengths)
    t = 0.0
    while stepped.has_work:
        t = stepped.step(t).end
    u, i = 0.0, 0
    while jumped.has_work:
        plain = jumped.decode_steps()
        if plain:
            k = max(1, int(picks[i % len(picks)] * plain))
            i += 1
            outcome = jumped.fast_forward(u, k)
            assert outcome.finished == [] and outcome.first_tokens == []
            u = outcome.end
        else:
            u = jumped.step(u).end
    assert u == pytest.approx(t, rel=1e-9)
    assert jumped.counters.generation_tokens == stepped.counters.generation_tokens
    assert jumped.counters.preemptions == stepped.counters.preemptions
    assert jumped.kv_usage == stepped.kv_usage == 0.0


def test_decode_steps_stops_before_a_finish_and_refuses_prefill():
    replica = Replica(PARAMS)
    fill(replica, [(20, 10), (20, 4)])
    assert replica.decode_steps() == 0  # still prefilling
    replica.step(0.0)  # both prompts prefilled, first tokens out
    assert replica.decode_steps() == 2  # the 4-token request finishes on the third decode step
    before = replica.decode_duration(2)
    outcome = replica.fast_forward(replica.busy_until, 2)
    assert outcome.duration == pytest.approx(before)
    assert replica.decode_steps() == 0  # the next step finishes a request: step() must run it
    with pytest.raises(ValueError, match="steps"):
        replica.fast_forward(replica.busy_until, 1)


class _SchedulerLoopOnly(Replica):
    """A replica whose step() always runs the general scheduler loop (never the one-pass decode step)."""

    def _decode_steps(self) -> int:
        steps = super()._decode_steps()
        self._context = None
        return steps


@settings(max_examples=60, deadline=None)
@given(lengths=st.lists(st.tuples(st.integers(1, 400), st.integers(1, 300), st.integers(0, 40)), min_size=1,
                        max_size=12),
       kv_tokens=st.sampled_from([1024, 4096]))
def test_one_pass_decode_step_matches_the_scheduler_loop(lengths, kv_tokens):
    # Requests arrive between steps (so batches mix prefills and decodes) and a small KV cache
    # forces preemptions; every step's outcome and every request's times must be exactly equal.
    params = EngineParams(max_num_seqs=8, max_num_batched_tokens=256, max_model_len=1024, kv_cache_tokens=kv_tokens,
                          block_size=16)
    fast, loop = Replica(params), _SchedulerLoopOnly(params)
    pending = sorted(enumerate(lengths), key=lambda x: x[1][2])
    t, steps = 0.0, 0
    while pending or fast.has_work:
        while pending and (pending[0][1][2] <= steps or not fast.has_work):
            i, (prompt, out, _) = pending.pop(0)
            for replica in (fast, loop):
                replica.add(Request(id=str(i), prompt_tokens=prompt, max_tokens=out, arrival_time=t), t)
        a, b = fast.step(t), loop.step(t)
        assert (a.end, a.prefill_tokens, a.decode_seqs) == (b.end, b.prefill_tokens, b.decode_seqs)
        assert [(r.id, n) for r, n in a.tokens] == [(r.id, n) for r, n in b.tokens]
        assert [r.id for r in a.finished] == [r.id for r in b.finished]
        assert [r.id for r in a.preempted] == [r.id for r in b.preempted]
        assert fast.kv_usage == loop.kv_usage and fast.num_running == loop.num_running
        t, steps = a.end, steps + 1
    assert fast.counters == loop.counters
