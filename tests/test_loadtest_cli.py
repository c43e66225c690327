"""`slo-scaler loadtest` and `slo-scaler calibrate` from the command line: bad input names the
flag, a short run writes its JSON and PNG, and the workload options shape the arrivals."""

from __future__ import annotations

import json
import random

import pytest

from scaler.cli import main
from scaler.loadgen.workload import WorkloadOptions, build_arrivals, parse_mix


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--class-mix", "gold=1"], "--class-mix: expected names among interactive, agent, background, batch"),
        (["--class-mix", "interactive"], "--class-mix: expected NAME=WEIGHT"),
        (["--tenant-mix", "a=1,a=2"], "--tenant-mix: a appears twice"),
        (["--tenant-mix", 'x"y=1'], "--tenant-mix: expected names of letters"),
        (["--tenant-mix", "a=-1"], "--tenant-mix: expected a finite weight > 0"),
        (["--profile", "poisson", "--rate", "0"], "rate: expected requests/s > 0"),
        (["--profile", "trace"], "trace: expected a trace file"),
        (["--profile", "trace", "--trace", "/nonexistent.csv"], "/nonexistent.csv: no such file"),
        (["--speed", "0"], "--speed: expected a number > 0"),
        (["--max-retries", "-1"], "--max-retries: expected an integer >= 0"),
        (["--backoff-cap", "0.1", "--backoff-base", "1"], "--backoff-cap: expected at least the base wait"),
        (["url-without-scheme"], "url: expected an http(s) URL"),
        (["--tenant-header", "x-tenant\r\nx-evil: 1"], "--tenant-header: expected an HTTP header name"),
    ],
)
def test_bad_loadtest_input_names_the_flag(argv, expected, capsys):
    url = [] if argv and not argv[0].startswith("-") else ["http://127.0.0.1:9"]
    assert main(["loadtest", *url, *argv, "--out", "/tmp/unused"]) == 2
    assert expected in capsys.readouterr().out.replace("\n", " ")


@pytest.mark.parametrize("argv, expected", [(["--ttft-p95", "0"], "--ttft-p95: expected a number > 0"),
                                            (["--ttft-p95", "1", "--spread", "1.5"], "--spread: expected a fraction"),
                                            (["--ttft-p95", "1", "--tpot-p95", "0"], "--tpot-p95: expected a number > 0")])
def test_bad_calibrate_input_names_the_field(argv, expected, capsys):
    assert main(["calibrate", "http://127.0.0.1:9", *argv]) == 2
    assert expected in capsys.readouterr().out


def test_mixes_and_fixed_sizes_shape_the_arrivals():
    options = WorkloadOptions(profile="poisson", rate_rps=50.0, duration_s=20.0, seed=3, prompt_tokens=100,
                              max_tokens=7, class_mix=parse_mix("interactive=3,batch=1", "--class-mix", None),
                              tenant_mix={"acme": 1.0, "globex": 1.0})
    arrivals = build_arrivals(options)
    assert 800 < len(arrivals) < 1200
    assert {(a.prompt_tokens, a.max_tokens) for a in arrivals} == {(100, 7)}
    share = sum(a.request_class == "interactive" for a in arrivals) / len(arrivals)
    assert 0.7 < share < 0.8
    assert {a.tenant for a in arrivals} == {"acme", "globex"}
    assert arrivals == build_arrivals(options)  # reproducible from the seed


def test_burst_profile_is_the_three_phase_preset():
    arrivals = build_arrivals(WorkloadOptions(profile="burst", rate_rps=2.0, peak_rps=4.0, low_s=100, burst_s=20,
                                              after_s=100, seed=random.Random(1).randint(0, 99)))
    rate = lambda lo, hi: sum(lo <= a.time < hi for a in arrivals) / (hi - lo)  # noqa: E731
    assert 1.4 < rate(0, 100) < 2.6 and 1.4 < rate(120, 220) < 2.6
    assert 8.0 < rate(100, 120) < 12.0  # 2.5 x the 4/s peak


@pytest.mark.integration
def test_loadtest_command_writes_json_png_and_the_table(emulator_fleet, tmp_path, capsys):
    fleet = emulator_fleet(replicas=1, max_replicas=1)
    out = tmp_path / "out"
    code = main(["loadtest", fleet.url, "--profile", "poisson", "--rate", "8", "--duration", "3",
                 "--prompt-tokens", "64", "--max-tokens", "8", "--class-mix", "interactive=1,batch=1",
                 "--slo-ttft", "0.5", "--bin", "1", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    document = json.loads((out / "loadtest.json").read_text())
    summary = document["summary"]
    assert summary["requests"] == len(document["requests"]) > 10 and summary["ok"] == summary["requests"]
    assert set(summary["by_class"]) == {"interactive", "batch"}
    assert summary["ttft_within_slo"] == 1.0 and 0 < summary["ttft_s"]["p50"] < 0.5
    assert all(r["output_tokens"] == 8 for r in document["requests"])
    assert (out / "loadtest.png").read_bytes()[:4] == b"\x89PNG"
    assert "TTFT" in printed and "refused attempts by status: none" in printed
