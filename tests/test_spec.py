"""The model spec: examples load, every bad value is reported with its field path and what was
expected, all issues at once, and the published JSON Schema matches the model."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from scaler.spec import SpecError, json_schema, load_spec, parse_spec
from scaler.spec.schema import json_schema_text

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((REPO / "manifests" / "examples" / "specs").glob("*.yaml"))
CHAT = REPO / "manifests" / "examples" / "specs" / "chat.yaml"


def base() -> dict:
    return yaml.safe_load(CHAT.read_text())


def test_examples_load():
    specs = {p.stem: load_spec(p) for p in EXAMPLES}
    assert set(specs) == {"chat", "batch-summarize"}
    assert specs["chat"].request_class == "interactive" and specs["batch-summarize"].request_class == "batch"
    assert specs["chat"].runtime.gpu.resource == "nvidia.com/gpu"
    assert specs["batch-summarize"].calibration.per_replica_capacity == "auto"
    # The spec file's name is the model's name, so examples/<spec name>/ is the rendered directory.
    assert all(spec.name == stem for stem, spec in specs.items())


def _set(doc: dict, path: str, value):
    *parents, last = path.split(".")
    node = doc
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
    if value is _DELETE:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return doc


_DELETE = object()

# (label, field to change, value, issue path, words of the message)
INVALID = [
    ("missing name", "name", _DELETE, "name", "required"),
    ("upper-case name", "name", "Chat", "name", "DNS-1123 label"),
    ("name with quote and newline", "name", 'chat"\nkind: Secret', "name", "DNS-1123 label"),
    ("name too long", "name", "a" * 41, "name", "at most 40"),
    ("unknown top-level field", "replica", 3, "replica", "a known field (apiVersion, kind, name"),
    ("unknown nested field", "runtime.gpu.kind", "a100", "runtime.gpu.kind", "a known field (resource, count)"),
    ("wrong apiVersion", "apiVersion", "v1", "apiVersion", "slo-scaler.io/v1alpha1"),
    ("gpu count zero", "runtime.gpu.count", 0, "runtime.gpu.count", "greater than or equal to 1"),
    ("gpu count as string", "runtime.gpu.count", "1", "runtime.gpu.count", "valid integer"),
    ("bool as a number", "slo.ttftP95Seconds", True, "slo.ttftP95Seconds", "valid number"),
    ("capacity neither number nor auto", "calibration.perReplicaCapacity", "fast", "calibration.perReplicaCapacity", "greater than 0 or 'auto'"),
    ("negative latency", "calibration.scaleUpLatencySeconds", -5, "calibration.scaleUpLatencySeconds", "greater than 0 or 'auto'"),
    ("unknown request class", "requestClass", "urgent", "requestClass", "'interactive', 'agent', 'background' or 'batch'"),
    ("served name with PromQL", "model.servedName", 'x"} or vector(1) #', "model.servedName", "served model name"),
    ("model uri with space", "model.uri", "hf://org/my model", "model.uri", "model URI"),
    ("arg with newline", "runtime.args.0", "--max-model-len=1\n--x", "runtime.args[0]", "one command-line argument"),
    ("arg with template", "runtime.args.0", "{{ 7*7 }}", "runtime.args[0]", "one command-line argument"),
    ("node selector value with colon-space", "runtime.nodeSelector.pool", "a: b", "runtime.nodeSelector.pool", "label value"),
    ("tenant name with newline", "shedding.tenants.0.name", "web\nx", "shedding.tenants[0].name", "label value"),
    ("status code 500", "shedding.statusCode", 500, "shedding.statusCode", "429 or 503"),
    ("prometheus url with quote", "scaler.prometheusAddress", 'http://p:9090/"x', "scaler.prometheusAddress", "http(s) URL"),
    ("istio host with colon", "gateway.istio.host", "x: y", "gateway.istio.host", "host name"),
    ("p99 below p95", "slo.ttftP99Seconds", 1.0, "slo.ttftP99Seconds", "at least slo.ttftP95Seconds"),
    ("prefill eats the SLO", "calibration.expectedPrefillSeconds", 1.5, "calibration.expectedPrefillSeconds", "less than slo.ttftP95Seconds"),
    ("prompt weight without prefill throughput", "calibration.capacityPromptTokens", 512, "calibration.capacityPromptTokens",
     "only with calibration.prefillTokensPerSecond"),
    ("peak below base", "traffic.peakRequestsPerSecond", 1, "traffic.peakRequestsPerSecond", "at least traffic.baseRequestsPerSecond"),
    ("min above max", "replicas.min", 20, "replicas.min", "at most replicas.max"),
    ("warm pool above max", "replicas.warmPool", 20, "replicas.warmPool", "at most replicas.max"),
    ("tls without secret", "scaler.tls.secretName", _DELETE, "scaler.tls.secretName", "Secret"),
    ("reserved vLLM argument", "runtime.args.0", "--port=9000", "runtime.args[0]", "the renderer sets it"),
    ("shutdown timeout disagrees", "runtime.args.0", "--shutdown-timeout=10", "runtime.args[0]", "runtime.shutdownTimeoutSeconds"),
    ("prometheus source without address", "scaler.prometheusAddress", _DELETE, "scaler.prometheusAddress", "a Prometheus URL"),
    ("istio gateway without istio block", "gateway.istio", _DELETE, "gateway.istio", "when gateway.kind is 'istio'"),
    ("hysteresis inverted", "scaler.thresholds", {"yellowExitRatio": 0.5, "yellowEnterRatio": 0.4}, "scaler.thresholds.yellowExitRatio", "hysteresis"),
    ("warm pool without warm latency", "calibration.warmScaleUpLatencySeconds", _DELETE, "calibration.warmScaleUpLatencySeconds", "warmPool > 0"),
]


@pytest.mark.parametrize("label, field, value, path, words", INVALID, ids=[c[0] for c in INVALID])
def test_invalid_spec_names_field_and_expectation(label, field, value, path, words):
    doc = _set(base(), field, value)
    with pytest.raises(SpecError) as err:
        parse_spec(doc, source="chat.yaml")
    issues = {i.path: str(i) for i in err.value.issues}
    assert path in issues, f"{label}: issues were {list(issues.values())}"
    assert words in issues[path], issues[path]
    assert str(err.value).startswith("chat.yaml: invalid model spec")


def test_all_issues_are_reported_at_once():
    doc = _set(_set(base(), "runtime.gpu.count", 0), "name", "Bad Name")
    with pytest.raises(SpecError) as err:
        parse_spec(doc)
    assert {i.path for i in err.value.issues} >= {"runtime.gpu.count", "name"}


@pytest.mark.parametrize("text, words", [
    ("name: a\nname: b\n", "duplicate key 'name'"),
    ("a: [1,\n", "valid YAML"),
    ("- 1\n- 2\n", "a mapping of spec fields"),
    ("a: 1\n---\nb: 2\n", "exactly one YAML document"),
])
def test_bad_yaml_documents(text, words):
    with pytest.raises(SpecError, match="invalid model spec") as err:
        parse_spec(text)
    assert words in str(err.value)


def test_load_spec_reports_missing_file(tmp_path):
    with pytest.raises(SpecError, match="a readable file"):
        load_spec(tmp_path / "nope.yaml")


def test_trailing_newline_does_not_slip_past_a_pattern():
    """Python's `re` lets `$` match before a final newline; the spec's patterns must not."""
    with pytest.raises(SpecError, match="namespace"):
        parse_spec(_set(base(), "namespace", "llm\n"))


def test_published_schema_is_in_sync():
    published = (REPO / "docs" / "spec.schema.json").read_text()
    assert published == json_schema_text(), "regenerate with: python -m scaler.spec > docs/spec.schema.json"


def test_published_schema_accepts_examples_and_rejects_bad_specs():
    schema = json.loads((REPO / "docs" / "spec.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for path in EXAMPLES:
        validator.validate(yaml.safe_load(path.read_text()))
    for field, value in [("name", "Bad"), ("runtime.gpu.count", 0), ("calibration.perReplicaCapacity", "fast"), ("extra", 1)]:
        with pytest.raises(jsonschema.ValidationError):
            validator.validate(_set(base(), field, value))


def test_spec_is_frozen_and_round_trips():
    spec = load_spec(CHAT)
    with pytest.raises(Exception):
        spec.name = "other"
    again = parse_spec(spec.model_dump(by_alias=True, exclude_none=True))
    assert again == spec
    assert json_schema()["properties"]["requestClass"]["enum"] == ["interactive", "agent", "background", "batch"]


def test_copy_of_base_is_valid():
    parse_spec(copy.deepcopy(base()))
