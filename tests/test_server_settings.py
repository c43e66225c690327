"""Server-wide settings: metadata defaults from flags and SLO_SCALER_DEFAULT_* variables, and the
--models file; bad input stops `serve` with exit code 2 and a message naming what is wrong."""

from __future__ import annotations

import pytest

from scaler.cli import main
from scaler.server import settings
from scaler.server.app import StartupError, build_registry
from scaler_helpers import serve_args


def test_defaults_from_environment_overridden_by_flags():
    env = {"SLO_SCALER_DEFAULT_TTFT_SLO_SECONDS": "3", "SLO_SCALER_DEFAULT_PROMETHEUS_ADDRESS": "http://prom:9090",
           "PATH": "/usr/bin"}
    got = settings.defaults(["ttftSloSeconds=1.5", "requestClass = batch"], env)
    assert got == {"ttftSloSeconds": "1.5", "prometheusAddress": "http://prom:9090", "requestClass": "batch"}
    assert settings.env_name("scaleUpLatencySeconds") == "SLO_SCALER_DEFAULT_SCALE_UP_LATENCY_SECONDS"


@pytest.mark.parametrize("flags, env, message", [
    (["ttftSloSeconds"], {}, "--default 'ttftSloSeconds': expected KEY=VALUE"),
    (["model=llama"], {}, "server default model: expected a metadata key that takes a server default"),
    (["ttftSlo=2"], {}, "server default ttftSlo: expected a metadata key"),
    (["targetUtilization=2"], {}, "server default targetUtilization: expected a number in (0.0, 1.0]"),
    ([], {"SLO_SCALER_DEFAULT_TTFT": "2"}, "environment SLO_SCALER_DEFAULT_TTFT: expected one of"),
    ([], {"SLO_SCALER_DEFAULT_PROMETHEUS_ADDRESS": "prom:9090"}, "server default prometheusAddress: expected an http"),
])
def test_bad_defaults_name_the_flag_or_variable(monkeypatch, flags, env, message):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(StartupError) as error:
        build_registry(serve_args(*[arg for flag in flags for arg in ("--default", flag)]))
    assert message in str(error.value)


def test_models_file_registers_pinned_models(tmp_path):
    path = tmp_path / "models.yaml"
    path.write_text("""
- model: meta-llama/Llama-3.1-8B-Instruct
  source: scrape
  scrapeTargets: http://10.0.0.1:8080, http://10.0.0.2:8080
  ttftSloSeconds: 2          # YAML numbers are fine
  perReplicaCapacity: auto
- model: batch-summarizer
  requestClass: batch
""")
    registry = build_registry(serve_args("--models", str(path), "--default", "prometheusAddress=http://prom:9090"))
    llama = registry.get("meta-llama/Llama-3.1-8B-Instruct")
    assert llama.pinned and llama.config.ttft_slo_s == 2.0 and llama.config.per_replica_capacity_rps is None
    assert llama.metadata.source.scrape_targets == ("http://10.0.0.1:8080/metrics", "http://10.0.0.2:8080/metrics")
    batch = registry.get("batch-summarizer")
    assert batch.metadata.source.prometheus_address == "http://prom:9090" and batch.config.request_class == "batch"


@pytest.mark.parametrize("content, message", [
    ("model: x\n", "expected a YAML list of mappings"),
    ("- model: ok\n  prometheusAddress: http://p:9090\n- just-a-string\n", "item 1: expected a mapping"),
    ("- model: ok\n  prometheusAddress: {nested: map}\n", "item 0: prometheusAddress: expected a scalar value"),
    ("- model: ok\n  prometheusAddress: http://p:9090\n- model: 'bad name'\n  prometheusAddress: http://p:9090\n",
     "item 1: model: expected the vLLM model_name"),
    ("- model: ok\n  source: scrape\n", "item 0: scrapeTargets: expected"),
    ("- [unclosed\n", "while parsing"),
])
def test_bad_models_file_stops_serve_naming_the_item_and_key(tmp_path, capsys, content, message):
    path = tmp_path / "models.yaml"
    path.write_text(content)
    assert main(["serve", "--models", str(path), "--grpc-port", "0", "--metrics-port", "0", "--rls-port", "0",
                 "--discovery", "off"]) == 2
    err = capsys.readouterr().err
    assert f"serve: --models {path}: " in err and message in err, err
