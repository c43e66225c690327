"""The TTFT of a request arriving now, from what the replicas show: the batch, not just the queue.

Under continuous batching with chunked prefill a new request is not served in arrival order of
whole requests: it joins the batch at once while slots and KV blocks are free, and its first
token comes when the prompt tokens ahead of it (every request still in prefill) and its own have
gone through the step's token budget, which decodes share. So:

    ttft = queue_s + prefill_s
    queue_s   = time for the requests beyond what the batches hold (W + R - N * S) to start,
                at the drain rate, with pending replicas taking S each as they land
    prefill_s = (P / N + own) / V      P: prompt tokens in flight (not yet at their first token),
                                          less the share of the requests beyond the slots
                                       own: the request's own prompt (expected prefill x V)
                                       V: one replica's prefill throughput, tokens/s

P comes from the in-flight prompt-token gauge when the source has one (llm-d's EPP exports it);
otherwise from W x the prompt tokens of a typical request (expected prefill x V). V is
`prefillTokensPerSecond` (llm-d's peakPrefillThroughput calibration). Without V, only the queue
term is known and the prefill term is the configured expected prefill. Pure arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

from scaler.policy.queue import beyond_slots, drain_time


@dataclass(frozen=True)
class Prediction:
    ttft_s: float  # first token of a request arriving now
    queue_s: float  # of which: waiting for a batch slot
    prefill_s: float  # of which: the prompt tokens ahead and its own through the prefill budget


def predict_ttft(*, waiting: float, running: float, ready: int, slots: float | None, drain_rps: float,
                 step_rps: float, landings: list[float], prompt_tokens_in_flight: float | None,
                 prefill_tps: float | None, expected_prefill_s: float) -> Prediction:
    """`landings`: seconds until each pending replica is ready (sorted); `slots`: requests one
    replica's batch holds within the SLO (None: unknown, every waiting request counts as queued)."""
    if ready <= 0:
        # What waits, waits for the first replica to land (an idle model at zero is not judged).
        queue = drain_time(waiting, 0.0, step_rps, landings, slots or 0.0)
        return Prediction(queue + expected_prefill_s, queue, expected_prefill_s)
    beyond = beyond_slots(waiting, running, ready, slots) if slots is not None else waiting
    queue = drain_time(max(0.0, beyond), drain_rps, step_rps, landings, slots or 0.0)
    if not prefill_tps:
        return Prediction(queue + expected_prefill_s, queue, expected_prefill_s)
    own = expected_prefill_s * prefill_tps
    ahead = prompt_tokens_in_flight if prompt_tokens_in_flight is not None else waiting * own
    if beyond > 0 and waiting > 0:
        # Requests beyond the slots prefill before this one gets a slot: only the share of the
        # in-flight tokens that is inside the batches is still ahead of it then.
        ahead *= 1.0 - min(1.0, beyond / waiting)
    prefill = (ahead / ready + own) / prefill_tps
    return Prediction(queue + prefill, queue, prefill)
