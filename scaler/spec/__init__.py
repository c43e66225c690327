"""The typed model spec: load it with `load_spec(path)`; errors are `SpecError` with field paths."""

from scaler.spec.checks import Issue
from scaler.spec.load import SpecError, load_spec, parse_spec
from scaler.spec.model import REQUEST_CLASSES, ModelSpec
from scaler.spec.schema import json_schema
from scaler.spec.types import AUTO

__all__ = ["AUTO", "Issue", "ModelSpec", "REQUEST_CLASSES", "SpecError", "json_schema", "load_spec", "parse_spec"]
