"""Per-model runtime config: rendered from the spec, published schema, `serve --config`, hot reload, enforcement.

The rendered examples (manifests/examples/scaler-config-slo-scaler/) are what these tests load:
the same files a ConfigMap carries into the scaler's pod.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import grpc
import jsonschema
import pytest
import yaml

from conftest import free_port, poll_until
from rls_helpers import RlsHarness, request
from scaler.modelconfig import ModelConfigError, load_path, parse_config
from scaler.modelconfig.build import from_spec, policy_config, to_yaml
from scaler.modelconfig.schema import ScalerSettings, json_schema_text
from scaler.modelconfig.watch import ConfigWatcher, apply
from scaler.render.derive import derive, trigger_metadata
from scaler.rls.stubs import SHOULD_RATE_LIMIT, rls
from scaler.server import metadata as meta
from scaler.server.protocol import ExternalScalerClient
from scaler.server.metadata import ModelKey
from scaler.server.registry import ModelRegistry
from scaler.spec import load_spec
from scaler_helpers import InProcessScaler, metric

REPO = Path(__file__).resolve().parents[1]
CONFIG_DIR = REPO / "manifests" / "examples" / "scaler-config-slo-scaler"
SPECS = REPO / "manifests" / "examples" / "specs"
CHAT, BATCH = "qwen2.5-7b-instruct", "meta-llama/Llama-3.1-8B-Instruct"
CHAT_KEY, BATCH_KEY = ModelKey("llm", CHAT), ModelKey("llm-batch", BATCH)  # the rendered examples' namespaces
OVER_LIMIT = rls.RateLimitResponse.Code.Value("OVER_LIMIT")


def config_files() -> list[Path]:
    return sorted(p for p in CONFIG_DIR.glob("*.yaml") if p.name != "kustomization.yaml")


def test_published_schema_is_current_and_rendered_configs_validate():
    published = REPO / "docs" / "modelconfig.schema.json"
    assert published.read_text() == json_schema_text(), (
        "docs/modelconfig.schema.json is stale: python -c 'from scaler.modelconfig.schema import json_schema_text; "
        "print(json_schema_text(), end=\"\")' > docs/modelconfig.schema.json")
    schema = json.loads(published.read_text())
    files = config_files()
    assert [f.name for f in files] == ["llm-batch.batch-summarize.yaml", "llm.chat.yaml"]
    for file in files:
        jsonschema.validate(yaml.safe_load(file.read_text()), schema)
    broken = yaml.safe_load(files[1].read_text())
    broken["shedding"]["statusCode"] = 500
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


@pytest.mark.parametrize("spec", ["chat.yaml", "batch-summarize.yaml"])
def test_config_and_scaledobject_come_from_one_function(spec):
    """The config's scaler keys are exactly the trigger metadata's (minus KEDA's own address/TLS keys)."""
    model = load_spec(SPECS / spec)
    config = from_spec(model)
    keys = {k: v for k, v in trigger_metadata(model, derive(model)).items() if k not in ("scalerAddress", "enableTLS", "unsafeSsl")}
    settings = load_path(CONFIG_DIR).models[ModelKey(model.namespace, model.model.served_name)]
    assert dict(settings.metadata) == keys
    assert parse_config(to_yaml(config)) == config
    assert policy_config(config).ttft_slo_s == model.slo.ttft_p95_seconds
    assert policy_config(config) == meta.parse(settings.metadata).policy  # what the simulator gets is what serve runs


def test_every_trigger_metadata_key_can_be_set_per_model():
    """A setting the server reads but the file cannot carry would never reach the running system."""
    fields = {f.alias for f in ScalerSettings.model_fields.values()}
    assert set(meta.KEYS) - {"model"} == fields


def test_the_spec_prefill_throughput_reaches_the_scaledobject_config_and_policy():
    """calibration.prefillTokensPerSecond is the TTFT predictor's V: without a spec field no
    rendered deployment could turn the prefill term on."""
    model = load_spec(SPECS / "chat.yaml")
    assert "prefillTokensPerSecond" not in trigger_metadata(model, derive(model))  # absent: off, not a default
    tuned = model.model_copy(update={"calibration": model.calibration.model_copy(update={"prefill_tokens_per_second": 12_000.0})})
    assert trigger_metadata(tuned, derive(tuned))["prefillTokensPerSecond"] == "12000"
    assert policy_config(from_spec(tuned)).prefill_tps == 12_000.0


def test_rendered_settings_are_per_model():
    models = load_path(CONFIG_DIR).models
    chat, batch = models[CHAT_KEY].shedding, models[BATCH_KEY].shedding
    assert (chat.capacity_code, chat.quota_code) == (503, 429)
    assert (batch.capacity_code, batch.quota_code) == (429, 429)
    assert dict(chat.tenants)["partner-api"].quota_rps == 5 and dict(chat.tenants)["web"].weight == 3
    assert set(dict(batch.tenants)) == {"nightly-jobs"}


@pytest.mark.parametrize("edit, where", [
    (lambda d: d["scaler"].update(ttftSloSeconds="fast"), "scaler.ttftSloSeconds"),
    (lambda d: d["shedding"].update(statusCode=500), "shedding.statusCode"),
    (lambda d: d["shedding"]["tenants"][1].update(weight=-1), "shedding.tenants[1].weight"),
    (lambda d: d.update(kind="ModelSpec"), "kind"),
    (lambda d: d["scaler"].update(ttftSlo=2), "scaler.ttftSlo: no such field"),
])
def test_bad_files_name_the_file_and_field(edit, where, tmp_path):
    doc = yaml.safe_load((CONFIG_DIR / "llm.chat.yaml").read_text())
    edit(doc)
    (tmp_path / "chat.yaml").write_text(yaml.safe_dump(doc))
    with pytest.raises(ModelConfigError) as error:
        load_path(tmp_path)
    assert f"chat.yaml: {where}" in str(error.value)


def test_two_files_for_one_model_are_refused(tmp_path):
    for name in ("a.yaml", "b.yaml"):
        shutil.copy(CONFIG_DIR / "llm.chat.yaml", tmp_path / name)
    with pytest.raises(ModelConfigError, match="b.yaml: model: expected a model not configured by another file"):
        load_path(tmp_path)


def test_a_semantically_bad_config_changes_nothing():
    """Checked with the server's own metadata parser before anything is applied."""
    registry = ModelRegistry()
    good = load_path(CONFIG_DIR)
    apply(registry, good)
    doc = yaml.safe_load((CONFIG_DIR / "llm.chat.yaml").read_text())
    doc["scaler"]["expectedPrefillSeconds"] = 5.0  # not below the 1.5 s SLO
    bad = load_path(CONFIG_DIR)
    bad.models[CHAT_KEY] = load_path(_single(doc)).models[CHAT_KEY]
    with pytest.raises(ModelConfigError, match="scaler.expectedPrefillSeconds"):
        apply(registry, bad)
    assert registry.get(CHAT).config.expected_prefill_s == 0.25


def _single(doc: dict) -> Path:
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="modelconfig-")) / "one.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


# -- Enforcement through the real rate-limit service ------------------------------------------------

QUOTA_RPS, OFFERED_RPS, SECONDS = 5, 6, 30


def test_partner_api_quota_is_enforced_per_model_through_the_rls():
    """6 req/s from partner-api for 30 s of the registry's clock (time is a parameter of admission).

    The quota bucket holds one second of quota and starts full, so at most 5 x 30 + 5 = 155 of the
    180 requests are admitted: 25 to 30 refused with 429, about one a second. Web (weight only) and
    partner-api on batch-summarize (no quota there) are never refused.
    """
    now = [1000.0]
    registry = ModelRegistry(clock=lambda: now[0])
    harness = RlsHarness(registry=registry)
    try:
        async def configure():
            apply(registry, load_path(CONFIG_DIR))
        harness.run(configure())
        refused = {CHAT: [], "web": [], BATCH: []}
        for i in range(OFFERED_RPS * SECONDS):
            now[0] = 1000.0 + i / OFFERED_RPS
            for key, model, tenant in ((CHAT, CHAT, "partner-api"), ("web", CHAT, "web"), (BATCH, BATCH, "partner-api")):
                response = harness.call({"model": model, "tenant": tenant})
                if response.overall_code == OVER_LIMIT:
                    refused[key].append(response.dynamic_metadata["slo_scaler_status"])
        partner = refused[CHAT]
        print(f"partner-api: {len(partner)} of {OFFERED_RPS * SECONDS} refused over {SECONDS} s")
        assert (OFFERED_RPS - QUOTA_RPS) * SECONDS - QUOTA_RPS <= len(partner) <= (OFFERED_RPS - QUOTA_RPS) * SECONDS, partner
        assert set(partner) == {"429"}
        assert refused["web"] == [] and refused[BATCH] == []
    finally:
        harness.close()


# -- serve --config: load, hot reload on the kubelet's ..data swap, refusal of a bad update ----------

class KubeletVolume:
    """A ConfigMap volume as the kubelet's atomic writer lays it out and updates it."""

    def __init__(self, root: Path):
        self.root, self.version = root, 0

    def publish(self, files: dict[str, str]) -> None:
        self.version += 1
        new = self.root / f"..2026_11_30_00_00_0{self.version}.{os.getpid()}"
        new.mkdir()
        for name, text in files.items():
            (new / name).write_text(text)
        old = os.path.realpath(self.root / "..data") if (self.root / "..data").is_symlink() else None
        os.symlink(new.name, self.root / "..data_tmp")
        os.rename(self.root / "..data_tmp", self.root / "..data")  # the swap: one rename
        for name in files:
            if not (self.root / name).is_symlink():
                os.symlink(f"..data/{name}", self.root / name)
        if old:
            shutil.rmtree(old)


def _chat(slo: float | str) -> str:
    doc = yaml.safe_load((CONFIG_DIR / "llm.chat.yaml").read_text())
    doc["scaler"]["ttftSloSeconds"] = slo
    doc["scaler"]["source"], doc["scaler"]["scrapeTargets"] = "scrape", ["http://127.0.0.1:9/metrics"]
    del doc["scaler"]["prometheusAddress"]
    return yaml.safe_dump(doc)


def test_one_check_after_the_swap_applies_it(tmp_path):
    """The watcher's check (run once per poll) picks up a ..data swap at its first run, and only then."""
    volume = KubeletVolume(tmp_path)
    volume.publish({"llm.chat.yaml": _chat(1.5)})
    registry = ModelRegistry()
    watcher = ConfigWatcher(tmp_path, registry, interval_s=1.0)
    assert watcher.check() is True and registry.get(CHAT).config.ttft_slo_s == 1.5
    assert watcher.check() is None  # nothing changed: nothing reloaded
    volume.publish({"llm.chat.yaml": _chat(2.5)})
    assert watcher.check() is True and registry.get(CHAT).config.ttft_slo_s == 2.5
    volume.publish({"llm.chat.yaml": _chat("fast")})
    assert watcher.check() is False and registry.get(CHAT).config.ttft_slo_s == 2.5
    assert watcher.check() is None  # the same broken version is refused once, not every poll
    volume.publish({})  # the model removed from the ConfigMap: back to its trigger metadata alone
    assert watcher.check() is True and CHAT not in registry.configured and not registry.get(CHAT).pinned


def test_serve_config_reloads_on_the_kubelet_swap_and_keeps_the_last_good(tmp_path, caplog):
    volume = KubeletVolume(tmp_path)
    volume.publish({"llm.chat.yaml": _chat(1.5)})
    rls_port = free_port()
    scaler = InProcessScaler("--config", str(tmp_path), "--poll-interval", "0.2", "--rls-port", str(rls_port))
    channel = grpc.insecure_channel(f"127.0.0.1:{rls_port}")
    stub = channel.unary_unary(SHOULD_RATE_LIMIT.path, request_serializer=SHOULD_RATE_LIMIT.request.SerializeToString,
                               response_deserializer=SHOULD_RATE_LIMIT.response.FromString)
    try:
        slo = lambda: scaler.registry.get(CHAT).config.ttft_slo_s  # noqa: E731
        reloads = lambda result: metric(scaler.metrics_text(), "slo_scaler_config_reloads_total", result=result)  # noqa: E731
        assert slo() == 1.5 and reloads("applied") == 1

        # The config's quota is enforced by the serving RLS (the server flags set no tenants).
        codes = [stub(request({"model": CHAT, "tenant": "partner-api"}), timeout=5) for _ in range(12)]
        refused = [c.dynamic_metadata["slo_scaler_status"] for c in codes if c.overall_code == OVER_LIMIT]
        assert len(refused) >= 12 - QUOTA_RPS - 2 and set(refused) == {"429"}, refused

        volume.publish({"llm.chat.yaml": _chat(2.5)})
        poll_until(lambda: slo() == 2.5, 10, "the new SLO after the ..data swap")
        assert reloads("applied") == 2 and reloads("refused") == 0

        # KEDA keeps sending the ScaledObject's metadata: the config still wins.
        scaler.client.GetMetricSpec(ExternalScalerClient.ref({
            "model": CHAT, "source": "scrape", "scrapeTargets": "http://127.0.0.1:9/metrics", "ttftSloSeconds": "1.5"},
            namespace="llm"), timeout=5)
        assert slo() == 2.5

        volume.publish({"llm.chat.yaml": _chat("fast")})
        poll_until(lambda: reloads("refused") == 1, 10, "the broken update being refused")
        assert slo() == 2.5, "the last good config stays in force"
        assert metric(scaler.metrics_text(), "slo_scaler_config_last_reload_ok") == 0
        assert any("config refused: llm.chat.yaml: scaler.ttftSloSeconds" in r.getMessage()
                   and "last good config stays in force" in r.getMessage() for r in caplog.records)
    finally:
        channel.close()
        scaler.close()


def test_serve_refuses_a_config_path_that_does_not_exist(tmp_path):
    from scaler.server.app import StartupError

    with pytest.raises(StartupError, match="--config .*not found"):
        InProcessScaler("--config", str(tmp_path / "missing"))


def test_metadata_parser_accepts_every_rendered_config():
    for settings in load_path(CONFIG_DIR).models.values():
        meta.parse(settings.metadata)


# -- batch-summarize's 429 on capacity, end to end through a real Envoy with its rendered envoy.yaml --

def _loopback(envoy_yaml: str, listen: int, admin: int, upstream: int, rls_port: int) -> str:
    """The rendered envoy.yaml with only its addresses moved to loopback (no Kubernetes DNS here)."""
    config = yaml.safe_load(envoy_yaml)
    config["admin"]["address"]["socket_address"]["port_value"] = admin
    config["static_resources"]["listeners"][0]["address"]["socket_address"]["port_value"] = listen
    for cluster, port in zip(config["static_resources"]["clusters"], (upstream, rls_port)):
        cluster["type"] = "STATIC"
        endpoint = cluster["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]["address"]["socket_address"]
        endpoint.update(address="127.0.0.1", port_value=port)
    assert [c["name"] for c in config["static_resources"]["clusters"]] == ["model_upstream", "slo_scaler_rls"]
    return yaml.safe_dump(config, sort_keys=False)


@pytest.mark.integration
def test_batch_summarize_refuses_capacity_with_429_through_real_envoy(tmp_path):
    import urllib.error
    import urllib.request

    from envoy_helpers import EnvoyProcess
    from scaler_helpers import PageServer, vllm_page

    # One replica, a queue far past what the TTFT budget drains: the scaler goes RED.
    replica = PageServer(vllm_page(BATCH, waiting=600, running=128))
    doc = yaml.safe_load((CONFIG_DIR / "llm-batch.batch-summarize.yaml").read_text())
    scaler_keys = doc["scaler"]
    scaler_keys.update(scrapeTargets=[replica.url], perReplicaCapacity=1.0)  # a known capacity: no learning phase
    del scaler_keys["podSelector"]  # no Kubernetes here: the static target instead of discovery
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "batch.yaml").write_text(yaml.safe_dump(doc))
    rls_port = free_port()
    # Server-wide flags keep their defaults (capacity 503): the 429 can only come from the model's config.
    scaler = InProcessScaler("--config", str(tmp_path / "models"), "--poll-interval", "0.2", "--rls-port", str(rls_port))
    listen, admin = free_port(), free_port()
    rendered = (REPO / "manifests" / "examples" / "batch-summarize" / "envoy.yaml").read_text()
    envoy = EnvoyProcess(_loopback(rendered, listen, admin, replica.port, rls_port), admin, tmp_path, "envoy-batch")
    try:
        poll_until(lambda: metric(scaler.metrics_text(), "slo_scaler_state", model=BATCH, state="RED") == 1, 20,
                   "batch-summarize going RED")
        body = json.dumps({"model": BATCH, "prompt": "summarise", "max_tokens": 8}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{listen}/v1/completions", data=body,
                                     headers={"Content-Type": "application/json"}, method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req, timeout=10)
        error = json.loads(refused.value.read())["error"]
        assert refused.value.code == 429 and 1 <= int(refused.value.headers["retry-after"]) <= 60
        assert error["code"] == "overloaded", error  # capacity, not a tenant quota
        decisions = [line for line in scaler.metrics_text().splitlines()
                     if line.startswith("slo_scaler_rls_decisions_total{") and f'model="{BATCH}"' in line]
        assert any('code="429"' in line and "red-" in line for line in decisions), decisions
        assert not any('code="503"' in line for line in decisions), decisions
    finally:
        envoy.stop()
        scaler.close()
        replica.close()


def test_admission_takes_the_slot_queue_lines_from_the_models_own_policy():
    from scaler.admission.config import AdmissionConfig
    from scaler.modelconfig.runtime import ModelAdmission
    from scaler.policy.config import PolicyConfig

    models = ModelAdmission({}, AdmissionConfig(), shadow=False)
    config, shadow = models.for_model(("ns", "chat"), PolicyConfig(red_enter_ratio=0.6, red_exit_ratio=0.5))
    assert (config.miss_ratio, config.red_queue_ratio, shadow) == (0.6, 0.5, False)
    default, _ = models.for_model(("ns", "other"), PolicyConfig())
    assert (default.miss_ratio, default.red_queue_ratio) == (PolicyConfig.red_enter_ratio, PolicyConfig.red_exit_ratio)
    changed, _ = models.for_model(("ns", "chat"), PolicyConfig(red_enter_ratio=0.9, red_exit_ratio=0.5))
    assert changed.miss_ratio == 0.9  # a changed trigger is not served from the cache
