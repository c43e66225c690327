"""scripts/policy_ablation.py: every variant runs through the bench's protocol and leaves the
policy core as it found it (variants patch module attributes only while they decide)."""

from __future__ import annotations

import argparse
import importlib.util
import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from scaler.policy import headroom
from scaler.sim.setup import ColdStart, Setup
from scaler.sim.sweep import context, run_point
from scaler.sim.workload import trace_file

from tests.test_sim_bench import azure_trace

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "policy_ablation.py"


@pytest.fixture(scope="module")
def ablation():
    spec = importlib.util.spec_from_file_location("policy_ablation", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def workload(tmp_path_factory):
    setup = Setup(cold_start=ColdStart(median_s=10.0))
    return setup, trace_file(azure_trace(tmp_path_factory.mktemp("ablation") / "burst.csv"), setup, 0)


def test_every_variant_runs_a_short_trace_and_restores_what_it_patched(ablation, workload):
    setup, w = workload
    half_life = headroom.HISTORY_HALF_LIFE_S
    for variant in ablation.VARIANTS:
        score = run_point(w, variant.name, 0.8, setup, seed=0).windows["eval"]
        assert 0.0 <= score.slo_attainment <= 1.0 and score.gpu_seconds > 0, variant.name
    assert headroom.HISTORY_HALF_LIFE_S == half_life


def test_ours_holds_renders_floor_in_the_policy_the_ablations_without_it_and_as_min_replicas(ablation, tmp_path):
    setup = Setup(cold_start=ColdStart(median_s=10.0))
    w = trace_file(azure_trace(tmp_path / "busy.csv", base_rps=40.0), setup, 0)
    ctx = context(w, setup, 0)
    ours, bare = ablation.SloScaler(ctx, 0.5), ablation.FloorOne(ctx, 0.5)
    standing = ablation.StandingFloor(ctx, 0.5)
    assert ours.floor > 1  # 40 req/s: render's floor is above 1
    assert ours.config.burst_replicas == ours.floor and ours.keda.hpa.min_replicas == 1
    assert ours.initial_replicas() >= ours.floor
    assert bare.config.burst_replicas == 0 and bare.keda.hpa.min_replicas == 1
    assert bare.initial_replicas() == ctx.sizing.initial
    assert standing.keda.hpa.min_replicas == standing.floor == ours.floor


def test_decision_timeline_counts_every_request_once_and_runs_the_ablation_variants(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("decision_timeline", SCRIPT.parent / "decision_timeline.py")
    timeline = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(timeline)
    trace = azure_trace(tmp_path / "burst.csv")
    sent = len(trace.read_text().splitlines()) - 1
    assert timeline.main(["--trace", str(trace), "--by", "10", "--requests", "40", "50",
                          "--variant", "ours-floor-one"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "ours-floor-one" in lines[0] and "minReplicas 1" in lines[0]
    rows = [line.split() for line in lines[2:] if "|" in line]
    assert sum(int(row[1]) for row in rows) == sent  # every request in one window
    assert [float(row[0]) for row in rows] == sorted(float(row[0]) for row in rows)
    # The evaluation window's replica-seconds are the bench's GPU-seconds for the same run; the
    # starting ones a part of them.
    window = next(line for line in lines if line.startswith("evaluation window"))
    held, starting = (float(n.replace(",", "")) for n in re.findall(r"([\d,]+) (?:replica-seconds|of them)", window))
    setup = replace(Setup(), seed=0)
    bench = run_point(trace_file(trace, setup, 0), "ours-floor-one", None, setup, seed=0).windows["eval"]
    assert held == round(bench.gpu_seconds) and 0 < starting < held, window
    trended, short = (float(n.replace(",", "")) for n in re.findall(
        r"([\d,]+) (?:replica-seconds, |of them in replicas gone)",
        next(line for line in lines if "forecast stood above the rate" in line)))
    assert 0 <= short <= trended <= held
    # Replicas dated by the decision before them: one asked for on a trend (forecast above the rate)
    # and gone in 30 s, one on a trend kept 200 s, one asked for without a trend; only [100, 400) counts.
    decision = lambda t, rate, forecast: SimpleNamespace(time=t, arrival_rps=rate, arrival_forecast_rps=forecast)
    decisions = [decision(0.0, 5.0, 5.0), decision(150.0, 5.0, 9.0), decision(300.0, 5.0, 5.0)]
    lifetimes = [(151.0, 181.0), (160.0, 360.0), (301.0, 500.0), (50.0, 500.0)]
    assert timeline.trended_seconds(lifetimes, decisions, 100.0, 400.0) == (230.0, 30.0)
    finished = int(next(line for line in lines if line.startswith("requests that arrived")).rsplit(" ", 1)[1])
    met, missed = (int(line.split(":")[1].split(",")[0]) for line in lines if line.startswith(("  met", "  missed")))
    assert met + missed == finished > 0


def test_silence_drops_the_arrivals_of_its_span_only_and_rejects_a_bad_span(ablation, workload):
    _, w = workload
    quiet = ablation.silenced(w, 30.0, 20.0)  # the trace runs 91 s
    assert all(not 30.0 <= a.time < 50.0 for a in quiet.arrivals)
    assert [a for a in w.arrivals if not 30.0 <= a.time < 50.0] == list(quiet.arrivals)
    assert len(quiet.arrivals) < len(w.arrivals) and quiet.sizing == w.sizing
    assert ablation._silence("600:180") == (600.0, 180.0)
    for bad in ("600", "600:0", "-1:5", "a:b", "600:inf"):
        with pytest.raises(argparse.ArgumentTypeError, match="START"):
            ablation._silence(bad)
