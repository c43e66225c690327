"""The TTFT predictor's slot wait: what stands beyond the batches, never more than what waits."""

from __future__ import annotations

import pytest

from scaler.policy.predict import predict_ttft

FLEET = dict(ready=4, slots=60.0, drain_rps=20.0, step_rps=5.0, landings=[], prompt_tokens_in_flight=None,
             prefill_tps=None, expected_prefill_s=0.2)


def test_a_batch_run_past_its_safe_size_with_nobody_waiting_starts_a_new_request_at_once():
    # 4 x 60 slots, 300 running, none waiting: vLLM took them all (its batch limit is higher).
    # The 60 beyond S are a TPOT matter; a request arriving now waits for no slot.
    prediction = predict_ttft(waiting=0.0, running=300.0, **FLEET)
    assert prediction.queue_s == 0.0 and prediction.ttft_s == pytest.approx(0.2)


def test_what_waits_beyond_the_slots_is_drained_at_the_completion_rate():
    waiting = predict_ttft(waiting=40.0, running=240.0, **FLEET)
    assert waiting.queue_s == pytest.approx(40.0 / 20.0)
    # More running past S changes nothing: the queue ahead is the 40 that wait.
    assert predict_ttft(waiting=40.0, running=300.0, **FLEET).queue_s == waiting.queue_s
    # Free slots take part of the queue at once: 20 free, so 20 wait.
    assert predict_ttft(waiting=40.0, running=220.0, **FLEET).queue_s == pytest.approx(20.0 / 20.0)
