"""The RLS inside the real `serve` app: models become known through KEDA's calls, decisions come
from the poller and the policy, and the RLS metrics are on the scaler's /metrics."""

from __future__ import annotations

import json

import grpc
import pytest

from conftest import free_port, poll_until
from rls_helpers import request
from scaler.rls.service import OK, OVER_LIMIT
from scaler.rls.stubs import SHOULD_RATE_LIMIT
from scaler.server.protocol import ExternalScalerClient
from scaler_helpers import CAPTURE_MODEL, InProcessScaler, PageServer, metric, vllm_page


@pytest.fixture
def page():
    # 400 waiting behind one replica of 4 requests/s, and no completion: far past a 2 s budget.
    server = PageServer(vllm_page(waiting=400, running=8))
    yield server
    server.close()


@pytest.fixture
def serve():
    started: list[InProcessScaler] = []

    def start(*flags: str) -> tuple[InProcessScaler, object]:
        port = free_port()
        app = InProcessScaler("--poll-interval", "0.2", "--rls-port", str(port), *flags)
        started.append(app)
        app.rls_channel = grpc.insecure_channel(f"127.0.0.1:{port}")  # the RLS has a port of its own
        call = app.rls_channel.unary_unary(SHOULD_RATE_LIMIT.path, request_serializer=SHOULD_RATE_LIMIT.request.SerializeToString,
                                   response_deserializer=SHOULD_RATE_LIMIT.response.FromString)
        return app, call

    yield start
    for app in started:
        app.rls_channel.close()
        app.close()


def test_a_model_is_known_to_the_rls_as_soon_as_keda_names_it(serve, page):
    app, should_rate_limit = serve()
    entries = {"model": CAPTURE_MODEL, "class": "interactive", "tenant": "web"}
    assert should_rate_limit(request(entries), timeout=5).overall_code == OK
    assert metric(app.metrics_text(), "slo_scaler_rls_decisions_total", model="unknown", reason="unknown-model") == 1

    metadata = {"scalerAddress": "slo-scaler.keda:9090", "model": CAPTURE_MODEL, "source": "scrape",
                "scrapeTargets": page.url, "ttftSloSeconds": "2", "perReplicaCapacity": "4",
                "scaleUpLatencySeconds": "60"}
    app.client.GetMetricSpec(ExternalScalerClient.ref(metadata))
    poll_until(lambda: metric(app.metrics_text(), "slo_scaler_state", model=CAPTURE_MODEL, state="RED") == 1, 10,
               "the policy to see the backlog and go RED")

    response = should_rate_limit(request(entries), timeout=5)
    assert response.overall_code == OVER_LIMIT
    assert response.dynamic_metadata["slo_scaler_status"] == "503"
    assert "(red-" in json.loads(response.raw_body)["error"]["message"]
    text = app.metrics_text()
    assert metric(text, "slo_scaler_rls_decisions_total", model=CAPTURE_MODEL, code="503", tenant="other") == 1
    assert metric(text, "slo_scaler_rls_admission_rate", model=CAPTURE_MODEL) == 0.0
    assert app.registry.get(CAPTURE_MODEL).arrivals_total == 1, "the refused request is demand the scaler sees"


def test_models_file_and_shadow_mode(serve, page, tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text(f"- model: {CAPTURE_MODEL}\n  source: scrape\n  scrapeTargets: {page.url}\n"
                      "  ttftSloSeconds: 2\n  perReplicaCapacity: 4\n  requestClass: batch\n")
    app, should_rate_limit = serve("--models", str(models), "--shadow")
    poll_until(lambda: metric(app.metrics_text(), "slo_scaler_state", model=CAPTURE_MODEL, state="RED") == 1, 10,
               "RED from the models file's model")
    assert should_rate_limit(request({"model": CAPTURE_MODEL}), timeout=5).overall_code == OK
    text = app.metrics_text()
    assert metric(text, "slo_scaler_rls_decisions_total", model=CAPTURE_MODEL, code="OK", **{"class": "batch"},
                  reason="shadow-red-over-drain-rate") == 1, "the model's requestClass is the default class"
