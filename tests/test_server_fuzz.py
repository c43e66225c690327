"""Hypothesis against the two doors hostile input comes through: trigger metadata (every KEDA
call) and the /metrics exposition (every scrape). Whatever arrives, the answer is a ConfigError
naming a key, a parsed page of finite non-negative numbers, or a ValueError: never a crash."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scaler.policy.config import ConfigError
from scaler.server import metadata as meta
from scaler.server.registry import ModelRegistry
from scaler.sources.vllm import COMPLETED, RUNNING, WAITING, parse_page

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), st.integers().map(str),
                    st.sampled_from(["auto", "1e-8", "5e-324", "1e308", "-0", "0x10", " 1 ", "", "nan", "1_000"]))
VALUES = st.one_of(NUMBERS, st.text(max_size=40), st.text(alphabet="ab=,!/.:-_", max_size=30))
KEYS = st.one_of(st.sampled_from(meta.KEYS), st.sampled_from(["scalerAddress", "enableTLS", "unsafeSsl"]),
                 st.text(max_size=20))


@FUZZ
@given(st.dictionaries(KEYS, VALUES, max_size=12))
def test_any_metadata_is_accepted_or_a_config_error_naming_a_key(extra):
    registry = ModelRegistry()
    metadata = {"model": "m", "source": "scrape", "scrapeTargets": "http://10.0.0.1:8080", **extra}
    try:
        entry = registry.ensure(metadata)
    except ConfigError as error:
        assert str(error).startswith(f"{error.key}: expected"), str(error)
        return
    values = entry.config.to_metadata()
    for key, (low, high) in meta.RANGES.items():  # whatever got through is within its physical range
        if values.get(key, "auto") != "auto":
            assert low <= float(values[key]) <= high, (key, values[key])
    assert entry.config.budget_s >= meta.MIN_BUDGET_S


LABEL_VALUES = st.text(alphabet=st.characters(blacklist_characters='"\\\n'), max_size=12)
SAMPLE = st.tuples(st.sampled_from([WAITING, RUNNING, COMPLETED, "vllm:other", "x"]),
                   st.dictionaries(st.sampled_from(["model_name", "engine", "finished_reason"]), LABEL_VALUES,
                                   max_size=3),
                   st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), st.text(max_size=8)))


def _page(samples) -> str:
    lines = []
    for name, labels, value in samples:
        inner = ",".join(f'{k}="{v}"' for k, v in labels.items())
        lines.append(f"{name}{{{inner}}} {value}" if inner else f"{name} {value}")
    return "\n".join(lines) + "\n"


def _check(text: str) -> None:
    try:
        parsed = parse_page(text)
    except ValueError:
        return  # a malformed page: the target's error for this round
    for sample in parsed.values():
        assert math.isfinite(sample.waiting) and sample.waiting >= 0
        assert math.isfinite(sample.running) and sample.running >= 0
        assert sample.completed is None or math.isfinite(sample.completed)


@FUZZ
@given(st.lists(SAMPLE, max_size=20))
def test_any_exposition_parses_to_finite_numbers_or_is_rejected(samples):
    _check(_page(samples))


@FUZZ
@given(st.text(max_size=300))
def test_arbitrary_text_is_rejected_or_parsed(text):
    _check(text)
    _check(f"{WAITING}{{model_name=\"m\"}} 1\n" + text)


def test_duplicate_series_are_rejected_not_summed():
    page = f'{WAITING}{{model_name="m"}} 3\n{RUNNING}{{model_name="m"}} 1\n{WAITING}{{model_name="m"}} 3\n'
    try:
        parse_page(page)
    except ValueError as error:
        assert "duplicate series" in str(error)
    else:
        raise AssertionError("an exposition with the same series twice was accepted")
