"""Server-wide settings read in one place: metadata defaults (flags and environment) and the
--models file. Errors name the flag, variable or file item and what was expected."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping

import yaml

from scaler.server import metadata as meta

ENV_PREFIX = "SLO_SCALER_DEFAULT_"


def env_name(key: str) -> str:
    """ttftSloSeconds -> SLO_SCALER_DEFAULT_TTFT_SLO_SECONDS."""
    return ENV_PREFIX + re.sub(r"(?<!^)([A-Z])", r"_\1", key).upper()


def defaults(flags: list[str], environ: Mapping[str, str]) -> dict[str, str]:
    """Metadata defaults from SLO_SCALER_DEFAULT_* variables, overridden by --default KEY=VALUE.
    Their values are checked where they are used: ModelRegistry(defaults)."""
    by_env = {env_name(key): key for key in meta.KEYS if key not in meta.NO_DEFAULT}
    out: dict[str, str] = {}
    for name, value in environ.items():
        if name.startswith(ENV_PREFIX):
            if name not in by_env:
                raise ValueError(f"environment {name}: expected one of {', '.join(sorted(by_env))}")
            out[by_env[name]] = value
    for flag in flags:
        key, sep, value = flag.partition("=")
        if not sep or not key:
            raise ValueError(f"--default {flag!r}: expected KEY=VALUE with a metadata key, e.g. ttftSloSeconds=2")
        out[key.strip()] = value.strip()
    return out


def load_models(path: str | Path) -> list[dict[str, str]]:
    """A YAML list of mappings with the trigger metadata keys (values as KEDA would pass them)."""
    try:
        items = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as error:
        raise ValueError(f"--models {path}: {error}") from None
    if not isinstance(items, list):
        raise ValueError(f"--models {path}: expected a YAML list of mappings of metadata keys")
    out = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(f"--models {path}: item {index}: expected a mapping of metadata keys")
        metadata = {}
        for key, value in item.items():
            if not isinstance(key, str) or isinstance(value, (dict, list)) or value is None:
                raise ValueError(f"--models {path}: item {index}: {key}: expected a scalar value")
            metadata[key] = str(value).lower() if isinstance(value, bool) else str(value)
        out.append(metadata)
    return out
