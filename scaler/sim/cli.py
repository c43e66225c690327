"""`slo-scaler bench`: compare scaling policies on simulated workloads.

    slo-scaler bench [--workload NAME ... | --trace FILE] [--policies a,b,...] [--ttft-slo SECONDS]
                     [--cold-start SECONDS] [--seed N] [--out DIR] [--jobs N]

Prints one table per workload, writes results.md, results.json, details.json and one
timeline-<workload>.png per workload into --out.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from scaler.sim import bench, report
from scaler.sim.policies import ABLATIONS, POLICIES
from scaler.sim.setup import ColdStart, Setup
from scaler.sim.workload import BUILTIN_TRACES, DEFAULT_WORKLOADS, TRACES_DIR, WORKLOADS, build, builtin_trace, trace_file
from scaler.workloads import TraceError


def _seconds(name: str, low: float = 0.0, low_open: bool = True):
    def parse(raw: str) -> float:
        try:
            value = float(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: expected a number of seconds, got {raw!r}") from None
        if not math.isfinite(value) or value < low or (low_open and value == low):
            bound = f"> {low:g}" if low_open else f">= {low:g}"
            raise argparse.ArgumentTypeError(f"{name}: expected seconds {bound}, got {raw!r}")
        return value
    return parse


def _policies(raw: str) -> list[str]:
    names = [p.strip() for p in raw.split(",") if p.strip()]
    unknown = [p for p in names if p not in POLICIES and p not in ABLATIONS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"--policies: expected a comma-separated list among {', '.join([*POLICIES, *ABLATIONS])}, got {raw!r}")
    return names


def _count(name: str):
    def parse(raw: str) -> int:
        try:
            value = int(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: expected an integer, got {raw!r}") from None
        if value < (0 if name == "--seed" else 1):
            raise argparse.ArgumentTypeError(f"{name}: expected an integer >= {0 if name == '--seed' else 1}, got {raw!r}")
        return value
    return parse


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench", help="compare scaling policies on simulated bursts and real traces",
        description="Simulate the fleet under each policy (virtual clock, shared replica model) and report "
                    "TTFT, SLO attainment, goodput, refusals, GPU replica-seconds, recovery and scale events.")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--workload", action="append", choices=[*WORKLOADS, "all"], metavar="NAME",
                        help=f"a built-in workload, repeatable: {', '.join(WORKLOADS)} or all "
                             f"(default: {', '.join(DEFAULT_WORKLOADS)})")
    source.add_argument("--trace", type=Path, metavar="FILE",
                        help="an Azure CSV (TIMESTAMP,ContextTokens,GeneratedTokens) or Mooncake JSONL trace; "
                             "the fleet is sized from the trace")
    parser.add_argument("--policies", type=_policies, default=list(POLICIES), metavar="LIST",
                        help=f"comma-separated, default all: {','.join(POLICIES)} (ablation: {','.join(ABLATIONS)})")
    parser.add_argument("--ttft-slo", type=_seconds("--ttft-slo"), default=2.0, metavar="SECONDS")
    parser.add_argument("--cold-start", type=_seconds("--cold-start", 0.0, low_open=False), default=60.0,
                        metavar="SECONDS", help="median scale-up latency of a new replica (default 60)")
    parser.add_argument("--seed", type=_count("--seed"), default=0)
    parser.add_argument("--out", type=Path, default=Path("bench-results"), metavar="DIR")
    parser.add_argument("--jobs", type=_count("--jobs"), default=bench.default_jobs(),
                        help="worker processes (default: the CPUs available)")
    parser.add_argument("--traces-dir", type=Path, default=TRACES_DIR, metavar="DIR",
                        help="where the built-in traces live (default: the copies shipped inside the package)")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    console = Console()
    if not console.is_terminal:
        console = Console(width=170)  # files and pipes: keep the table on one line per row
    setup = Setup(ttft_slo_s=args.ttft_slo, cold_start=ColdStart(median_s=args.cold_start), seed=args.seed)
    names = args.workload or list(DEFAULT_WORKLOADS)
    if "all" in names:
        names = list(WORKLOADS)
    workloads = []
    try:
        with console.status("building workloads and calibrating the replica model"):
            if args.trace is not None:
                workloads.append(trace_file(args.trace, setup, args.seed))
            else:
                for name in dict.fromkeys(names):
                    if name in BUILTIN_TRACES:
                        workloads.append(builtin_trace(name, setup, args.seed, args.traces_dir))
                    else:
                        workloads.append(build(name, setup, args.seed))
    except (TraceError, ValueError) as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        return 2
    for w in workloads:
        console.print(f"[bold]{escape(w.name)}[/bold]: {escape(w.description)}", highlight=False)
        if w.note:
            console.print(f"  {escape(w.note)}", highlight=False)
        console.print(f"  sizing: {w.sizing.describe()}", highlight=False)
    total = len(workloads) * len(args.policies)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("simulating", total=total)

        def done(workload: str, policy: str) -> None:
            progress.update(task, advance=1, description=f"{workload} / {policy}")

        grouped = bench.run_bench(workloads, args.policies, setup, args.out, jobs=args.jobs, on_done=done)
    for g in grouped:
        table = Table(title=f"{escape(g.workload.name)} (TTFT SLO {args.ttft_slo:g} s, cold start {args.cold_start:g} s)")
        for _, title, _ in report.COLUMNS:
            table.add_column(title, justify="left" if title == "policy" else "right")
        for r in g.results:
            table.add_row(*(report.cell(getattr(r.summary, key), fmt) for key, _, fmt in report.COLUMNS))
        console.print(table)
        console.print(f"  timeline: {g.plot}")
    console.print(f"results: {args.out / 'results.md'}, {args.out / 'results.json'}")
    return 0
