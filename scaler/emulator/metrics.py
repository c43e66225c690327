"""vLLM V1's Prometheus families for one emulated replica, fed from the engine model.

Names, types, help strings, label names and bucket bounds are those of a real vLLM 0.29.0
scrape (tests/fixtures/vllm/metrics_sample_0.29.0.txt; tests compare against it). When values
are observed follows vLLM V1: TTFT and inter-token latency as tokens appear, prompt tokens
when the prefill completes, and the per-request histograms (queue, prefill, decode,
inference, e2e, ...) only when the request finishes. Every duration is in model seconds.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from scaler.engine import Replica, Request, StepOutcome
from scaler.sources.vllm import TOKEN_LATENCY_BUCKETS

LABELS = ("model_name", "engine")

# Default bucket bounds of vLLM V1 (copied from the real capture).
TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
                20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)
REQUEST_LATENCY_BUCKETS = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
                           240.0, 480.0, 960.0, 1920.0, 7680.0)
TOKEN_COUNT_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000)
ITERATION_TOKEN_BUCKETS = (1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
PARAMS_N_BUCKETS = (1, 2, 5, 10, 20)

# vLLM pre-creates one series per finished reason.
FINISHED_REASON_LABELS = ("stop", "length", "abort", "error", "repetition")


class VllmMetrics:
    def __init__(self, model_name: str, registry: CollectorRegistry | None = None, engine: str = "0") -> None:
        self.registry = registry or CollectorRegistry()
        self._labels = (model_name, engine)
        r = self.registry

        def gauge(name, doc, extra=()):
            return Gauge(name, doc, LABELS + extra, registry=r)

        def counter(name, doc, extra=()):
            return Counter(name, doc, LABELS + extra, registry=r)

        def histogram(name, doc, buckets):
            return Histogram(name, doc, LABELS, buckets=buckets, registry=r).labels(*self._labels)

        self.running = gauge("vllm:num_requests_running", "Number of requests in model execution batches.")
        self.waiting = gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.")
        self.waiting_by_reason = gauge(
            "vllm:num_requests_waiting_by_reason",
            "Number of waiting requests by reason. Reason labels: 'capacity' = waiting for scheduling capacity; "
            "'deferred' = deferred by transient constraints (LoRA budget, KV transfer, blocked status). "
            "Sum of all reasons equals vllm:num_requests_waiting.",
            ("reason",),
        )
        self.kv_usage = gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.")
        self.preemptions = counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.")
        self.prompt_tokens = counter("vllm:prompt_tokens", "Number of prefill tokens processed.")
        self.generation_tokens = counter("vllm:generation_tokens", "Number of generation tokens processed.")
        self.success = counter("vllm:request_success", "Count of successfully processed requests.", ("finished_reason",))
        self.request_prompt_tokens = histogram(
            "vllm:request_prompt_tokens", "Number of prefill tokens processed.", TOKEN_COUNT_BUCKETS)
        self.request_generation_tokens = histogram(
            "vllm:request_generation_tokens", "Number of generation tokens processed.", TOKEN_COUNT_BUCKETS)
        self.iteration_tokens = histogram(
            "vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", ITERATION_TOKEN_BUCKETS)
        self.max_num_generation_tokens = histogram(
            "vllm:request_max_num_generation_tokens",
            "Histogram of maximum number of requested generation tokens.", TOKEN_COUNT_BUCKETS)
        self.params_n = histogram("vllm:request_params_n", "Histogram of the n request parameter.", PARAMS_N_BUCKETS)
        self.params_max_tokens = histogram(
            "vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", TOKEN_COUNT_BUCKETS)
        self.ttft = histogram(
            "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TTFT_BUCKETS)
        self.itl = histogram(
            "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", TOKEN_LATENCY_BUCKETS)
        self.tpot = histogram(
            "vllm:request_time_per_output_token_seconds",
            "Histogram of time_per_output_token_seconds per request.", TOKEN_LATENCY_BUCKETS)
        self.e2e = histogram(
            "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", REQUEST_LATENCY_BUCKETS)
        self.queue_time = histogram(
            "vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
            REQUEST_LATENCY_BUCKETS)
        self.inference_time = histogram(
            "vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.",
            REQUEST_LATENCY_BUCKETS)
        self.prefill_time = histogram(
            "vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.",
            REQUEST_LATENCY_BUCKETS)
        self.decode_time = histogram(
            "vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.",
            REQUEST_LATENCY_BUCKETS)

        for metric in (self.preemptions, self.prompt_tokens, self.generation_tokens, self.running, self.waiting,
                       self.kv_usage):
            metric.labels(*self._labels)
        for reason in FINISHED_REASON_LABELS:
            self.success.labels(*self._labels, reason)
        for reason in ("capacity", "deferred"):
            self.waiting_by_reason.labels(*self._labels, reason)
        self._last_token_time: dict[str, float] = {}

    def update_gauges(self, replica: Replica, finishing: int = 0) -> None:
        """Set the gauges; `finishing` counts requests of the step in flight that end with it."""
        self.running.labels(*self._labels).set(replica.num_running + finishing)
        self.waiting.labels(*self._labels).set(replica.num_waiting)
        self.waiting_by_reason.labels(*self._labels, "capacity").set(replica.num_waiting)
        self.kv_usage.labels(*self._labels).set(replica.kv_usage)

    def observe_step(self, outcome: StepOutcome) -> None:
        """Account for one engine step, as of its end (gauges are the caller's business)."""
        if outcome.prefill_tokens or outcome.decode_seqs:
            self.iteration_tokens.observe(outcome.prefill_tokens + outcome.decode_seqs)
        if outcome.preempted:
            self.preemptions.labels(*self._labels).inc(len(outcome.preempted))
        first = set(map(id, outcome.first_tokens))
        for request, n in outcome.tokens:
            self.generation_tokens.labels(*self._labels).inc(n)
            if id(request) in first:
                self.ttft.observe(outcome.end - request.arrival_time)
                self.prompt_tokens.labels(*self._labels).inc(request.prompt_tokens)
            elif request.id in self._last_token_time:
                self.itl.observe(outcome.end - self._last_token_time[request.id])
            self._last_token_time[request.id] = outcome.end
        for request in outcome.finished:
            self.observe_finished(request)

    def observe_finished(self, request: Request) -> None:
        """Per-request histograms, observed once the request is done (as vLLM does)."""
        self._last_token_time.pop(request.id, None)
        self.success.labels(*self._labels, request.finished_reason).inc()
        if request.finished_reason == "abort":
            return  # the client went away: counted, but kept out of the latency histograms
        scheduled = request.first_scheduled_time
        decode = request.last_token_time - request.first_token_time
        self.e2e.observe(request.finish_time - request.arrival_time)
        self.queue_time.observe(scheduled - request.queued_time)
        self.prefill_time.observe(request.first_token_time - scheduled)
        self.decode_time.observe(decode)
        self.inference_time.observe(request.last_token_time - scheduled)
        self.tpot.observe(decode / (request.output_tokens - 1) if request.output_tokens > 1 else 0.0)
        self.request_prompt_tokens.observe(request.prompt_tokens)
        self.request_generation_tokens.observe(request.output_tokens)
        self.max_num_generation_tokens.observe(request.max_tokens)
        self.params_max_tokens.observe(request.max_tokens)
        self.params_n.observe(1)
