"""The demo's ending: the comparison table (both arms side by side) and the timeline PNG."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from rich.table import Table

from scaler.demo.fleetwatch import FleetSample
from scaler.demo.orchestrator import ArmResult
from scaler.demo.scenario import DemoScenario


def replica_seconds(samples: Sequence[FleetSample], end_s: float) -> float:
    """GPU time paid for: the Deployment's replica count (starting replicas included) over [0, end_s]."""
    points = [s for s in samples if 0 <= s.t <= end_s]
    before = [s for s in samples if s.t < 0]
    if before:
        points.insert(0, FleetSample(0.0, before[-1].replicas, before[-1].ready, before[-1].starting, before[-1].draining))
    total = 0.0
    for here, after in zip(points, points[1:] + [FleetSample(end_s, 0, 0, 0, 0)]):
        total += here.replicas * max(0.0, after.t - here.t)
    return total


def ready_over_time(samples: Sequence[FleetSample], every_s: float, end_s: float) -> list[int]:
    """Ready replicas at 0, every_s, 2 every_s, ... up to end_s (the last sample at or before each instant)."""
    ordered = sorted(samples, key=lambda s: s.t)
    out = []
    for k in range(int(end_s // every_s) + 1):
        seen = [s for s in ordered if s.t <= k * every_s]
        out.append(seen[-1].ready if seen else (ordered[0].ready if ordered else 0))
    return out


def first_ready_after_start(samples: Sequence[FleetSample], initial: int) -> float | None:
    for sample in sorted(samples, key=lambda s: s.t):
        if sample.t >= 0 and sample.ready > initial:
            return sample.t
    return None


def time_in(states: Sequence[tuple[float, str]], state: str, end_s: float) -> float:
    """Seconds in `state` within [0, end_s]; `states` are (t, state) at each change, warm-up included."""
    total = 0.0
    changes = sorted(states)
    for (t, s), nxt in zip(changes, changes[1:] + [(end_s, "")]):
        start, stop = max(0.0, t), min(end_s, nxt[0])
        if s == state and stop > start:
            total += stop - start
    return total


def comparison(arms: Sequence[ArmResult], scenario: DemoScenario) -> dict[str, dict]:
    """Per arm: the numbers the table shows (pure, JSON-ready)."""
    end = scenario.duration_s
    out = {}
    for arm in arms:
        s = arm.run.summary
        out[arm.name] = {
            "requests": s["requests"],
            "served": s["ok"],
            "refused_for_good": s["refused"],
            "refused_attempts_by_status": s["refusals_by_status"],
            "admitted_ttft_p50_s": s["ttft_s"]["p50"],
            "admitted_ttft_p99_s": s["ttft_s"]["p99"],
            "admitted_within_slo": s.get("ttft_within_slo"),
            "served_within_slo_of_all": (sum(1 for r in arm.run.results if r.ttft_s is not None
                                              and r.ttft_s <= scenario.ttft_slo_s) / s["requests"]) if s["requests"] else None,
            "ready_replicas_every_5s": ready_over_time(arm.fleet, 5.0, end),
            "max_replicas": max((f.replicas for f in arm.fleet if f.t >= 0), default=scenario.min_replicas),
            "first_new_replica_ready_s": first_ready_after_start(arm.fleet, scenario.min_replicas),
            "replica_seconds": round(replica_seconds(arm.fleet, end), 1),
            "seconds_in_red": round(time_in(arm.states, "RED", end), 1) if arm.states else None,
            "state_changes": [[round(t, 2), state] for t, state in arm.states],  # (t, state), warm-up's included
        }
    return out


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def comparison_table(rows: dict[str, dict], scenario: DemoScenario) -> Table:
    names = list(rows)
    table = Table(title=f"the same burst, two ways (TTFT SLO {scenario.ttft_slo_s:g} s)")
    table.add_column("")
    for name in names:
        table.add_column(name, justify="right")

    def line(label: str, render) -> None:
        table.add_row(label, *(render(rows[n]) for n in names))

    line("requests sent", lambda r: str(r["requests"]))
    line("served", lambda r: str(r["served"]))
    line("refused (after retries)", lambda r: str(r["refused_for_good"]))
    line("refused attempts by status", lambda r: ", ".join(f"{c}: {n}" for c, n in r["refused_attempts_by_status"].items()) or "none")
    line("admitted TTFT p50", lambda r: _s(r["admitted_ttft_p50_s"]))
    line("admitted TTFT p99", lambda r: _s(r["admitted_ttft_p99_s"]))
    line("admitted within SLO", lambda r: _pct(r["admitted_within_slo"]))
    line("first new replica ready at", lambda r: _s(r["first_new_replica_ready_s"]))
    line("ready replicas every 5 s", lambda r: " ".join(str(n) for n in r["ready_replicas_every_5s"]))
    line("replica-seconds", lambda r: f"{r['replica_seconds']:.0f}")
    line("seconds in RED", lambda r: "-" if r["seconds_in_red"] is None else f"{r['seconds_in_red']:.0f}")
    return table


def write_comparison(path: Path, rows: dict[str, dict], scenario: DemoScenario, took_s: float) -> None:
    path.write_text(json.dumps({"scenario": _scenario_json(scenario), "took_s": round(took_s, 1), "arms": rows}, indent=1))


def _scenario_json(scenario: DemoScenario) -> dict:
    out = {}
    for name, value in vars(scenario).items():
        out[name] = value if isinstance(value, (int, float, str, tuple, list)) else repr(value)
    return out


STATE_COLOURS = {"RED": "tab:red", "YELLOW": "gold"}


def plot_timeline(path: Path, arms: Sequence[ArmResult], scenario: DemoScenario) -> None:
    """One column per arm: request rates, admitted TTFT, replicas (with the scaler's state shaded)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    end = max([scenario.duration_s] + [a.run.duration_s for a in arms])
    fig, axes = plt.subplots(3, len(arms), figsize=(6.5 * len(arms), 9), sharex=True, sharey="row",
                             constrained_layout=True, squeeze=False)
    for column, arm in enumerate(arms):
        rates, ttft, replicas = axes[0][column], axes[1][column], axes[2][column]
        bins, width = arm.run.bins, arm.run.config.bin_s
        t = [b["t"] for b in bins]
        rates.step(t, [b["sent"] / width for b in bins], where="post", label="sent")
        rates.step(t, [b["ok"] / width for b in bins], where="post", label="served")
        rates.step(t, [b["refused_attempts"] / width for b in bins], where="post", color="tab:red", label="refused attempts")
        rates.set_title(arm.name)
        served = [r for r in arm.run.results if r.ttft_s is not None]
        ttft.scatter([r.start for r in served], [r.ttft_s for r in served], s=3, alpha=0.3, color="tab:blue",
                     label="admitted request")
        p99 = [(b["t"], b["ttft_p99_s"]) for b in bins if b["ttft_p99_s"] is not None]
        if p99:
            ttft.step(*zip(*p99), where="post", color="black", label=f"p99 per {width:g} s")
        ttft.axhline(scenario.ttft_slo_s, color="tab:red", linestyle="--", label="TTFT SLO")
        ttft.set_yscale("log")
        fleet = sorted((f for f in arm.fleet if f.t >= 0), key=lambda f: f.t)
        replicas.step([f.t for f in fleet], [f.replicas for f in fleet], where="post", label="asked (Deployment)")
        replicas.step([f.t for f in fleet], [f.ready for f in fleet], where="post", label="ready")
        asked = [(t, v) for t, v in arm.asked if t >= 0]
        if asked:
            replicas.plot(*zip(*asked), linestyle=":", marker=".", color="grey", label="metric / target")
        for axis in (rates, ttft, replicas):
            _shade_states(axis, arm.states, end)
            axis.axvspan(scenario.low_s, scenario.low_s + scenario.burst_s, color="grey", alpha=0.08)
        replicas.set_xlabel("seconds (grey: the burst; shaded red: scaler in RED)")
        replicas.set_ylim(0, scenario.max_replicas * 1.6)
        if column == 0:
            rates.set_ylabel("requests/s")
            ttft.set_ylabel("TTFT (s)")
            replicas.set_ylabel("replicas")
        for axis in (rates, ttft, replicas):
            axis.legend(loc="upper right", fontsize="small")
    fig.suptitle("slo-scaler demo: shedding + SLO-aware scaling vs. scaling on running requests")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _shade_states(axis, states: Sequence[tuple[float, str]], end: float) -> None:
    changes = sorted(states)
    for (t, state), nxt in zip(changes, changes[1:] + [(end, "")]):
        start, stop = max(0.0, t), min(end, nxt[0])
        if state in STATE_COLOURS and stop > start:
            axis.axvspan(start, stop, color=STATE_COLOURS[state], alpha=0.12)
