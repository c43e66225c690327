"""Apply `serve --config` to the running registry and keep it current.

`ConfigWatcher.check()` (called every poll interval by `run()`) reloads when the path's
fingerprint changes: the kubelet's `..data` swap, a replaced or edited file. A new version is
validated completely (types, then every model's metadata with the server's own parser and
defaults) before anything changes; a bad one is refused with one log line per problem and
`slo_scaler_config_reloads_total{result="refused"}`, and the last good version stays in force.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from pathlib import Path
from typing import Callable

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from scaler.modelconfig.load import LoadedConfig, ModelConfigError, fingerprint, load_path
from scaler.policy.config import ConfigError
from scaler.server import metadata as meta

log = logging.getLogger("scaler.modelconfig")


def apply(registry, loaded: LoadedConfig) -> None:
    """Make `loaded` the per-model settings of `registry` (a scaler.server.registry.ModelRegistry).

    All models are checked first, so a bad one changes nothing. Configured models are polled from
    now on (pinned); a model dropped from the config goes back to its trigger metadata alone.
    """
    problems = []
    for settings in loaded.models.values():
        try:
            meta.check_sizes(settings.metadata)  # what registry.ensure checks too: it must not fail halfway
            meta.parse(settings.metadata, registry.defaults)
        except ConfigError as error:
            problems.append(f"{settings.source}: scaler.{error}")
    if problems:
        raise ModelConfigError(problems)
    dropped = set(registry.configured) - set(loaded.models)
    # In place and key by key: the rate-limit service reads these from its own threads, and a
    # model kept by the new version must never be seen without settings in between. Keyed by
    # (namespace, model), as the registry is.
    _replace(registry.configured, {key: dict(s.metadata) for key, s in loaded.models.items()})
    _replace(registry.shedding, {key: s.shedding for key, s in loaded.models.items()})
    for settings in loaded.models.values():
        registry.ensure(settings.metadata, pinned=True)
    for key in dropped:
        entry = registry.entry(key)
        if entry is not None:
            entry.pinned, entry.owner = False, None  # its ScaledObject configures it again


def _replace(target: dict, new: dict) -> None:
    for name in [name for name in target if name not in new]:
        del target[name]
    target.update(new)


class ConfigWatcher:
    def __init__(self, path: str | Path, registry, interval_s: float, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.registry = registry
        self.interval_s = interval_s
        self.clock = clock
        self.reloads: Counter[str] = Counter()  # result -> count
        self.good: LoadedConfig | None = None
        self.good_at: float | None = None
        self.last_ok = False
        self.last_error: str | None = None
        self._seen: tuple | None = None

    def check(self) -> bool | None:
        """Reload if the files changed: True applied, False refused (the last good stays), None unchanged."""
        seen = fingerprint(self.path)
        if seen == self._seen:
            return None
        self._seen = seen
        try:
            loaded = load_path(self.path)
            apply(self.registry, loaded)
        except ModelConfigError as error:
            self.reloads["refused"] += 1
            self.last_ok, self.last_error = False, str(error)
            kept = "the last good config stays in force" if self.good else "no config applied yet"
            for problem in error.problems:
                log.error("config refused: %s (%s)", problem, kept, extra={"fields": {"event": "config_refused", "path": str(self.path),
                                                              "problem": problem, "kept": kept}})
            return False
        self.reloads["applied"] += 1
        self.good, self.good_at, self.last_ok, self.last_error = loaded, self.clock(), True, None
        names = sorted(str(key) for key in loaded.models)
        log.info("config applied: %s", ", ".join(names), extra={"fields": {"event": "config_applied", "path": str(self.path),
                                                     "version": loaded.version, "models": names}})
        return True

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                self.check()
            except Exception:  # never let a reload bug stop the watch (or the server)
                log.exception("config check failed", extra={"fields": {"event": "config_check_error"}})

    def collect(self):
        """prometheus_client Collector protocol: the reload outcome series."""
        reloads = CounterMetricFamily("slo_scaler_config_reloads", "serve --config loads by result (applied, refused)",
                                      labels=["result"])
        for result in ("applied", "refused"):
            reloads.add_metric([result], self.reloads[result])
        yield reloads
        yield GaugeMetricFamily("slo_scaler_config_last_reload_ok",
                                "1 if the latest version of serve --config was applied, 0 if it was refused",
                                value=1.0 if self.last_ok else 0.0)
        yield GaugeMetricFamily("slo_scaler_config_models", "models configured by the config in force",
                                value=float(len(self.good.models)) if self.good else 0.0)
        if self.good_at is not None:
            yield GaugeMetricFamily("slo_scaler_config_applied_timestamp_seconds",
                                    "when the config in force was applied (Unix time)", value=self.good_at)
