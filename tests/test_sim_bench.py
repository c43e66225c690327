"""`slo-scaler bench` end to end on a small trace, plus the metric definitions it reports."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

import pytest

from scaler.cli import main
from scaler.sim.metrics import count_flaps, percentile, recovery
from scaler.sim.simulation import ClientRequest, RunRecord
from scaler.sim.setup import Setup
from scaler.sim.workload import size, trace_file
from scaler.workloads import Arrival

KEYS = {"workload", "policy", "knob", "knob_value", "point", "window", "seeds"}
STATS = ("slo_attainment", "ttft_attainment", "gpu_seconds", "ttft_p99_s", "tpot_p99_s", "refusal_rate")


def azure_trace(path, seconds=90, seed=3, base_rps=6.0):
    rng = random.Random(seed)
    start = datetime(2023, 11, 16, 18, 0, 0)
    lines, t = ["TIMESTAMP,ContextTokens,GeneratedTokens"], 0.0
    while t < seconds:
        rate = 40.0 if 40 <= t < 50 else base_rps  # a 10 s burst
        t += rng.expovariate(rate)
        stamp = (start + timedelta(seconds=t)).strftime("%Y-%m-%d %H:%M:%S.%f") + "0"
        lines.append(f"{stamp},{rng.randint(50, 3000)},{rng.randint(5, 200)}")
    path.write_text("\r\n".join(lines))
    return path


def run_bench(tmp_path, trace, out_name, *extra):
    out = tmp_path / out_name
    code = main(["bench", "--trace", str(trace), "--cold-start", "10", "--jobs", "1", "--seed", "2", "--seeds", "1",
                 "--out", str(out), *extra])
    return code, out


def test_bench_sweep_on_an_unseen_trace_tunes_every_policy_and_writes_rows_tables_and_plots(tmp_path, capsys):
    trace = azure_trace(tmp_path / "burst.csv")
    code, out = run_bench(tmp_path, trace, "one", "--sweep", "--seeds", "2")
    assert code == 0
    printed = capsys.readouterr().out
    assert "sizing" in printed and "GPU-seconds to hold 99% on the evaluation window" in printed
    rows = json.loads((out / "results.json").read_text())
    policies = {r["policy"] for r in rows}
    assert policies == {"slo-scaler", "kserve-keda-running", "keda-waiting", "hpa-gpu-util", "ray-serve", "knative-kpa",
                        "llm-d-token", "static", "static-peak", "clairvoyant", "fluid-bound"}
    for row in rows:
        assert KEYS <= set(row) and row["workload"] == "burst" and row["window"] in ("tune", "eval")
        assert row["point"] in ("sweep", "tuned", "reference", "bound") and row["seeds"] == 2
        assert row["gpu_seconds_min"] <= row["gpu_seconds"] <= row["gpu_seconds_max"]
        if row["point"] != "bound":
            assert set(STATS) <= set(row) and 0.0 <= row["slo_attainment_min"] <= row["slo_attainment"] <= 1.0
            assert row["slo_attainment"] <= row["ttft_attainment"] + 1e-9  # TTFT and TPOT is stricter than TTFT alone
    for policy in policies - {"static-peak", "fluid-bound"}:  # one tuned point per policy and window
        assert sum(1 for r in rows if r["policy"] == policy and r["point"] == "tuned") == 2, policy
        assert sum(1 for r in rows if r["policy"] == policy and r["point"] == "sweep") >= 4, policy
    # The tuning window is the trace's first third: 30 s of this 90 s trace.
    text = (out / "results.md").read_text()
    assert "Tuning window: arrivals in [0, 30) s" in text
    # The frontier table names, per policy, its cheapest sweep point that holds 99% on the
    # evaluation window, as results.json's rows give it (or none).
    frontier = {}
    for line in text.split("The frontier on the evaluation window")[1].split("Tuned points over")[0].splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and cells[0] != "policy":
            frontier[cells[0]] = cells[1]
    assert set(frontier) == policies - {"fluid-bound"}
    for policy, shown in frontier.items():
        holding = [r for r in rows if r["policy"] == policy and r["window"] == "eval" and r["point"] in ("sweep", "reference")
                   and r["slo_attainment"] >= 0.99]
        cheapest = min(holding, key=lambda r: (r["gpu_seconds"], r["knob_value"]), default=None)
        assert shown == ("none holds" if cheapest is None else f"{cheapest['knob_value']:g}"), policy
    for name in ("frontier-burst.png", "timeline-burst.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    details = json.loads((out / "details.json").read_text())
    assert details[0]["runs"][0]["outcomes"]["completed"] > 0


def test_bench_is_deterministic_for_a_seed(tmp_path):
    trace = azure_trace(tmp_path / "burst.csv")
    _, one = run_bench(tmp_path, trace, "one", "--policies", "slo-scaler,keda-waiting")
    _, two = run_bench(tmp_path, trace, "two", "--policies", "slo-scaler,keda-waiting")
    assert (one / "results.json").read_text() == (two / "results.json").read_text()


def test_bench_scores_several_traces_in_one_run_each_file_once(tmp_path):
    one, two = azure_trace(tmp_path / "one.csv"), azure_trace(tmp_path / "two.csv", seconds=60, seed=4)
    code, out = run_bench(tmp_path, one, "both", "--trace", str(two), "--trace", str(one),
                          "--policies", "slo-scaler,static")
    assert code == 0
    rows = json.loads((out / "results.json").read_text())
    assert {r["workload"] for r in rows} == {"one", "two"}
    assert {r["seeds"] for r in rows} == {1}  # one.csv named twice is run once, not as a second seed
    for name in ("frontier-one.png", "frontier-two.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_refuses_two_traces_with_one_name_before_running(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = azure_trace(tmp_path / "a" / "day.csv"), azure_trace(tmp_path / "b" / "day.csv", seed=5)
    code, out = run_bench(tmp_path, first, "o", "--trace", str(second))
    assert code == 2
    assert "--trace: expected files with distinct names" in capsys.readouterr().out
    assert not out.exists()


def test_bench_refuses_a_broken_trace_naming_the_line(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:00:00.1,10,5\n2023-11-16 18:00:01.1,ten,5\n")
    assert main(["bench", "--trace", str(bad), "--out", str(tmp_path / "o"), "--jobs", "1"]) == 2
    assert "bad.csv:3: ContextTokens" in capsys.readouterr().out


def test_bench_refuses_a_request_longer_than_the_model_allows(tmp_path, capsys):
    big = tmp_path / "big.jsonl"
    big.write_text('{"timestamp": 0, "input_length": 10, "output_length": 5}\n'
                   '{"timestamp": 500, "input_length": 131000, "output_length": 500}\n')
    assert main(["bench", "--trace", str(big), "--out", str(tmp_path / "o"), "--jobs", "1"]) == 2
    assert "request 1 (t=0.500 s)" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--ttft-slo", "-1"], "--ttft-slo: expected seconds > 0"),
    (["--cold-start", "nan"], "--cold-start: expected seconds >= 0"),
    (["--policies", "slo-scaler,magic"], "--policies: expected a comma-separated list"),
    (["--workload", "nope"], "invalid choice"),
    (["--seed", "x"], "--seed: expected an integer"),
    (["--seeds", "0"], "--seeds: expected an integer >= 1"),
    (["--target-attainment", "1.5"], "--target-attainment: expected a share in (0, 1]"),
    (["--tpot-slo", "0"], "--tpot-slo: expected seconds > 0"),
])
def test_bench_rejects_bad_arguments(args, message, capsys):
    with pytest.raises(SystemExit):
        main(["bench", *args])
    assert message in capsys.readouterr().err


def test_trace_sizing_comes_from_the_trace(tmp_path):
    workload = trace_file(azure_trace(tmp_path / "t.csv"), Setup(), 0)
    sizing = workload.sizing
    assert sizing.initial >= 1 and sizing.peak > sizing.initial  # the 10 s burst needs more than the opening
    assert workload.burst[0] <= 40 <= workload.burst[1]  # the busiest minute holds the burst


def test_sizing_rule():
    arrivals = [Arrival(i / 4, 100, 10) for i in range(4 * 120)] + [Arrival(120 + i / 40, 100, 10) for i in range(400)]
    sizing = size(arrivals, 130.0, capacity_rps=5.0, utilization=0.8)
    assert sizing.initial == 1 and sizing.peak == 10  # 4 req/s -> 1 replica; 40 req/s -> ceil(40 / 4) = 10


def _record(requests, events=()):
    return RunRecord("w", "p", requests, 100.0, scale_events=list(events), horizon=100.0)


def _request(i, t, ttft=None, refused=False, retried_at=None):
    r = ClientRequest(i, Arrival(t, 10, 10))
    if ttft is not None:
        r.admitted_at, r.first_token, r.finished = t, t + ttft, t + ttft + 1
    r.refused = refused
    r.last_attempt = retried_at if retried_at is not None else t
    return r


def test_recovery_books_a_miss_when_the_client_sees_it():
    requests = [_request(i, float(t), ttft=0.5) for i, t in enumerate(range(0, 100))]
    requests[50] = _request(50, 50.0, ttft=5.0)  # arrives 10 s after a burst ending at 40, first token at 55
    requests[52] = _request(52, 52.0, refused=True, retried_at=60.0)  # refused for good on its retry at 60
    assert recovery(_record(requests), 2.0, 40.0, 100.0) == pytest.approx(21.0)  # clean from 61 s
    assert recovery(_record(requests), 2.0, 75.0, 100.0) == 0.0  # clean to the end of the workload
    # A request shed at 30 s (inside a burst ending at 45) whose first token comes at 70 s is a miss
    # booked at 70 s, not at its arrival: recovery waits for the 30 clean seconds from 71 s.
    late = [_request(i, float(t), ttft=0.5) for i, t in enumerate(range(0, 100))]
    late[30] = _request(30, 30.0, ttft=40.0)
    assert recovery(_record(late), 2.0, 45.0, 100.0) == pytest.approx(26.0)
    requests[90] = _request(90, 90.0, ttft=9.0)  # first token at 99: still missing in the last second
    assert recovery(_record(requests), 2.0, 75.0, 100.0) is None


def test_flaps_are_reversals_within_300s():
    events = [(0, 2, 4), (100, 4, 3), (500, 3, 5), (550, 5, 6), (700, 6, 2)]
    assert count_flaps(events) == 2  # 4->3 after an up within 100 s; 6->2 after an up within 150 s


def test_percentile_interpolates_like_numpy():
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([], 0.99) is None
