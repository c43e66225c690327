"""scripts/scoreboard.py: the verdicts from bench results, which run each policy comes from, and the frontier plots."""

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "scoreboard.py"
spec = importlib.util.spec_from_file_location("scoreboard", SCRIPT)
scoreboard = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scoreboard)


def row(workload, policy, attainment, gpu, point="tuned", knob=1.0, window="eval"):
    return {"workload": workload, "policy": policy, "knob": "k", "knob_value": knob, "point": point, "window": window,
            "seeds": 5, "slo_attainment": attainment, "gpu_seconds": gpu}


def write(directory: Path, rows: list[dict]) -> Path:
    directory.mkdir()
    (directory / "results.json").write_text(json.dumps(rows))
    return directory


def workload(name, ours, others, clairvoyant=(1.0, 100.0)):
    rows = [row(name, "slo-scaler", *ours), row(name, "clairvoyant", *clairvoyant)]
    rows += [row(name, policy, att, gpu) for policy, att, gpu in others]
    # Not others: a cheaper reference and tuning-window rows never count.
    rows += [row(name, "static-peak", 1.0, 1.0, point="reference"), row(name, "static", 1.0, 1.0, window="tune")]
    return rows


@pytest.mark.parametrize("ours, others, expected, ratio", [
    ((1.0, 100.0), [("static", 0.999, 120.0), ("knative-kpa", 0.995, 150.0)], "won", 1.2),
    ((0.99, 100.0), [("static", 1.0, 105.0)], "ahead", 1.05),
    ((1.0, 100.0), [("static", 1.0, 99.0)], "level", 0.99),
    ((1.0, 100.0), [("static", 1.0, 90.0), ("ray-serve", 0.98, 50.0)], "lost", 0.9),  # ray-serve misses: not counted
    ((0.985, 80.0), [("static", 0.99, 90.0)], "missed", None),
    ((0.985, 80.0), [("static", 0.98, 90.0)], "nobody holds", None),
    ((1.0, 100.0), [("static", 0.98, 90.0)], "won", None),  # nobody else holds
])
def test_verdicts_compare_ours_with_the_cheapest_other_that_holds(ours, others, expected, ratio):
    s = scoreboard.score(workload("w", ours, others), 0.99)
    assert s["verdict"] == expected
    assert s["ratio"] == (None if ratio is None else pytest.approx(ratio))


def test_prints_each_workload_from_the_last_run_that_scored_it_and_the_counts(tmp_path, capsys):
    first = write(tmp_path / "a", workload("one", (1.0, 100.0), [("static", 1.0, 90.0)])
                  + workload("two", (1.0, 100.0), [("static", 1.0, 200.0)], clairvoyant=(1.0, 50.0)))
    second = write(tmp_path / "b", workload("one", (1.0, 100.0), [("static", 1.0, 130.0)]))
    assert scoreboard.main([str(first), str(second)]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines()[1:-1]}
    assert "1.30x" in lines["one"] and lines["one"].endswith("won")  # b's "one", not a's lost one
    assert "2.00x" in lines["two"] and lines["two"].endswith("won (over 1.5x the clairvoyant)")  # 100 / 50
    assert out.splitlines()[-1] == "2 workloads: won 2, ahead 0, level 0, lost 0, missed 0, nobody holds 0"


def test_a_later_run_replaces_only_the_policies_it_holds(tmp_path, capsys):
    # The baselines ran once; ours ran again after a change, alone: one table from both.
    baselines = [r for r in workload("w", (0.98, 100.0), [("static", 1.0, 130.0)]) if r["policy"] != "slo-scaler"]
    ours_before = [row("w", "slo-scaler", 0.98, 100.0)]
    first = write(tmp_path / "a", baselines + ours_before)
    second = write(tmp_path / "b", [row("w", "slo-scaler", 1.0, 110.0)])
    rows = scoreboard.load([first, second])["w"]
    assert [r for r in rows if r["policy"] == "slo-scaler"] == [row("w", "slo-scaler", 1.0, 110.0)]
    assert {r["policy"] for r in rows} == {"slo-scaler", "clairvoyant", "static", "static-peak"}
    s = scoreboard.score(rows, 0.99)
    assert s["verdict"] == "won" and s["ratio"] == pytest.approx(130.0 / 110.0)


def _swept(name, policy, points, tuned_at):
    rows = [dict(row(name, policy, att, gpu, point="sweep", knob=k), slo_attainment_min=att - 0.01,
                 slo_attainment_max=att) for k, (att, gpu) in points]
    knob, (att, gpu) = next((k, p) for k, p in points if k == tuned_at)
    return rows + [dict(row(name, policy, att, gpu, knob=knob), slo_attainment_min=att, slo_attainment_max=att)]


def test_plots_draw_each_workloads_frontier_from_the_rows_merged_across_runs(tmp_path, capsys):
    base = _swept("w", "static", [(1, (0.9, 100.0)), (2, (1.0, 200.0))], 2)
    base += [dict(row("w", "fluid-bound", 1.0, 50.0, point="bound"), slo_attainment_min=1.0, slo_attainment_max=1.0)]
    ours = _swept("w", "slo-scaler", [(0.5, (1.0, 150.0)), (1.0, (0.95, 90.0))], 0.5)
    lines, bound = scoreboard.frontier_lines(base + ours)
    assert bound == 50.0 and [line.policy for line in lines] == ["static", "slo-scaler"]
    assert lines[1].points == ((150.0, 100.0, 99.0, 100.0), (90.0, 95.0, 94.0, 95.0)) and lines[1].tuned == (150.0, 100.0)
    first, second = write(tmp_path / "a", base), write(tmp_path / "b", ours)
    assert scoreboard.main([str(first), str(second), "--plots", str(tmp_path / "png")]) == 0
    png = tmp_path / "png" / "frontier-w.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"plot: {png}" in capsys.readouterr().out
    # A run without the bound (ours alone) draws nothing and says so.
    assert scoreboard.main([str(second), "--plots", str(tmp_path / "alone")]) == 0
    assert "no plot for w" in capsys.readouterr().err and not (tmp_path / "alone" / "frontier-w.png").exists()
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit):
        scoreboard.main([str(first), "--plots", str(tmp_path / "file")])


def test_a_directory_without_results_is_named_in_the_error(tmp_path):
    with pytest.raises(SystemExit, match="empty: no results.json"):
        scoreboard.main([str(tmp_path / "empty")])


def test_the_frontier_takes_each_side_s_cheapest_sweep_point_that_holds_on_the_evaluation_window():
    rows = [row("w", "slo-scaler", 1.0, 300.0, point="sweep", knob=0.5), row("w", "slo-scaler", 0.98, 200.0, point="sweep", knob=0.9),
            row("w", "slo-scaler", 0.995, 250.0, point="sweep", knob=0.7), row("w", "static", 1.0, 240.0, point="sweep", knob=3),
            row("w", "static", 0.5, 100.0, point="sweep", knob=2), row("w", "clairvoyant", 1.0, 10.0, point="sweep")]
    ours, other = scoreboard.frontier(rows, 0.99)
    assert (ours["knob_value"], other["policy"], other["knob_value"]) == (0.7, "static", 3)


def test_tuned_values_count_where_each_policy_was_tuned_and_how_often_it_holds_there(tmp_path, capsys):
    rows = workload("a", (1.0, 100.0), [("knative-kpa", 1.0, 90.0)]) + workload("b", (0.98, 100.0), [])
    rows += [row("b", "knative-kpa", 0.97, 90.0, knob=2.0), row("b", "knative-kpa", 1.0, 95.0, point="sweep")]
    counts = scoreboard.tuned_values(scoreboard.load([write(tmp_path / "run", rows)]), 0.99)
    assert counts["knative-kpa"] == {1.0: [1, 1], 2.0: [1, 0]}  # sweep rows are not tuned values
    assert counts["slo-scaler"] == {1.0: [2, 1]} and "static" not in counts
    assert scoreboard.main([str(tmp_path / "run"), "--tuned-values"]) == 0
    assert "knative-kpa tuned to: 1 on 1 (1 hold), 2 on 1 (0 hold)" in capsys.readouterr().out


def test_after_traffic_shows_each_sides_gpu_seconds_after_the_last_arrival_or_a_dash_for_older_runs(tmp_path, capsys):
    rows = workload("tail", (1.0, 100.0), [("static", 1.0, 120.0)])
    rows[0]["gpu_seconds_after_traffic"] = 25.0  # ours; static's run predates the field
    scoreboard.main([str(write(tmp_path / "run", rows)), "--after-traffic"])
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("  after traffic"))
    assert line.split()[2:] == ["25", "of", "100", "-"]


def test_save_writes_the_merged_rows_as_one_directory_that_scores_the_same(tmp_path, capsys):
    first = write(tmp_path / "a", workload("one", (1.0, 100.0), [("static", 1.0, 90.0)])
                  + workload("two", (1.0, 100.0), [("static", 1.0, 200.0)]))
    second = write(tmp_path / "b", [row("one", "slo-scaler", 1.0, 85.0)])  # a later run of ours alone
    saved = tmp_path / "merged"
    assert scoreboard.main([str(first), str(second), "--save", str(saved)]) == 0
    merged = capsys.readouterr().out
    assert scoreboard.main([str(saved)]) == 0
    again = capsys.readouterr().out
    assert again.splitlines() == [line for line in merged.splitlines() if not line.startswith("saved: ")]
    assert "1.06x" in again and again.splitlines()[-1].startswith("2 workloads: won 1, ahead 1,")  # 90 / 85; 200 / 100
    assert [p.name for p in saved.iterdir()] == ["results.json"]  # no partial file left behind


def test_save_refuses_a_file_where_a_directory_is_expected(tmp_path, capsys):
    runs = write(tmp_path / "a", workload("one", (1.0, 100.0), [("static", 1.0, 90.0)]))
    (tmp_path / "taken").write_text("x")
    with pytest.raises(SystemExit):
        scoreboard.main([str(runs), "--save", str(tmp_path / "taken")])
    assert "--save: expected a directory" in capsys.readouterr().err
    assert (tmp_path / "taken").read_text() == "x"


def test_the_readmes_totals_are_what_the_saved_scoreboard_prints(capsys):
    """docs/simulator/scoreboard holds the rows the README's headline was scored from: its counts
    must be the ones the README states."""
    root = SCRIPT.parents[1]
    assert scoreboard.main([str(root / "docs" / "simulator" / "scoreboard")]) == 0
    total = capsys.readouterr().out.splitlines()[-1]  # "86 workloads: won 12, ahead 6, ..."
    count, verdicts = total.split(" workloads: ")
    sets = (int(count) - 5) // 3  # the five built-ins, then three traces a set
    readme = " ".join((root / "README.md").read_text().split())
    assert f"{count} workloads of the built-ins and sets 1-{sets}, {verdicts}" in readme


def test_ties_list_where_ours_values_tie_on_the_tuning_window_with_each_ones_evaluation(tmp_path, capsys):
    rows = workload("tied", (1.0, 100.0), [])
    rows += [row("tied", "slo-scaler", 1.0, 40.0, point="sweep", knob=k, window="tune") for k in (0.5, 0.9)]
    rows += [row("tied", "slo-scaler", 0.97, 30.0, point="sweep", knob=1.0, window="tune")]  # cheaper, misses
    rows += [row("tied", "slo-scaler", 1.0, gpu, point="sweep", knob=k) for k, gpu in ((0.5, 100.0), (0.9, 80.0),
                                                                                       (1.0, 70.0))]
    rows += workload("apart", (1.0, 100.0), [])
    rows += [row("apart", "slo-scaler", 1.0, gpu, point="sweep", knob=k, window="tune") for k, gpu in ((0.5, 40.0),
                                                                                                       (0.9, 39.0))]
    tied = scoreboard.ties(scoreboard.load([write(tmp_path / "run", rows)]), 0.99)
    assert list(tied) == ["tied"]  # apart's values cost differently on the tuning window
    assert [(r["knob_value"], r["gpu_seconds"]) for r in tied["tied"]] == [(0.5, 100.0), (0.9, 80.0)]  # 1.0 misses
    assert scoreboard.main([str(tmp_path / "run"), "--ties"]) == 0
    out = capsys.readouterr().out
    assert "tie tied: 0.5: 100.00% / 100, 0.9: 100.00% / 80" in out
    assert out.splitlines()[-1] == ("ties on the tuning window decide 1 of ours' 2 tuned values; on 1 the tied values "
                                    "cost differently on the evaluation window")
