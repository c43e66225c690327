"""The workloads of a bench run, each with its fleet sizing.

Sizing comes from the workload itself: one replica is planned at `target_utilization` of its
calibrated capacity; static provisioning covers the busiest 10 s; autoscaled policies start with
what the opening two minutes need and may grow to the static size.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

from scaler.sim.calibrate import Calibration, calibrate, capacity_rps
from scaler.sim.setup import Setup
from scaler.workloads import (
    Arrival, BurstShape, LengthMix, burst_scenario, load_trace, poisson, rate_profile, rate_scale, spread_ties,
    tenant_mix_scenario,
)
from scaler.workloads.scenarios import BATCH_LENGTHS

TRACES_DIR = Path(__file__).resolve().parents[1] / "workloads" / "traces_data"  # package data, see its SOURCES.md
PEAK_BIN_S = 10.0  # static provisioning covers the busiest window of this length
OPENING_S = 120.0  # autoscaled policies start with what the mean rate of this opening period needs
BURST_WINDOW_S = 60.0  # for traces, "the burst" is the busiest minute
PROFILE_BIN_S = 60.0  # a traffic profile reads the 1-minute request rate, as a dashboard's rate(...[1m])
TRACE_PEAK_REPLICAS = 8  # built-in traces are rate-scaled so their busiest 10 s needs this many
BURST_NORMAL_REPLICAS = 4  # the standard burst: the normal peak needs this many replicas
TENANT_MIX_REPLICAS = 4


@dataclass(frozen=True)
class Sizing:
    capacity_rps: float  # one replica's saturated completions per second on this workload
    planned_rps: float  # what one replica is planned to carry: capacity x target utilisation
    peak_rate_rps: float  # busiest 10 s
    opening_rate_rps: float  # mean rate of the opening two minutes
    initial: int
    peak: int

    def describe(self) -> str:
        return (f"one replica carries {self.capacity_rps:.2f} req/s saturated, planned at {self.planned_rps:.2f} req/s; "
                f"opening {self.opening_rate_rps:.2f} req/s -> start at {self.initial} replica(s); busiest 10 s "
                f"{self.peak_rate_rps:.2f} req/s -> peak {self.peak} replica(s) (static size and autoscaling maximum)")


@dataclass(frozen=True)
class Workload:
    name: str
    description: str
    arrivals: tuple[Arrival, ...]
    duration_s: float
    burst: tuple[float, float]  # the window recovery is measured after
    calibration: Calibration
    sizing: Sizing
    note: str = ""


def size(arrivals: list[Arrival], duration_s: float, capacity_rps: float, utilization: float) -> Sizing:
    planned = capacity_rps * utilization
    peak_rate = max(rate_profile(arrivals, PEAK_BIN_S, duration_s), default=0.0)
    opening_s = min(OPENING_S, duration_s)
    opening_rate = sum(1 for a in arrivals if a.time < opening_s) / opening_s
    initial = max(1, math.ceil(opening_rate / planned - 1e-9))
    peak = max(initial, math.ceil(peak_rate / planned - 1e-9))
    return Sizing(capacity_rps, planned, peak_rate, opening_rate, initial, peak)


def traffic_profile(arrivals, end_s: float | None = None) -> tuple[float, float, float]:
    """The spec's traffic profile an operator would write from what they have seen up to `end_s`
    (None: the whole workload): base = mean rate, peak = the highest 1-minute rate, burst growth =
    the steepest rise between consecutive minutes, per second."""
    seen = [a for a in arrivals if end_s is None or a.time < end_s]
    span = end_s if end_s is not None else (seen[-1].time + 1.0 if seen else 1.0)
    if not seen or span <= 0:
        return 0.0, 0.0, 0.0
    whole = max(PROFILE_BIN_S, PROFILE_BIN_S * math.floor(span / PROFILE_BIN_S))  # complete minutes only
    rates = rate_profile(seen, PROFILE_BIN_S, whole)[:max(1, int(whole // PROFILE_BIN_S))]
    rises = [b - a for a, b in zip(rates, rates[1:])]
    return len(seen) / span, max(rates), max([0.0, *rises]) / PROFILE_BIN_S


def busiest_window(arrivals: list[Arrival], duration_s: float, window_s: float = BURST_WINDOW_S) -> tuple[float, float]:
    bins = rate_profile(arrivals, PEAK_BIN_S, duration_s)
    per = max(1, int(window_s // PEAK_BIN_S))
    best = max(range(max(1, len(bins) - per + 1)), key=lambda i: sum(bins[i:i + per]))
    return best * PEAK_BIN_S, (best + per) * PEAK_BIN_S


def _check_fits(arrivals: list[Arrival], max_model_len: int) -> None:
    for i, a in enumerate(arrivals):
        if a.prompt_tokens + a.max_tokens > max_model_len:
            raise ValueError(f"request {i} (t={a.time:.3f} s): prompt ({a.prompt_tokens}) plus output "
                             f"({a.max_tokens}) tokens exceed the replica's max_model_len={max_model_len}")


def _finish(name, description, arrivals, duration, burst, setup, seed, note="", calibration=None) -> Workload:
    _check_fits(arrivals, setup.params.max_model_len)
    calibration = calibration or calibrate(setup.params, arrivals, seed, setup.ttft_slo_s, setup.tpot_slo_s)
    sizing = size(arrivals, duration, calibration.capacity_rps, setup.target_utilization)
    return Workload(name, description, tuple(arrivals), duration, burst, calibration, sizing, note)


def standard_burst(setup: Setup, seed: int, normal_replicas: int = BURST_NORMAL_REPLICAS) -> Workload:
    shape = BurstShape(low_s=150.0, burst_s=15.0, after_s=120.0)
    lengths = LengthMix()
    probe = poisson(random.Random(seed), rate_rps=1.0, start_s=0.0, duration_s=600.0, lengths=lengths)
    planned = capacity_rps(setup.params, probe, seed) * setup.target_utilization
    peak_rps = normal_replicas * planned
    arrivals = burst_scenario(random.Random(seed), base_rps=0.5 * peak_rps, peak_rps=peak_rps, low_s=shape.low_s,
                              burst_s=shape.burst_s, burst_factor=2.5, after_s=shape.after_s, lengths=lengths)
    description = (f"{shape.low_s:.0f} s at {0.5 * peak_rps:.1f} req/s, {shape.burst_s:.0f} s at 2.5 x the normal peak "
                   f"({2.5 * peak_rps:.1f} req/s), {shape.after_s:.0f} s back at {0.5 * peak_rps:.1f} req/s; 20% long "
                   f"prompts, 20% long outputs; the normal peak ({peak_rps:.1f} req/s) needs {normal_replicas} replicas")
    return _finish("standard-burst", description, arrivals, shape.duration_s,
                   (shape.burst_start_s, shape.burst_end_s), setup, seed)


def tenant_mix(setup: Setup, seed: int, replicas: int = TENANT_MIX_REPLICAS) -> Workload:
    probe = (poisson(random.Random(seed), rate_rps=5.0, start_s=0.0, duration_s=120.0, lengths=LengthMix())
             + poisson(random.Random(seed + 1), rate_rps=1.0, start_s=0.0, duration_s=120.0, lengths=BATCH_LENGTHS))
    planned = capacity_rps(setup.params, probe, seed) * setup.target_utilization
    total = replicas * planned
    arrivals = tenant_mix_scenario(random.Random(seed), interactive_rps=total * 5 / 6, batch_rps=total / 6,
                                   duration_s=300.0, burst_start_s=150.0, burst_s=20.0, burst_factor=3.0)
    description = (f"interactive {total * 5 / 6:.1f} req/s from acme/globex/initech (60/30/10%) plus batch "
                   f"{total / 6:.1f} req/s (long documents); globex bursts to 3x the interactive rate for 20 s at t=150 s")
    return _finish("tenant-mix", description, arrivals, 300.0, (150.0, 170.0), setup, seed)


BUILTIN_TRACES = {
    "azure-code": ("AzureLLMInferenceTrace_code.csv", "Azure LLM inference 2023, code (57 min, very bursty)"),
    "azure-conv": ("AzureLLMInferenceTrace_conv.csv", "Azure LLM inference 2023, conversation (58 min, near Poisson)"),
    "mooncake": ("mooncake_conversation_trace.jsonl", "Mooncake (Kimi) conversation (59 min, long prompts)"),
}
MOONCAKE_TICK_S = 3.0


def builtin_trace(name: str, setup: Setup, seed: int, traces_dir: Path = TRACES_DIR,
                  peak_replicas: int = TRACE_PEAK_REPLICAS) -> Workload:
    filename, description = BUILTIN_TRACES[name]
    raw = load_trace(traces_dir / filename)
    note = ""
    if name == "mooncake":
        raw = spread_ties(raw, random.Random(seed), MOONCAKE_TICK_S)
        note = "Mooncake timestamps come in ~3 s ticks: each tick's requests are spread uniformly over its 3 s. "
    duration = raw[-1].time + 1.0
    calibration = calibrate(setup.params, raw, seed, setup.ttft_slo_s, setup.tpot_slo_s)
    raw_peak = max(rate_profile(raw, PEAK_BIN_S, duration))
    factor = peak_replicas * calibration.capacity_rps * setup.target_utilization / raw_peak
    arrivals = rate_scale(raw, factor, random.Random(seed))
    note += (f"rate x{factor:.2f} (time axis kept) so the busiest 10 s needs {peak_replicas} replicas; "
             f"{len(raw)} -> {len(arrivals)} requests")
    return _finish(name, description, arrivals, duration, busiest_window(arrivals, duration), setup, seed, note,
                   calibration)


def trace_workloads(path: str | Path, setup: Setup, seeds: list[int]) -> list[Workload]:
    """A user's trace, as is (no rate scaling), read once and calibrated per seed: the fleet is
    sized from the trace."""
    arrivals = load_trace(path)
    duration = arrivals[-1].time + 1.0
    rate = len(arrivals) / duration
    description = f"{Path(path).name}: {len(arrivals)} requests over {duration:.0f} s ({rate:.2f} req/s mean)"
    burst = busiest_window(arrivals, duration)
    return [_finish(Path(path).stem, description, arrivals, duration, burst, setup, seed) for seed in seeds]


def trace_file(path: str | Path, setup: Setup, seed: int) -> Workload:
    return trace_workloads(path, setup, [seed])[0]


WORKLOADS = ("standard-burst", "azure-code", "azure-conv", "mooncake", "tenant-mix")
DEFAULT_WORKLOADS = ("standard-burst", "azure-code")


def build(name: str, setup: Setup, seed: int) -> Workload:
    if name == "standard-burst":
        return standard_burst(setup, seed)
    if name == "tenant-mix":
        return tenant_mix(setup, seed)
    if name in BUILTIN_TRACES:
        return builtin_trace(name, setup, seed)
    raise ValueError(f"workload: expected one of {', '.join(WORKLOADS)}, got {name!r}")
