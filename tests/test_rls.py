"""The rate-limit service over real gRPC, with the real ModelRegistry of `slo-scaler serve`."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import time
from dataclasses import replace

import grpc
import pytest
from prometheus_client import CollectorRegistry, generate_latest

from admission_helpers import decision
from rls_helpers import RlsHarness, rls_args
from scaler.admission.backlog import BIN_S
from scaler.policy.decide import State
from scaler.rls import server
from scaler.rls.service import OK, OVER_LIMIT
from scaler.rls.stubs import SHOULD_RATE_LIMIT
from scaler.sources.base import Observation

MODEL = "qwen2.5-7b-instruct"


@pytest.fixture
def harness():
    made: list[RlsHarness] = []

    def make(*argv: str, **kwargs) -> RlsHarness:
        h = RlsHarness(*argv, **kwargs)
        made.append(h)
        return h

    yield make
    for h in made:
        h.close()


def _set(entry, state: State, admission_rps: float | None = None, retry_after_s: float = 10.0):
    """A decision from fresh data, as the poller leaves it (stale data would make it UNKNOWN)."""
    now = entry._clock()
    entry.observation = Observation(time=now, waiting=0.0, running=0.0, ready_replicas=1, completed_total=None)
    entry.decision = decision(state, admission_rps, retry_after_s, time=now)


def _headers(response) -> dict[str, str]:
    return {h.key: h.value for h in response.response_headers_to_add}


def _exposition(h: RlsHarness) -> str:
    return generate_latest(h.metrics).decode()


def test_a_known_model_without_a_decision_is_admitted_and_its_arrivals_counted(harness):
    h = harness()
    entry = h.add_model(MODEL)
    assert entry.arrivals_total is None
    for _ in range(3):
        assert h.call({"model": MODEL, "class": "batch"}).overall_code == OK
    assert h.call({"model": MODEL}, hits=4).overall_code == OK
    assert entry.arrivals_total == 7, "offered requests (hits_addend included) feed the scaler's arrival rate"
    assert 'reason="no-decision-yet"' in _exposition(h)


def test_unknown_model_is_admitted_by_default_and_refused_when_configured(harness):
    h = harness()
    assert h.call({"model": "not-served"}).overall_code == OK
    assert h.call({"class": "batch"}).overall_code == OK, "no model entry at all: admit"
    assert h.call({"model": MODEL}, domain="someone-else").overall_code == OK
    text = _exposition(h)
    assert 'model="unknown"' in text and "not-served" not in text, "unknown names never become labels"

    strict = harness("--unknown-model", "refuse")
    response = strict.call({"model": "not-served"})
    assert response.overall_code == OVER_LIMIT
    assert response.dynamic_metadata["slo_scaler_status"] == "503"
    assert strict.call({"model": "not-served"}, domain="someone-else").overall_code == OK, "another domain is not ours"
    assert 'reason="other-domain"' in _exposition(strict)


def test_yellow_sheds_batch_with_retry_after_status_and_an_openai_error_body(harness):
    h = harness()
    _set(h.add_model(MODEL), State.YELLOW, retry_after_s=10.0)
    assert h.call({"model": MODEL, "class": "interactive"}).overall_code == OK
    response = h.call({"model": MODEL, "class": "batch", "tenant": "web"})
    assert response.overall_code == OVER_LIMIT
    assert 8 <= int(_headers(response)["retry-after"]) <= 12, "the policy's 10 s with +-20% jitter"
    assert response.dynamic_metadata["slo_scaler_status"] == "503"
    body = json.loads(response.raw_body)
    assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["type"] == "server_error" and "yellow-shed-class" in body["error"]["message"]
    assert h.call({"model": MODEL, "priority": "-2"}).overall_code == OVER_LIMIT, "negative priority is sheddable"
    text = _exposition(h)
    assert ('slo_scaler_rls_decisions_total{class="batch",code="503",model="qwen2.5-7b-instruct",'
            'namespace="",reason="yellow-shed-class",tenant="other"} 2.0') in text


def test_red_refuses_past_the_drainable_rate_and_exports_it(harness):
    h = harness()
    entry = h.add_model(MODEL)
    _set(entry, State.RED, admission_rps=0.0, retry_after_s=3.0)
    response = h.call({"model": MODEL, "class": "interactive"})
    assert response.overall_code == OVER_LIMIT
    assert json.loads(response.raw_body)["error"]["message"].endswith("(red-over-drain-rate)")
    assert 'slo_scaler_rls_admission_rate{model="qwen2.5-7b-instruct",namespace=""} 0.0' in _exposition(h)
    _set(entry, State.GREEN)
    assert h.call({"model": MODEL, "class": "batch"}).overall_code == OK
    assert 'slo_scaler_rls_admission_rate{model="qwen2.5-7b-instruct",namespace=""} +Inf' in _exposition(h)


def test_a_burst_between_two_decisions_is_refused_once_it_would_wait_past_the_budget(harness):
    # The scraped data (time t0): 3 of 8 slots busy, the fleet completes 2/s, budget 1 s: a
    # request may wait 0.8 s for a slot (1.6 requests). Then a burst arrives before the next
    # decision: only the RLS sees it. Its 5 free slots and what drains meanwhile take requests,
    # the rest is refused with the capacity code although the decision still says GREEN.
    h = harness()
    entry = h.add_model(MODEL)
    h.call({"model": MODEL}), h.call({"model": MODEL})  # counted before the data time: not in the queue
    _set(entry, State.GREEN)
    entry.decision = replace(entry.decision, running=3.0, slots=8.0, drain_rps=2.0, completion_rps=2.0, budget_s=1.0)
    t0 = entry.observed_at
    time.sleep(BIN_S)  # counts are kept in bins this wide; the one straddling the data time is not counted
    codes = [h.call({"model": MODEL}).overall_code for _ in range(30)]
    elapsed = entry._clock() - t0
    admitted = codes.count(OK)
    assert 6 <= admitted <= 7 + 2.0 * elapsed, (admitted, elapsed)
    assert codes[0] == OK and codes[-1] == OVER_LIMIT
    assert f'reason="queue-over-budget",tenant="other"}} {30 - admitted:.1f}' in _exposition(h)
    # Fail open: once the data is old enough that the drain since has emptied the queue, admit.
    entry.decision = replace(entry.decision, drain_rps=1e6, capacity_rps=1e6)
    assert h.call({"model": MODEL}).overall_code == OK


def test_tenant_over_quota_gets_the_quota_status(harness, tmp_path):
    tenants = tmp_path / "tenants.yaml"
    tenants.write_text("tenants:\n  - name: partner-api\n    quotaRequestsPerSecond: 1\n  - name: web\n    weight: 3\n")
    h = harness("--tenants", str(tenants))
    _set(h.add_model(MODEL), State.GREEN)
    codes = [h.call({"model": MODEL, "tenant": "partner-api"}).overall_code for _ in range(5)]
    assert codes[0] == OK and OVER_LIMIT in codes
    refused = h.call({"model": MODEL, "tenant": "partner-api"})
    assert refused.dynamic_metadata["slo_scaler_status"] == "429"
    assert json.loads(refused.raw_body)["error"]["code"] == "rate_limit_exceeded"
    assert h.call({"model": MODEL, "tenant": "web"}).overall_code == OK
    assert 'code="429",model="qwen2.5-7b-instruct",namespace="",reason="tenant-over-quota",tenant="partner-api"' in _exposition(h)


def test_requests_past_their_quota_are_not_demand_for_the_scaler(harness, tmp_path):
    tenants = tmp_path / "tenants.yaml"
    tenants.write_text("tenants:\n  - name: api\n    quotaRequestsPerSecond: 1\n")
    h = harness("--tenants", str(tenants))
    entry = h.add_model(MODEL)
    _set(entry, State.YELLOW)
    codes = [h.call({"model": MODEL, "tenant": "api"}).dynamic_metadata for _ in range(5)]
    refused_for_quota = sum(dict(c).get("slo_scaler_status") == "429" for c in codes)
    assert refused_for_quota >= 3
    assert h.call({"model": MODEL, "class": "batch"}).overall_code == OVER_LIMIT
    assert entry.arrivals_total == 5 - refused_for_quota + 1, "capacity refusals are demand, quota refusals are not"


def test_codes_are_configurable(harness, tmp_path):
    tenants = tmp_path / "tenants.yaml"
    tenants.write_text("tenants:\n  - name: api\n    quotaRequestsPerSecond: 1\n")
    h = harness("--capacity-code", "429", "--quota-code", "503", "--tenants", str(tenants))
    _set(h.add_model(MODEL), State.YELLOW)
    assert h.call({"model": MODEL, "class": "batch"}).dynamic_metadata["slo_scaler_status"] == "429"
    responses = [h.call({"model": MODEL, "tenant": "api"}) for _ in range(4)]
    assert "503" in {dict(r.dynamic_metadata).get("slo_scaler_status") for r in responses}


def test_shadow_mode_decides_and_counts_but_never_refuses(harness):
    h = harness("--shadow")
    _set(h.add_model(MODEL), State.RED, admission_rps=0.0)
    assert all(h.call({"model": MODEL, "class": c}).overall_code == OK for c in ("interactive", "batch"))
    text = _exposition(h)
    assert 'code="OK",model="qwen2.5-7b-instruct",namespace="",reason="shadow-red-over-drain-rate"' in text
    assert 'code="503"' not in text


def test_hostile_descriptor_values_are_answered_and_never_become_labels(harness):
    h = harness()
    _set(h.add_model(MODEL), State.GREEN)
    hostile = 'x"} 1\nslo_scaler_rls_decisions_total{evil="1'
    for entries in ({"model": MODEL, "class": hostile, "tenant": hostile, "priority": hostile},
                    {"model": MODEL, "tenant": "t" * 5000}, {"model": hostile}):
        assert h.call(entries).overall_code == OK
    text = _exposition(h)
    assert "evil" not in text and "t" * 100 not in text
    assert 'class="interactive",code="OK",model="qwen2.5-7b-instruct",namespace="",reason="green",tenant="other"' in text


def test_a_failing_decision_fails_open(harness):
    h = harness()
    entry = h.add_model(MODEL)
    entry.decision = object()  # a decision the admission code cannot read
    assert h.call({"model": MODEL, "class": "batch"}).overall_code == OK


def test_a_taken_port_is_a_clear_error(harness):
    h = harness()
    with pytest.raises(OSError, match=f"--rls-port 127.0.0.1:{h.port}"):
        asyncio.run(server.start(h.registry, rls_args("--rls-host", "127.0.0.1", "--rls-port", str(h.port)),
                                 CollectorRegistry()))


def test_rls_port_zero_disables_the_server():
    assert asyncio.run(server.start(None, rls_args("--rls-port", "0"))) is None


@pytest.mark.parametrize("argv, message", [
    (["--capacity-code", "200"], "argument --capacity-code: expected an HTTP error status in [400, 599]"),
    (["--quota-code", "4290"], "argument --quota-code: expected an HTTP error status"),
    (["--yellow-shed", "batch,premium"], "argument --yellow-shed: expected classes among"),
    (["--rls-port", "70000"], "argument --rls-port: expected a port in [0, 65535]"),
    (["--retry-jitter", "nan"], "argument --retry-jitter: expected a fraction in [0, 1)"),
    (["--unknown-model", "maybe"], "argument --unknown-model: invalid choice"),
])
def test_bad_flags_name_the_flag(argv, message, capsys):
    with pytest.raises(SystemExit):
        rls_args(*argv)
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("text, message", [
    ("tenants:\n  - name: web\n    weight: -1\n", "tenants[0].weight: Input should be greater than 0"),
    ("tenants:\n  - name: 'we b'\n", "tenants[0].name: String should match pattern"),
    ("tenants:\n  - name: web\n  - name: web\n", "expected unique names, 'web' appears twice"),
    ("tenants:\n  - name: web\n    quota: 3\n", "tenants[0].quota: Extra inputs are not permitted"),
    ("tenant: []\n", "expected a mapping with exactly one key, `tenants`"),
    ("tenants: [\n", "expected valid YAML"),
])
def test_bad_tenants_file_names_the_field(tmp_path, text, message, capsys):
    path = tmp_path / "tenants.yaml"
    path.write_text(text)
    with pytest.raises(SystemExit):
        rls_args("--tenants", str(path))
    err = capsys.readouterr().err
    assert "argument --tenants" in err and message in err


def test_tls_needs_both_cert_and_key(tmp_path, capsys):
    cert = tmp_path / "c.pem"
    cert.write_text("x")
    with pytest.raises(SystemExit):
        asyncio.run(server.start(None, rls_args("--rls-tls-cert", str(cert))))
    assert "argument --rls-tls-cert/--rls-tls-key: expected both or neither" in capsys.readouterr().err


def test_rls_client_ca_needs_server_tls(tmp_path, capsys):
    ca = tmp_path / "ca.pem"
    ca.write_text("x")
    with pytest.raises(SystemExit):
        asyncio.run(server.start(None, rls_args("--rls-tls-client-ca", str(ca))))
    assert "--rls-tls-client-ca: expected --rls-tls-cert and --rls-tls-key as well" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a certificate")
def test_rls_over_tls(harness, tmp_path):
    key, cert = tmp_path / "tls.key", tmp_path / "tls.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    h = harness("--rls-tls-cert", str(cert), "--rls-tls-key", str(key), tls=(cert.read_bytes(), None, None))
    _set(h.add_model(MODEL), State.YELLOW)
    assert h.call({"model": MODEL, "class": "batch"}).overall_code == OVER_LIMIT
    plain = grpc.insecure_channel(f"127.0.0.1:{h.port}")
    stub = plain.unary_unary(SHOULD_RATE_LIMIT.path)
    with pytest.raises(grpc.RpcError):
        stub(b"", timeout=2)  # a plaintext client cannot talk to the TLS port
    plain.close()




def test_the_rls_path_and_fields_match_envoys_api():
    assert SHOULD_RATE_LIMIT.path == "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit"
    numbers = {f.name: f.number for f in SHOULD_RATE_LIMIT.response.DESCRIPTOR.fields}
    assert numbers == {"overall_code": 1, "response_headers_to_add": 3, "request_headers_to_add": 4,
                       "raw_body": 5, "dynamic_metadata": 6}
    assert {f.name: f.number for f in SHOULD_RATE_LIMIT.request.DESCRIPTOR.fields} == {
        "domain": 1, "descriptors": 2, "hits_addend": 3}
