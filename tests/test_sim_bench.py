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

KEYS = {"workload", "policy", "ttft_p50_s", "ttft_p95_s", "ttft_p99_s", "slo_attainment_all",
        "slo_attainment_admitted", "goodput_rps", "refusal_rate", "gpu_replica_seconds", "recovery_s",
        "scale_events", "flaps"}


def azure_trace(path, seconds=90, seed=3):
    rng = random.Random(seed)
    start = datetime(2023, 11, 16, 18, 0, 0)
    lines, t = ["TIMESTAMP,ContextTokens,GeneratedTokens"], 0.0
    while t < seconds:
        rate = 40.0 if 40 <= t < 50 else 6.0  # a 10 s burst
        t += rng.expovariate(rate)
        stamp = (start + timedelta(seconds=t)).strftime("%Y-%m-%d %H:%M:%S.%f") + "0"
        lines.append(f"{stamp},{rng.randint(50, 3000)},{rng.randint(5, 200)}")
    path.write_text("\r\n".join(lines))
    return path


def run_bench(tmp_path, trace, out_name, *extra):
    out = tmp_path / out_name
    code = main(["bench", "--trace", str(trace), "--policies", "slo-scaler,kserve-keda-running,static-peak,oracle",
                 "--cold-start", "10", "--jobs", "1", "--seed", "2", "--out", str(out), *extra])
    return code, out


def test_bench_on_a_trace_writes_tables_json_and_a_timeline(tmp_path, capsys):
    trace = azure_trace(tmp_path / "burst.csv")
    code, out = run_bench(tmp_path, trace, "one")
    assert code == 0
    printed = capsys.readouterr().out
    assert "sizing:" in printed and "start at" in printed and "peak" in printed
    rows = json.loads((out / "results.json").read_text())
    assert [r["policy"] for r in rows] == ["slo-scaler", "kserve-keda-running", "static-peak", "oracle"]
    for row in rows:
        assert set(row) == KEYS and row["workload"] == "burst"
        assert 0.0 <= row["slo_attainment_all"] <= 1.0 and 0.0 <= row["refusal_rate"] <= 1.0
        assert row["gpu_replica_seconds"] > 0 and row["ttft_p50_s"] <= row["ttft_p95_s"] <= row["ttft_p99_s"]
    static = next(r for r in rows if r["policy"] == "static-peak")
    assert static["scale_events"] == 0 and static["refusal_rate"] == 0.0
    assert (out / "timeline-burst.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = (out / "results.md").read_text()
    assert "| slo-scaler |" in table and "GPU replica-s" in table
    details = json.loads((out / "details.json").read_text())
    assert details[0]["runs"][0]["outcomes"]["completed"] > 0


def test_bench_is_deterministic_for_a_seed(tmp_path):
    trace = azure_trace(tmp_path / "burst.csv")
    _, one = run_bench(tmp_path, trace, "one")
    _, two = run_bench(tmp_path, trace, "two")
    assert (one / "results.json").read_text() == (two / "results.json").read_text()


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
    return RunRecord("w", "p", requests, 100.0, scale_events=list(events))


def _request(i, t, ttft=None, refused=False):
    r = ClientRequest(i, Arrival(t, 10, 10))
    if ttft is not None:
        r.admitted_at, r.first_token, r.finished = t, t + ttft, t + ttft + 1
    r.refused = refused
    return r


def test_recovery_is_the_first_clean_30s_after_the_burst():
    requests = [_request(i, float(t), ttft=0.5) for i, t in enumerate(range(0, 100))]
    requests[55] = _request(55, 55.0, ttft=5.0)  # a miss 15 s after a burst ending at 40
    requests[60] = _request(60, 60.0, refused=True)
    assert recovery(_record(requests), 2.0, 40.0, 100.0) == pytest.approx(21.0)
    assert recovery(_record(requests), 2.0, 75.0, 100.0) == 0.0  # clean to the end of the workload
    requests[90] = _request(90, 90.0, ttft=9.0)
    assert recovery(_record(requests), 2.0, 61.0, 100.0) == pytest.approx(30.0)  # clean from 91 s to the end
    requests.append(_request(100, 99.5, ttft=9.0))
    assert recovery(_record(requests), 2.0, 61.0, 100.0) is None  # still missing in the last second


def test_flaps_are_reversals_within_300s():
    events = [(0, 2, 4), (100, 4, 3), (500, 3, 5), (550, 5, 6), (700, 6, 2)]
    assert count_flaps(events) == 2  # 4->3 after an up within 100 s; 6->2 after an up within 150 s


def test_percentile_interpolates_like_numpy():
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([], 0.99) is None
