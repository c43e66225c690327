"""Load a spec from YAML: parse, validate types, check cross-field rules, report every issue.

`load_spec(path)` is what every other part should call. Errors are `SpecError`, whose `issues`
each name a field path (`runtime.gpu.count`, `shedding.tenants[1].name`) and what was expected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import yaml
from pydantic import BaseModel, ValidationError

from scaler.spec.checks import Issue, check
from scaler.spec.model import ModelSpec
from scaler.spec.types import PATTERN_HELP

MAX_SPEC_BYTES = 1 << 20


class SpecError(ValueError):
    """A spec that cannot be used. `source` is the file (or '<input>'), `issues` say why."""

    def __init__(self, source: str, issues: Iterable[Issue]):
        self.source = source
        self.issues = list(issues)
        lines = "\n".join(f"  {issue}" for issue in self.issues)
        super().__init__(f"{source}: invalid model spec\n{lines}")


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys instead of silently keeping the last one."""


def _mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    seen: set = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
UniqueKeyLoader = _UniqueKeyLoader  # also used for serve --config files (scaler.modelconfig)


def load_spec(path: str | Path) -> ModelSpec:
    """Read and validate one spec file."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError(str(path), [Issue("(file)", f"a readable file: {exc.strerror}")]) from None
    if len(raw) > MAX_SPEC_BYTES:
        raise SpecError(str(path), [Issue("(file)", f"at most {MAX_SPEC_BYTES} bytes", len(raw))])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SpecError(str(path), [Issue("(file)", "UTF-8 text")]) from None
    return parse_spec(text, source=str(path))


def parse_spec(data: str | dict[str, Any], source: str = "<input>") -> ModelSpec:
    """Validate a spec given as YAML text or as an already-parsed mapping."""
    if isinstance(data, str):
        try:
            docs = list(yaml.load_all(data, Loader=_UniqueKeyLoader))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(document)"
            problem = getattr(exc, "problem", None) or str(exc)
            raise SpecError(source, [Issue(f"(yaml {where})", f"valid YAML: {problem}")]) from None
        if len(docs) != 1:
            raise SpecError(source, [Issue("(document)", "exactly one YAML document per spec file", len(docs))])
        data = docs[0]
    if not isinstance(data, dict):
        raise SpecError(source, [Issue("(document)", "a mapping of spec fields", type(data).__name__)])
    try:
        spec = ModelSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(source, [_issue(err) for err in exc.errors()]) from None
    issues = check(spec)
    if issues:
        raise SpecError(source, issues)
    return spec


def _path(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(document)"


def _issue(err: dict) -> Issue:
    loc, kind, got = err["loc"], err["type"], err.get("input")
    if kind == "string_pattern_mismatch":
        pattern = err["ctx"]["pattern"]
        return Issue(_path(loc), PATTERN_HELP.get(pattern, f"a string matching {pattern}"), got)
    if kind == "extra_forbidden":
        allowed = _allowed_keys(loc[:-1])
        return Issue(_path(loc), f"a known field ({', '.join(allowed)})" if allowed else "no field here")
    if kind == "missing":
        return Issue(_path(loc), "a value (this field is required)")
    if kind == "value_error":
        return Issue(_path(loc), str(err["ctx"]["error"]), got)
    message = err["msg"]
    message = message[len("Input should be ") :] if message.startswith("Input should be ") else message[:1].lower() + message[1:]
    return Issue(_path(loc), message, got if not isinstance(got, (dict, list)) else None)


def _allowed_keys(loc: tuple) -> list[str]:
    """The field names (YAML spelling) of the model at `loc`, for 'did you mean' messages."""
    model: type[BaseModel] | None = ModelSpec
    for part in loc:
        if model is None:
            return []
        if isinstance(part, int):
            continue
        field = next((f for name, f in model.model_fields.items() if (f.alias or name) == part), None)
        model = _model_of(field.annotation) if field else None
    if model is None:
        return []
    return [f.alias or name for name, f in model.model_fields.items()]


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_of(arg)
        if found is not None:
            return found
    return None
