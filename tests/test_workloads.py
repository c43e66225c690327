"""Workload generation: the burst shape, length mix, rate scaling, and real trace parsing."""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path

import pytest

from scaler.sim.workload import TRACES_DIR
from scaler.workloads import (
    Arrival, LengthMix, TraceError, burst_scenario, load_trace, mix, poisson, rate_profile, rate_scale,
    spread_ties, tenant_mix_scenario,
)

TRACES = str(TRACES_DIR)


def test_burst_scenario_has_three_phases_at_the_asked_rates():
    rng = random.Random(3)
    arrivals = burst_scenario(rng, base_rps=20, peak_rps=30, low_s=150, burst_s=15, burst_factor=2.5, after_s=120)
    low = [a for a in arrivals if a.time < 150]
    burst = [a for a in arrivals if 150 <= a.time < 165]
    after = [a for a in arrivals if a.time >= 165]
    assert len(low) / 150 == pytest.approx(20, rel=0.08)
    assert len(burst) / 15 == pytest.approx(75, rel=0.12)
    assert len(after) / 120 == pytest.approx(20, rel=0.1)
    assert max(a.time for a in arrivals) < 285
    assert [a.time for a in arrivals] == sorted(a.time for a in arrivals)


def test_burst_scenario_long_fractions_are_twenty_percent():
    arrivals = burst_scenario(random.Random(5), base_rps=50, peak_rps=50, low_s=100, burst_s=0, after_s=0)
    mix_ = LengthMix()
    long_prompts = sum(a.prompt_tokens >= mix_.long_prompt_range[0] for a in arrivals) / len(arrivals)
    long_outputs = sum(a.max_tokens >= mix_.long_output_range[0] for a in arrivals) / len(arrivals)
    assert long_prompts == pytest.approx(0.2, abs=0.03)
    assert long_outputs == pytest.approx(0.2, abs=0.03)
    short = [a.prompt_tokens for a in arrivals if a.prompt_tokens < mix_.long_prompt_range[0]]
    assert statistics.median(short) == pytest.approx(512, rel=0.15)


def test_same_seed_same_workload_other_seed_other_workload():
    one = burst_scenario(random.Random(9), base_rps=5, peak_rps=8, low_s=20, burst_s=5, after_s=10)
    two = burst_scenario(random.Random(9), base_rps=5, peak_rps=8, low_s=20, burst_s=5, after_s=10)
    three = burst_scenario(random.Random(10), base_rps=5, peak_rps=8, low_s=20, burst_s=5, after_s=10)
    assert one == two and one != three


@pytest.mark.parametrize("factor", [0.25, 1.0, 3.0, 4.5])
def test_rate_scale_keeps_the_time_axis(factor):
    base = poisson(random.Random(1), rate_rps=20, start_s=0, duration_s=200, lengths=LengthMix())
    scaled = rate_scale(base, factor, random.Random(2))
    assert len(scaled) == pytest.approx(factor * len(base), rel=0.06)
    # Each 50-second block keeps its share of the load: the time axis is not compressed.
    for start in range(0, 200, 50):
        got = sum(start <= a.time < start + 50 for a in scaled)
        want = factor * sum(start <= a.time < start + 50 for a in base)
        assert got == pytest.approx(want, rel=0.15)
    assert scaled == rate_scale(base, factor, random.Random(2))


def test_rate_scale_rejects_a_bad_factor():
    with pytest.raises(ValueError, match="factor"):
        rate_scale([], 0)
    with pytest.raises(ValueError, match="factor"):
        rate_scale([], float("nan"))


def test_tenant_mix_has_a_noisy_neighbour_and_batch():
    arrivals = tenant_mix_scenario(random.Random(4), interactive_rps=10, batch_rps=2, duration_s=300,
                                   burst_start_s=150, burst_s=20, burst_factor=3)
    classes = {a.request_class for a in arrivals}
    assert classes == {"interactive", "batch"}
    in_burst = [a for a in arrivals if 150 <= a.time < 170 and a.request_class == "interactive"]
    globex = sum(a.tenant == "globex" for a in in_burst) / len(in_burst)
    assert globex > 0.75  # 3 + 0.3 of 4 times the rate
    outside = [a for a in arrivals if a.time < 150 and a.request_class == "interactive"]
    assert sum(a.tenant == "acme" for a in outside) / len(outside) == pytest.approx(0.6, abs=0.06)
    batch = [a for a in arrivals if a.request_class == "batch"]
    assert statistics.median(a.prompt_tokens for a in batch) > 2000


def test_arrival_rejects_bad_fields():
    with pytest.raises(ValueError, match="prompt_tokens"):
        Arrival(0.0, 0, 10)
    with pytest.raises(ValueError, match="request_class"):
        Arrival(0.0, 5, 10, request_class="vip")
    with pytest.raises(ValueError, match="time"):
        Arrival(-1.0, 5, 10)


def test_spread_ties_moves_clumps_within_their_window():
    clump = [Arrival(3.0, 10, 10) for _ in range(10)] + [Arrival(9.0, 10, 10)]
    spread = spread_ties(clump, random.Random(1), 3.0)
    assert len(spread) == 11
    assert all(3.0 <= a.time < 6.0 for a in spread[:10]) and spread[-1].time == 9.0
    assert len({a.time for a in spread}) == 11


def test_mix_is_time_ordered():
    a = [Arrival(1.0, 1, 1), Arrival(3.0, 1, 1)]
    b = [Arrival(2.0, 1, 1, tenant="b")]
    assert [x.time for x in mix(a, b)] == [1.0, 2.0, 3.0]


# --- real traces ------------------------------------------------------------------------


def test_azure_code_trace_matches_its_published_statistics():
    arrivals = load_trace(f"{TRACES}/AzureLLMInferenceTrace_code.csv")
    assert len(arrivals) == 8819
    assert arrivals[0].time == 0.0
    assert arrivals[-1].time == pytest.approx(3435.95, abs=0.01)
    assert max(rate_profile(arrivals, 10.0)) == pytest.approx(32.7)
    assert statistics.mean(a.prompt_tokens for a in arrivals) == pytest.approx(2048, abs=1)


def test_mooncake_trace_is_read_in_seconds():
    arrivals = load_trace(f"{TRACES}/mooncake_conversation_trace.jsonl")
    assert len(arrivals) == 12031
    assert arrivals[-1].time == pytest.approx(3536.999)
    assert statistics.mean(a.prompt_tokens for a in arrivals) == pytest.approx(12035, abs=1)


def test_azure_fraction_has_seven_digits(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:17:03.9799600,10,2\r\n"
                    "2023-11-16 18:17:04.0000001,20,3")
    arrivals = load_trace(path)
    assert arrivals[1].time == pytest.approx(0.0200401, abs=1e-6)
    assert (arrivals[1].prompt_tokens, arrivals[1].max_tokens) == (20, 3)


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("empty.csv", "", "empty file"),
        ("unknown.txt", "time,prompt\n1,2\n", "unknown format"),
        ("header.csv", "TIMESTAMP,Prompt,Out\n", "header: expected"),
        ("columns.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.1,5\n", ":2: expected 3"),
        ("time.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,5,5\n", ":2: TIMESTAMP"),
        ("tokens.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.1,5,5\n"
                       "2023-11-16 18:17:04.1,0,5\n", ":3: ContextTokens"),
        ("json.jsonl", '{"timestamp": 0, "input_length": 5, "output_length": 5}\n{"timestamp": 1,\n', ":2: not valid JSON"),
        ("missing.jsonl", '{"timestamp": 0, "input_length": 5}\n', ":1: output_length: missing"),
        ("negative.jsonl", '{"timestamp": -5, "input_length": 5, "output_length": 5}\n', ":1: timestamp"),
        ("quoted.jsonl", '{"timestamp": 0, "input_length": "5\\"; drop", "output_length": 5}\n', ":1: input_length"),
        ("only_header.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n", "no request"),
    ],
)
def test_bad_traces_name_the_line_and_field(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(TraceError, match=message.replace("(", r"\(")):
        load_trace(path)


def test_missing_trace_file_is_a_clear_error(tmp_path):
    with pytest.raises(TraceError, match="no such file"):
        load_trace(tmp_path / "absent.csv")


def test_unsorted_mooncake_lines_come_out_sorted(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps({"timestamp": t, "input_length": 5, "output_length": 2}) for t in (3000, 1000, 2000)))
    assert [a.time for a in load_trace(path)] == [0.0, 1.0, 2.0]
