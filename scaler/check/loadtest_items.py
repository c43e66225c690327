"""Checklist items decided from a load test results file (`scaler.check.loadtest.LoadtestEvidence`).

Pure. The checklist asks to have *verified* under a burst that admitted requests keep their p99
while refusals rise, and that refused clients are told when to come back; a results file of
`slo-scaler loadtest --profile burst` against the gateway is that verification.
"""

from __future__ import annotations

import statistics

from scaler.check.loadtest import LoadtestEvidence
from scaler.check.result import Evidence, ItemResult, Status, result
from scaler.check.spec_items import SpecFacts, model_id
from scaler.loadgen.results import percentiles

# The standard burst sends 2-3x the peak for 10-20 s; a busiest bin under this multiple of the
# median bin is not a burst.
BURST_RATIO = 1.5
RUN_BURST = "run `slo-scaler loadtest URL --profile burst --slo-ttft <p95 SLO> --out DIR` through the gateway and pass DIR/loadtest.json"


def _unknown(item: str, facts: SpecFacts, ev: LoadtestEvidence | None) -> ItemResult | None:
    spec = facts.spec
    if ev is None:
        return result(item, model_id(spec), Status.UNKNOWN, "no --loadtest results file given",
                      [Evidence("--loadtest", "not given")], RUN_BURST)
    if ev.model is not None and ev.model != spec.model.served_name:
        return result(item, model_id(spec), Status.UNKNOWN,
                      f"the load test ran against model {ev.model!r}, not {spec.model.served_name!r}",
                      [Evidence(f"{ev.path} summary.model", ev.model), Evidence("model.servedName", spec.model.served_name)],
                      RUN_BURST)
    if not ev.requests:
        return result(item, model_id(spec), Status.UNKNOWN, "the results file holds no requests",
                      [Evidence(f"{ev.path} requests", 0)], RUN_BURST)
    return None


def burst(*, facts: SpecFacts, ev: LoadtestEvidence | None) -> ItemResult:
    unknown = _unknown("loadtest.burst", facts, ev)
    if unknown:
        return unknown
    sent = [b.sent for b in ev.bins]
    peak, median = max(sent), statistics.median(sent)
    ratio = peak / median if median > 0 else float("inf")
    at = next(b.t for b in ev.bins if b.sent == peak)
    evidence = [Evidence(f"{ev.path} timeline[].sent per {ev.bin_s:g} s bin: busiest (at t={at:g} s)", peak),
                Evidence(f"{ev.path} timeline[].sent: median bin", median), Evidence("busiest / median", round(ratio, 2))]
    if ratio < BURST_RATIO:
        return result("loadtest.burst", model_id(facts.spec), Status.FAIL,
                      f"no burst in the load test: the busiest bin sent {ratio:.2f}x the median, below {BURST_RATIO:g}x",
                      evidence, RUN_BURST)
    return result("loadtest.burst", model_id(facts.spec), Status.PASS,
                  f"a burst was run: {peak} requests in the busiest {ev.bin_s:g} s bin, {ratio:.1f}x the median", evidence)


def admitted_p99(*, facts: SpecFacts, ev: LoadtestEvidence | None) -> ItemResult:
    unknown = _unknown("loadtest.admitted-p99", facts, ev)
    if unknown:
        return unknown
    spec = facts.spec
    slo = spec.slo.ttft_p99_seconds
    refusing = [b for b in ev.bins if b.refused_attempts > 0]
    served = [r.ttft_s for r in ev.requests if r.ok and r.ttft_s is not None]
    overall = percentiles(served)["p99"]
    evidence = [Evidence("slo.ttftP99Seconds", slo), Evidence(f"{ev.path} requests[].ttft_s of ok requests: p99", overall),
                Evidence(f"{ev.path} requests[].ttft_s of ok requests: count", len(served))]
    if not refusing:
        evidence.append(Evidence(f"{ev.path} timeline[].refused_attempts", 0))
        if overall is not None and overall > slo:
            return result("loadtest.admitted-p99", model_id(spec), Status.FAIL,
                          f"nothing was refused and admitted TTFT p99 {overall:.3g} s exceeded the SLO {slo:g} s: "
                          "the burst was queued instead of shed", evidence,
                          "send the load through the gateway whose rate-limit filter asks the scaler, with shedding.enabled")
        return result("loadtest.admitted-p99", model_id(spec), Status.WARN,
                      "no request was refused, so 'p99 holds while refusals rise' was not exercised", evidence,
                      "run a bigger burst (--burst-factor) so the service has to shed")
    start, end = refusing[0].t, refusing[-1].t + ev.bin_s
    during = [r.ttft_s for r in ev.requests if r.ok and r.ttft_s is not None and start <= r.start < end]
    before = [b for b in ev.bins if b.t < start]
    p99 = percentiles(during)["p99"]
    refused_rate = sum(b.refused_attempts for b in refusing) / (end - start)
    evidence += [Evidence(f"{ev.path} timeline: refusals from t={start:g} s to t={end:g} s, refused attempts/s", round(refused_rate, 3)),
                 Evidence(f"{ev.path} timeline: refused attempts/s before t={start:g} s", 0.0 if before else "no bins before"),
                 Evidence(f"{ev.path} requests[].ttft_s of ok requests first sent while refusing: p99", p99),
                 Evidence(f"{ev.path} requests[].ttft_s of ok requests first sent while refusing: count", len(during))]
    if p99 is None:
        return result("loadtest.admitted-p99", model_id(spec), Status.FAIL,
                      "while refusals rose no request was admitted at all", evidence,
                      "the shedder refused everything: check its admission rate and the replicas' capacity")
    if p99 > slo:
        return result("loadtest.admitted-p99", model_id(spec), Status.FAIL,
                      f"admitted TTFT p99 {p99:.3g} s exceeded the SLO {slo:g} s while refusals rose "
                      f"(t={start:g}-{end:g} s): shedding let in more than the replicas drain in time", evidence,
                      "lower scaler.targetUtilization or the RED thresholds, or raise min replicas")
    return result("loadtest.admitted-p99", model_id(spec), Status.PASS,
                  f"while refusals rose ({refused_rate:.2f} refused attempts/s, t={start:g}-{end:g} s) admitted TTFT p99 "
                  f"stayed at {p99:.3g} s, within the SLO {slo:g} s", evidence)


def retry_after(*, facts: SpecFacts, ev: LoadtestEvidence | None) -> ItemResult:
    unknown = _unknown("loadtest.retry-after", facts, ev)
    if unknown:
        return unknown
    refused = sum(r.refused_attempts for r in ev.requests)
    honoured = sum(r.retry_after_waits for r in ev.requests)
    without = sum(r.other_waits for r in ev.requests)
    evidence = [Evidence(f"{ev.path} requests[].refusals", refused),
                Evidence(f"{ev.path} requests[].wait_reasons honouring Retry-After", honoured),
                Evidence(f"{ev.path} requests[].wait_reasons starting 'no Retry-After'", without)]
    spec = facts.spec
    if refused == 0:
        return result("loadtest.retry-after", model_id(spec), Status.UNKNOWN, "no request was refused, so no Retry-After could be seen",
                      evidence, "run a bigger burst through the gateway")
    if honoured + without == 0:
        return result("loadtest.retry-after", model_id(spec), Status.UNKNOWN,
                      "refused requests were not retried (--max-retries 0?), so their Retry-After was not recorded", evidence,
                      "run the load test with --max-retries of at least 1")
    if honoured == 0:
        return result("loadtest.retry-after", model_id(spec), Status.FAIL,
                      f"none of {without} retried refusals carried Retry-After: clients can only guess when to come back",
                      evidence, "check that the gateway passes the rate-limit service's response headers (Retry-After)")
    if without:
        return result("loadtest.retry-after", model_id(spec), Status.WARN,
                      f"{without} of {honoured + without} retried refusals came without Retry-After", evidence,
                      "refusals not from the rate-limit service (vLLM, another proxy) lack it: find which and add it")
    return result("loadtest.retry-after", model_id(spec), Status.PASS,
                  f"every one of {honoured} retried refusals carried Retry-After", evidence)


def client_backoff(*, facts: SpecFacts, ev: LoadtestEvidence | None) -> ItemResult:
    """Production clients are outside what any of our evidence shows: always UNKNOWN, with what the
    load test's own client did as the example to follow."""
    spec = facts.spec
    evidence = [Evidence("production clients", "not observable by slo-scaler")]
    if ev is not None:
        most = max((r.retries for r in ev.requests), default=0)
        evidence += [Evidence(f"{ev.path} config.backoff", ev.backoff or "absent"),
                     Evidence(f"{ev.path} requests[].waits: most retries of one request", most)]
    return result("loadtest.client-backoff", model_id(spec), Status.UNKNOWN,
                  "whether your clients back off exponentially with bounded retries cannot be seen from the server side",
                  evidence, "make client SDKs honour Retry-After as a floor, back off exponentially with jitter, cap retries "
                  "(as scaler/loadgen/retry.py does)")
