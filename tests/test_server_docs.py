"""docs/scaler.md cannot drift: its ScaledObject example is valid for KEDA's CRD and for the
server's parser, and its tables name every metadata key, every serve flag and every metric."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from scaler.cli import build_parser
from scaler.server import metadata
from scaler.server.app import ScalerApp
from scaler_helpers import serve_args
from test_manifests_schemas import validate

DOC = (Path(__file__).resolve().parents[1] / "docs" / "scaler.md").read_text()


def yaml_blocks() -> list[dict]:
    return [doc for block in re.findall(r"```yaml\n(.*?)```", DOC, re.S) for doc in yaml.safe_load_all(block) if doc]


def test_scaledobject_example_is_valid_for_keda_and_for_the_server():
    objects = {obj["kind"]: obj for obj in yaml_blocks()}
    assert set(objects) == {"ScaledObject", "TriggerAuthentication"}
    for obj in objects.values():
        validate(obj)  # the upstream CRD, strict
    trigger = objects["ScaledObject"]["spec"]["triggers"][0]
    parsed = metadata.parse(trigger["metadata"], namespace=objects["ScaledObject"]["metadata"]["namespace"])
    assert parsed.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert parsed.source.discovery_key == ("llm", "serving.kserve.io/inferenceservice=llama-8b")
    assert parsed.policy.scale_up_latency_s is None and parsed.policy.per_replica_capacity_rps == 3.0


def test_every_metadata_key_flag_and_metric_is_documented():
    for key in metadata.KEYS:
        assert f"`{key}`" in DOC, key
    serve = build_parser()._subparsers._group_actions[0].choices["serve"]
    ours = [a for a in serve._actions if a.option_strings and not a.option_strings[0].startswith(("-h", "--rls"))]
    documented = set(re.findall(r"`(--[a-z-]+)", DOC))
    rls_group = {a.option_strings[0] for g in serve._action_groups if "rate-limit" in (g.title or "")
                 for a in g._group_actions}
    for action in ours:
        if action.option_strings[0] not in rls_group:
            assert action.option_strings[0] in documented, action.option_strings[0]
    families = {metric.name for metric in ScalerApp(serve_args()).metrics_registry.collect()}
    for name in families:
        assert f"`{name}" in DOC or f"`{name}_total" in DOC, name
