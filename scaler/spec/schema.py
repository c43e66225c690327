"""The published JSON Schema of the model spec (docs/spec.schema.json, kept in sync by a test).

Editors use it for completion and checking: add `# yaml-language-server: $schema=...` to a spec.
"""

from __future__ import annotations

import json

from scaler.spec.model import ModelSpec

SCHEMA_ID = "https://slo-scaler.io/schemas/model-spec.v1alpha1.json"


def json_schema() -> dict:
    schema = ModelSpec.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def json_schema_text() -> str:
    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
