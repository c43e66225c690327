"""A model is (namespace, served name): the same name in two namespaces is two models, end to end
(real Prometheus, the KEDA gRPC API, the RLS); two ScaledObjects disagreeing about one model get
INVALID_ARGUMENT, not a flip-flop; every replica configured with --models answers for the model."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from conftest import free_port, poll_until
from rls_helpers import request
from scaler.policy.config import ConfigError
from scaler.rls.service import OK, OVER_LIMIT
from scaler.rls.stubs import SHOULD_RATE_LIMIT
from scaler.server.protocol import ExternalScalerClient, GetMetricsRequest
from scaler.server.registry import ModelKey, ModelRegistry
from scaler.sources.prometheus import build_queries
from scaler_helpers import CAPTURE_MODEL, InProcessScaler, PageServer, metric, vllm_page

MODEL = CAPTURE_MODEL
REPO = Path(__file__).resolve().parents[1]
SCRAPE = {"model": MODEL, "source": "scrape", "scrapeTargets": "http://127.0.0.1:9/metrics"}


class Serve:
    """One in-process `serve` with its RLS port and a ShouldRateLimit call."""

    def __init__(self, *flags: str) -> None:
        port = free_port()
        self.app = InProcessScaler("--poll-interval", "0.2", "--rls-port", str(port), *flags)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.rls = self.channel.unary_unary(SHOULD_RATE_LIMIT.path,
                                            request_serializer=SHOULD_RATE_LIMIT.request.SerializeToString,
                                            response_deserializer=SHOULD_RATE_LIMIT.response.FromString)

    def state(self, namespace: str, state: str) -> bool:
        return metric(self.app.metrics_text(), "slo_scaler_state", namespace=namespace, model=MODEL, state=state) == 1

    def demand(self, ref) -> float:
        spec = self.app.client.GetMetricSpec(ref, timeout=5).metricSpecs[0]
        answer = self.app.client.GetMetrics(GetMetricsRequest(scaledObjectRef=ref, metricName=spec.metricName), timeout=5)
        return answer.metricValues[0].metricValueFloat

    def close(self) -> None:
        self.channel.close()
        self.app.close()


@pytest.fixture
def serve():
    started: list[Serve] = []

    def start(*flags: str) -> Serve:
        started.append(Serve(*flags))
        return started[-1]

    yield start
    for s in started:
        s.close()


@pytest.fixture
def pages():
    # team-a: 400 waiting behind 8 running and no completion (far past any budget); team-b: idle.
    servers = {"team-a": PageServer(vllm_page(waiting=400, running=8)),
               "team-b": PageServer(vllm_page(waiting=0, running=2))}
    yield servers
    for server in servers.values():
        server.close()


@pytest.mark.integration
def test_two_namespaces_serving_one_name_are_two_models_end_to_end(prometheus_server, pages, serve):
    # Prometheus labels each page with its namespace, as a PodMonitor does; the scaler's rounds
    # must read each namespace's series only (they summed both before: one demand for two models).
    prom = prometheus_server([{"job_name": "vllm", "static_configs": [
        {"targets": [f"127.0.0.1:{page.port}"], "labels": {"namespace": ns}} for ns, page in pages.items()]}])
    poll_until(lambda: len(prom.query("up == 1")) == 2, 15, "both pages scraped")
    scaler = serve()
    refs = {ns: ExternalScalerClient.ref({"model": MODEL, "prometheusAddress": prom.url, "perReplicaCapacity": "4",
                                          "scaleUpLatencySeconds": "60", "ttftSloSeconds": slo}, name="chat", namespace=ns)
            for ns, slo in (("team-a", "2"), ("team-b", "8"))}
    for ref in refs.values():
        scaler.app.client.GetMetricSpec(ref, timeout=5)
    poll_until(lambda: scaler.state("team-a", "RED") and scaler.state("team-b", "GREEN"), 20,
               "team-a RED from its own backlog, team-b GREEN")

    # Independent states, configurations and demands.
    registry = scaler.app.registry
    a, b = registry.get(MODEL, "team-a"), registry.get(MODEL, "team-b")
    assert a is not b and (a.config.ttft_slo_s, b.config.ttft_slo_s) == (2.0, 8.0)
    assert (a.observation.waiting, b.observation.waiting) == (400.0, 0.0), "each namespace's series only"
    demand_a, demand_b = scaler.demand(refs["team-a"]), scaler.demand(refs["team-b"])
    assert demand_a >= 2 and demand_b <= 1.0, (demand_a, demand_b)  # 408 requests vs an idle replica

    # Independent admission: Envoy's descriptor names the namespace.
    interactive = {"model": MODEL, "class": "interactive", "tenant": "web"}
    assert scaler.rls(request({**interactive, "namespace": "team-a"}), timeout=5).overall_code == OVER_LIMIT
    assert scaler.rls(request({**interactive, "namespace": "team-b"}), timeout=5).overall_code == OK
    # Without a namespace the name is ambiguous here: unknown, so admitted (fail open).
    assert scaler.rls(request(interactive), timeout=5).overall_code == OK
    text = scaler.app.metrics_text()
    decisions = "slo_scaler_rls_decisions_total"
    assert metric(text, decisions, namespace="team-a", model=MODEL, code="503") == 1
    assert metric(text, decisions, namespace="team-b", model=MODEL, code="OK", reason="green") == 1
    assert metric(text, decisions, namespace="", model="unknown", reason="unknown-model") == 1
    assert metric(text, "slo_scaler_demand_replicas", namespace="team-a", model=MODEL) == pytest.approx(demand_a, rel=0.2)
    assert (a.arrivals_total, b.arrivals_total) == (1, 1), "each model counts its own requests"


def test_without_a_namespace_only_a_unique_served_name_matches():
    registry = ModelRegistry()
    only = registry.ensure(SCRAPE, "team-a")
    assert registry.get(MODEL) is only and registry.get(MODEL, "team-a") is only
    assert registry.get(MODEL, "team-b") is None, "another namespace's model is unknown"
    other = registry.ensure(SCRAPE, "team-b")
    assert registry.get(MODEL) is None, "two namespaces serve it: ambiguous, so unknown (admitted)"
    assert registry.get(MODEL, "team-b") is other and other.key == ModelKey("team-b", MODEL)
    # A model configured without a namespace answers for every namespace.
    loose = ModelRegistry()
    entry = loose.ensure({**SCRAPE, "model": "m"}, pinned=True)
    assert loose.get("m", "team-c") is entry and loose.ensure({**SCRAPE, "model": "m"}, "team-c") is entry


def test_prometheus_rounds_read_one_namespace_and_unlabelled_series():
    queries = build_queries([MODEL], "team-a")
    assert all('namespace=~"|team\\\\-a"' in q for q in queries.values()), queries
    assert all("namespace" not in q for q in build_queries([MODEL]).values())


def test_a_second_scaledobject_that_disagrees_is_refused_naming_the_key(serve, tmp_path):
    scaler = serve()
    client = scaler.app.client
    first = ExternalScalerClient.ref({**SCRAPE, "ttftSloSeconds": "2"}, name="chat", namespace="team-a")
    client.GetMetricSpec(first, timeout=5)
    rival = ExternalScalerClient.ref({**SCRAPE, "ttftSloSeconds": "3", "requestClass": "batch"}, name="chat-copy",
                                     namespace="team-a")
    for _ in range(3):  # every call, and the model keeps its owner's configuration
        with pytest.raises(grpc.RpcError) as error:
            client.GetMetricSpec(rival, timeout=5)
        assert error.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert error.value.details().startswith("ttftSloSeconds: expected the value ScaledObject team-a/chat gives"), \
            error.value.details()
        assert scaler.app.registry.get(MODEL).config.ttft_slo_s == 2.0
    # The owner changing its own metadata is a reconfiguration; a copy that agrees is answered.
    client.GetMetricSpec(ExternalScalerClient.ref({**SCRAPE, "ttftSloSeconds": "3"}, name="chat", namespace="team-a"),
                         timeout=5)
    assert scaler.app.registry.get(MODEL).config.ttft_slo_s == 3.0
    client.GetMetricSpec(ExternalScalerClient.ref({**SCRAPE, "ttftSloSeconds": "3"}, name="chat-copy",
                                                  namespace="team-a"), timeout=5)
    # The same name in another namespace is another model: no conflict.
    client.GetMetricSpec(ExternalScalerClient.ref({**SCRAPE, "ttftSloSeconds": "9"}, name="chat", namespace="team-b"),
                         timeout=5)
    assert scaler.app.registry.get(MODEL, "team-b").config.ttft_slo_s == 9.0


def test_models_file_entries_own_their_model():
    registry = ModelRegistry()
    registry.ensure({**SCRAPE, "namespace": "team-a", "ttftSloSeconds": "2"}, pinned=True)
    with pytest.raises(ConfigError) as error:
        registry.ensure({**SCRAPE, "ttftSloSeconds": "5"}, "team-a", owner=("team-a", "chat"))
    assert error.value.key == "ttftSloSeconds" and "--models/--config" in str(error.value)
    assert registry.ensure({**SCRAPE, "ttftSloSeconds": "2"}, "team-a", owner=("team-a", "chat")).config.ttft_slo_s == 2


def test_keda_reconnecting_to_another_replica_sees_the_same_metric(serve, pages, tmp_path):
    # Both replicas know the model from --models (namespace key included) and poll it before KEDA
    # ever calls: the replica KEDA reconnects to answers with the same demand, warm.
    models = tmp_path / "models.yaml"
    models.write_text(f"- model: {MODEL}\n  namespace: team-a\n  source: scrape\n  scrapeTargets: {pages['team-a'].url}\n"
                      "  ttftSloSeconds: 2\n  perReplicaCapacity: 4\n  scaleUpLatencySeconds: 60\n")
    replicas = [serve("--models", str(models)) for _ in range(2)]
    for replica in replicas:
        poll_until(lambda: replica.state("team-a", "RED"), 20, "RED on every replica before any KEDA call")
    ref = ExternalScalerClient.ref({"model": MODEL, "source": "scrape", "scrapeTargets": pages["team-a"].url,
                                    "ttftSloSeconds": "2", "perReplicaCapacity": "4", "scaleUpLatencySeconds": "60"},
                                   name="chat", namespace="team-a")
    before, after = replicas[0].demand(ref), replicas[1].demand(ref)
    assert before >= 2 and after == pytest.approx(before, rel=0.05), (before, after)
    entry = replicas[1].app.registry.get(MODEL, "team-a")
    assert entry.pinned and len(replicas[1].app.registry.models()) == 1, "the KEDA call found the configured model"


def test_config_files_for_one_served_name_in_two_namespaces_are_two_models(tmp_path):
    import yaml

    from scaler.modelconfig import load_path
    from scaler.modelconfig.watch import apply

    example = yaml.safe_load((REPO / "manifests/examples/scaler-config-slo-scaler/llm.chat.yaml").read_text())
    for namespace, slo, quota in (("team-a", 1.5, 2.0), ("team-b", 4.0, 9.0)):
        doc = {**example, "scaler": {**example["scaler"], "namespace": namespace, "ttftSloSeconds": slo},
               "shedding": {**example["shedding"], "tenants": [{"name": "partner", "weight": 1,
                                                                "quotaRequestsPerSecond": quota}]}}
        (tmp_path / f"{namespace}.chat.yaml").write_text(yaml.safe_dump(doc))
    registry = ModelRegistry()
    apply(registry, load_path(tmp_path))
    name = example["model"]
    a, b = registry.get(name, "team-a"), registry.get(name, "team-b")
    assert (a.config.ttft_slo_s, b.config.ttft_slo_s) == (1.5, 4.0) and registry.get(name) is None
    quotas = {key.namespace: dict(s.tenants)["partner"].quota_rps for key, s in registry.shedding.items()}
    assert quotas == {"team-a": 2.0, "team-b": 9.0}


def test_an_owner_silent_past_owner_idle_hands_the_model_over():
    from scaler.server.registry import OWNER_IDLE_S

    now = [1000.0]
    registry = ModelRegistry(clock=lambda: now[0])
    registry.ensure({**SCRAPE, "ttftSloSeconds": "2"}, "team-a", owner=("team-a", "old"))
    now[0] += OWNER_IDLE_S / 2
    with pytest.raises(ConfigError):
        registry.ensure({**SCRAPE, "ttftSloSeconds": "3"}, "team-a", owner=("team-a", "new"))
    now[0] += OWNER_IDLE_S  # the old ScaledObject was deleted: nothing has named it since
    entry = registry.ensure({**SCRAPE, "ttftSloSeconds": "3"}, "team-a", owner=("team-a", "new"))
    assert entry.config.ttft_slo_s == 3.0 and entry.owner == ("team-a", "new")
