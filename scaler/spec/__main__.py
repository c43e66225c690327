"""`python -m scaler.spec` prints the spec's JSON Schema (regenerate docs/spec.schema.json with it)."""

import sys

from scaler.spec.schema import json_schema_text

sys.stdout.write(json_schema_text())
