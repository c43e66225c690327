"""Read `serve --config DIR|FILE`: every `*.yaml` of a directory (a mounted ConfigMap) or one file.

A Kubernetes ConfigMap volume is a directory whose keys are symlinks into `..data`, itself a
symlink to a timestamped directory the kubelet swaps in one rename on every update. Reading
through the resolved `..data` target reads one consistent version even while a swap happens.
Errors name the file, the field path and what was expected; nothing is half-loaded.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from scaler.modelconfig.runtime import ModelSettings, settings_of
from scaler.modelconfig.schema import ModelConfig
from scaler.server.metadata import ModelKey
from scaler.spec.load import UniqueKeyLoader

MAX_FILE_BYTES = 1 << 20
KUBELET_DATA = "..data"
IGNORED = {"kustomization.yaml"}  # so the rendered directory itself can be passed to --config


class ModelConfigError(ValueError):
    """A config that cannot be used: `problems` are 'file: field: expected ...' lines."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class LoadedConfig:
    models: dict[ModelKey, ModelSettings]  # by (scaler.namespace or "", model): a served name per namespace
    version: str  # the ..data target (a ConfigMap's version) or the file list: for logs


def _files(path: Path) -> tuple[Path, list[Path], str]:
    if path.is_dir():
        data = path / KUBELET_DATA
        base = Path(os.path.realpath(data)) if data.is_symlink() else path
        files = sorted(p for p in base.iterdir() if p.suffix in (".yaml", ".yml") and not p.name.startswith(".") and p.name not in IGNORED)
        return base, files, base.name if base != path else "files"
    return path.parent, [path], "file"


def fingerprint(path: Path) -> tuple:
    """Changes whenever what `load_path` would read changes (a ..data swap, a new inode, an edit)."""
    try:
        _, files, version = _files(path)
        stats = tuple((p.name, st.st_ino, st.st_mtime_ns, st.st_size) for p in files for st in [p.stat()])
    except OSError as exc:
        return ("unreadable", str(exc))
    return version, stats


def load_path(path: str | Path) -> LoadedConfig:
    path = Path(path)
    if not path.exists():
        raise ModelConfigError([f"{path}: expected a directory of model config files or one file (not found)"])
    try:
        _, files, version = _files(path)
    except OSError as exc:
        raise ModelConfigError([f"{path}: expected a readable directory ({exc.strerror})"]) from None
    models: dict[ModelKey, ModelSettings] = {}
    problems: list[str] = []
    for file in files:
        try:
            config = parse_config(_read(file), source=file.name)
        except ModelConfigError as exc:
            problems += exc.problems
            continue
        key = ModelKey(config.scaler.namespace, config.model)
        if key in models:
            problems.append(f"{file.name}: model: expected a model not configured by another file "
                            f"({models[key].source} has {str(key)!r})")
            continue
        models[key] = settings_of(config, file.name)
    if problems:
        raise ModelConfigError(problems)
    return LoadedConfig(models, version)


def _read(file: Path) -> str:
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise ModelConfigError([f"{file.name}: expected a readable file ({exc.strerror})"]) from None
    if len(raw) > MAX_FILE_BYTES:
        raise ModelConfigError([f"{file.name}: expected at most {MAX_FILE_BYTES} bytes"])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelConfigError([f"{file.name}: expected UTF-8 text"]) from None


def parse_config(text: str, source: str = "<input>") -> ModelConfig:
    try:
        doc = yaml.load(text, Loader=UniqueKeyLoader)
    except yaml.YAMLError as exc:
        raise ModelConfigError([f"{source}: expected valid YAML ({getattr(exc, 'problem', None) or exc})"]) from None
    if not isinstance(doc, dict):
        raise ModelConfigError([f"{source}: expected a mapping (apiVersion, kind, model, scaler, shedding)"])
    try:
        return ModelConfig.model_validate(doc)
    except ValidationError as exc:
        raise ModelConfigError([f"{source}: {_where(e['loc'])}: {_expected(e)}" for e in exc.errors()]) from None


def _where(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(document)"


def _expected(err: dict) -> str:
    kind, got = err["type"], err.get("input")
    if kind == "extra_forbidden":
        return "no such field"
    if kind == "missing":
        return "a value (required)"
    message = err["msg"]
    message = message[len("Input should be "):] if message.startswith("Input should be ") else message
    shown = "" if isinstance(got, (dict, list)) or got is None else f" (got {str(got)[:60]!r})"
    return f"expected {message}{shown}"
