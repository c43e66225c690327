"""Jinja filters that make every value safe where it lands.

Templates never write a spec value raw: strings go through `q` (a JSON string, which is a
double-quoted YAML scalar, so no value can open a key, a list or a comment), numbers through
`num` (refuses anything that is not a real number), label values inside PromQL through `promql`
(a PromQL string literal). Each filter raises on a value of the wrong type instead of coercing it.
"""

from __future__ import annotations

import json
import math
import re

# Characters PromQL string literals accept unescaped here; the spec's patterns are stricter still.
_PROMQL_SAFE = re.compile(r"^[A-Za-z0-9._/:=,@+%-]*$")


class UnsafeValue(ValueError):
    """A value that a template tried to write but that has no safe rendering."""


def q(value: object) -> str:
    if not isinstance(value, str):
        raise UnsafeValue(f"q filter expects a string, got {type(value).__name__} {value!r}")
    return json.dumps(value, ensure_ascii=True)


def num(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise UnsafeValue(f"num filter expects a finite number, got {value!r}")
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def yaml_bool(value: object) -> str:
    if not isinstance(value, bool):
        raise UnsafeValue(f"bool filter expects a bool, got {value!r}")
    return "true" if value else "false"


def promql(value: object) -> str:
    """A PromQL double-quoted string literal for a label value."""
    if not isinstance(value, str) or not _PROMQL_SAFE.match(value):
        raise UnsafeValue(f"promql filter refuses {value!r}: only letters, digits and ._/:=,@+%- may reach a PromQL selector")
    return '"' + value + '"'


def chomp(text: str) -> str:
    """Drop the trailing newline of a macro's output, so the calling line supplies it."""
    return text.rstrip("\n")


FILTERS = {"q": q, "num": num, "bool": yaml_bool, "promql": promql, "chomp": chomp}
