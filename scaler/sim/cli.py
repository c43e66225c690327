"""`slo-scaler bench`: compare scaling policies on simulated workloads, each tuned the same way.

    slo-scaler bench [--workload NAME ... | --trace FILE ...] [--policies a,b,...] [--sweep] [--seeds N]
                     [--target-attainment SHARE] [--ttft-slo SECONDS] [--tpot-slo SECONDS]
                     [--cold-start SECONDS] [--seed N] [--out DIR] [--jobs N]

Prints the headline table per workload (GPU-seconds to hold the target on the evaluation
window), writes results.md, results.json, details.json, frontier-<workload>.png and
timeline-<workload>.png into --out.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from scaler.sim import bench, report
from scaler.sim.policies import ABLATIONS, POLICIES
from scaler.sim.setup import ColdStart, Setup
from scaler.sim.workload import BUILTIN_TRACES, DEFAULT_WORKLOADS, TRACES_DIR, WORKLOADS, build, builtin_trace, trace_workloads
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


def _share(name: str):
    def parse(raw: str) -> float:
        try:
            value = float(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: expected a share in (0, 1], got {raw!r}") from None
        if not (math.isfinite(value) and 0 < value <= 1):
            raise argparse.ArgumentTypeError(f"{name}: expected a share in (0, 1], got {raw!r}")
        return value
    return parse


def _traces(paths: list[Path]) -> list[Path]:
    """Each file once; results are keyed by a trace's name (its file stem), so two files with one
    name would merge."""
    seen: dict[str, Path] = {}
    for path in dict.fromkeys(paths):
        other = seen.setdefault(path.stem, path)
        if other != path:
            raise ValueError(f"--trace: expected files with distinct names, got {other} and {path} (both {path.stem!r})")
    return list(seen.values())


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench", help="compare scaling policies on simulated bursts and real traces",
        description="Simulate the fleet under each policy (virtual clock, shared replica model) and report "
                    "TTFT, SLO attainment, goodput, refusals, GPU replica-seconds, recovery and scale events.")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--workload", action="append", choices=[*WORKLOADS, "all"], metavar="NAME",
                        help=f"a built-in workload, repeatable: {', '.join(WORKLOADS)} or all "
                             f"(default: {', '.join(DEFAULT_WORKLOADS)})")
    source.add_argument("--trace", type=Path, action="append", metavar="FILE",
                        help="an Azure CSV (TIMESTAMP,ContextTokens,GeneratedTokens) or Mooncake JSONL trace, "
                             "repeatable (each named by its file name without the suffix); the fleet is sized "
                             "from the trace")
    parser.add_argument("--policies", type=_policies, default=list(POLICIES), metavar="LIST",
                        help=f"comma-separated, default all: {','.join(POLICIES)} (ablation: {','.join(ABLATIONS)})")
    parser.add_argument("--sweep", action="store_true",
                        help="run every policy over its knob grid and tune it on the first third of each workload "
                             "(default: each policy at its default; static always searches its fleet size)")
    parser.add_argument("--seeds", type=_count("--seeds"), default=bench.DEFAULT_SEEDS,
                        help="seeds per point: cold starts, sampled lengths and clock phases vary (default 5)")
    parser.add_argument("--target-attainment", type=_share("--target-attainment"), default=bench.DEFAULT_TARGET,
                        metavar="SHARE", help="attainment a tuned policy must hold (default 0.99)")
    parser.add_argument("--ttft-slo", type=_seconds("--ttft-slo"), default=2.0, metavar="SECONDS")
    parser.add_argument("--tpot-slo", type=_seconds("--tpot-slo"), default=0.1, metavar="SECONDS",
                        help="mean time per output token a request must meet (default 0.1)")
    parser.add_argument("--cold-start", type=_seconds("--cold-start", 0.0, low_open=False), default=60.0,
                        metavar="SECONDS", help="median scale-up latency of a new replica (default 60)")
    parser.add_argument("--seed", type=_count("--seed"), default=0, help="first seed (default 0)")
    parser.add_argument("--out", type=Path, default=Path("bench-results"), metavar="DIR")
    parser.add_argument("--jobs", type=_count("--jobs"), default=bench.default_jobs(),
                        help="worker processes (default: the CPUs available)")
    parser.add_argument("--traces-dir", type=Path, default=TRACES_DIR, metavar="DIR",
                        help="where the built-in traces live (default: the copies shipped inside the package)")
    parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    console = Console()
    if not console.is_terminal:
        console = Console(width=200)  # files and pipes: keep the table on one line per row
    setup = Setup(ttft_slo_s=args.ttft_slo, tpot_slo_s=args.tpot_slo, cold_start=ColdStart(median_s=args.cold_start),
                  seed=args.seed)
    names = args.workload or list(DEFAULT_WORKLOADS)
    if "all" in names:
        names = list(WORKLOADS)
    seeds = [args.seed + i for i in range(args.seeds)]
    workloads: dict[str, list] = {}
    try:
        with console.status("building workloads and calibrating the replica model"):
            if args.trace is not None:
                for path in _traces(args.trace):  # each file read once, calibrated per seed
                    workloads[path.stem] = trace_workloads(path, setup, seeds)
            else:
                for seed in seeds:
                    for name in dict.fromkeys(names):
                        if name in BUILTIN_TRACES:
                            w = builtin_trace(name, setup, seed, args.traces_dir)
                        else:
                            w = build(name, setup, seed)
                        workloads.setdefault(name, []).append(w)
    except (TraceError, ValueError) as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        return 2
    for name, per_seed in workloads.items():
        w = per_seed[0]
        console.print(f"[bold]{escape(name)}[/bold]: {escape(w.description)}", highlight=False)
        if w.note:
            console.print(f"  {escape(w.note)}", highlight=False)
        console.print(f"  sizing (seed {seeds[0]}): {w.sizing.describe()}", highlight=False)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("simulating", total=None)

        started = time.monotonic()

        def done(workload: str, policy: str, count: int, total: int) -> None:
            progress.update(task, completed=count, total=total, description=f"{workload} / {policy}")
            if not console.is_terminal and (count == total or count * 20 // total != (count - 1) * 20 // total):
                # Logs and pipes get no live bar: a line every 5% instead.
                console.print(f"progress: {count}/{total} runs, {time.monotonic() - started:.0f} s", highlight=False)

        results = bench.run_bench(workloads, args.policies, setup, args.out, sweep=args.sweep,
                                  target=args.target_attainment, jobs=args.jobs, on_done=done)
    for r in results:
        table = Table(title=f"{escape(r.name)}: GPU-seconds to hold {args.target_attainment:.0%} on the evaluation window "
                            f"(TTFT <= {args.ttft_slo:g} s and TPOT <= {1000 * args.tpot_slo:g} ms, cold start "
                            f"{args.cold_start:g} s, {len(r.workloads)} seed(s))")
        for title in report.HEADLINE:
            table.add_column(title, justify="left" if title in ("policy", "knob") else "right")
        for row in report.headline_rows(r, args.target_attainment):
            table.add_row(*(escape(c) for c in row))
        console.print(table)
        console.print(f"  plots: {', '.join(str(p) for p in r.plots)}")
    console.print(f"results: {args.out / 'results.md'}, {args.out / 'results.json'}")
    return 0
