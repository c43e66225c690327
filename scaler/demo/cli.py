"""`slo-scaler demo [--out DIR]`: the closed loop on this machine, then the comparison."""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from rich.console import Console

from scaler.demo import report
from scaler.demo.orchestrator import BASELINE_ARM, SLO_ARM, run_demo
from scaler.demo.processes import ProcessError, ProcessGroup
from scaler.demo.scenario import DemoScenario

HELP = "run the closed loop locally (emulator, Prometheus, serve, Envoy, KEDA/HPA) on a burst, with and without"
DESCRIPTION = """Starts an emulated vLLM fleet, Prometheus (when installed), `slo-scaler serve` (KEDA external
scaler + rate-limit service), Envoy (when installed) and a local actuator that does what KEDA and
the HPA do, sends a time-compressed burst, prints every state change with its reason, and ends with
the same burst run without shedding and SLO-aware scaling: a comparison table and a timeline PNG.
Takes under 3 minutes; stops everything it started, also on Ctrl-C. See docs/demo.md."""


def register(subparsers) -> None:
    parser = subparsers.add_parser("demo", help=HELP, description=DESCRIPTION)
    parser.add_argument("--out", default="demo-out", help="directory for the results (default ./demo-out)")
    parser.add_argument("--quick", action="store_true",
                        help="a shorter burst and cold start, the two arms side by side (under 30 s; what the "
                             "test suite runs)")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    console = Console()
    scenario = DemoScenario().shortened() if args.quick else DemoScenario()
    # Absolute: Prometheus reads file_sd paths relative to its config file, not to our directory.
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    console.print(
        f"[bold]slo-scaler demo[/bold]: one replica at {scenario.base_rps:g} requests/s, then a burst of "
        f"{scenario.burst_factor:g} x {scenario.peak_rps:g} requests/s for {scenario.burst_s:g} s; a new replica is "
        f"ready {scenario.cold_start_s:g} s after it is asked for; TTFT SLO {scenario.ttft_slo_s:g} s. "
        f"Arm 1: shedding + SLO-aware scaling. Arm 2: no shedding, scaling on running requests.")
    try:
        arms = asyncio.run(run_demo(scenario, out, console))
    except KeyboardInterrupt:
        console.print("[yellow]interrupted: every process the demo started has been stopped[/yellow]")
        return 130
    except ProcessError as error:
        console.print(f"[red]demo: {error}[/red]")
        return 1
    finally:
        ProcessGroup.kill_leftovers()
    rows = report.comparison(arms, scenario)
    for arm in arms:
        arm.run.write(out, name=arm.name, title=f"{arm.name}: requests of the demo burst")
    report.plot_timeline(out / "demo-timeline.png", arms, scenario)
    took = time.monotonic() - started
    report.write_comparison(out / "comparison.json", rows, scenario, took)
    console.print(report.comparison_table(rows, scenario))
    slo, base = rows.get(SLO_ARM), rows.get(BASELINE_ARM)
    if slo and base and slo["admitted_ttft_p99_s"] and base["admitted_ttft_p99_s"]:
        console.print(
            f"admitted TTFT p99 {slo['admitted_ttft_p99_s']:.2f} s with shedding and SLO-aware scaling vs "
            f"{base['admitted_ttft_p99_s']:.2f} s without; {slo['refused_for_good']} requests refused (with "
            f"Retry-After) instead of queued.")
    console.print(f"wrote {out / 'demo-timeline.png'}, {out / 'comparison.json'} and per-arm results; "
                  f"logs in {out / 'work'}; took {took:.0f} s")
    return 0
