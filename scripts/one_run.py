"""What scripts/decision_timeline.py and scripts/shed_flips.py share: the run they replay (a built-in
workload or a trace, a seed, ours' targetUtilization, the bench's protocol for that seed) and a
policy that keeps each decision it makes."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scaler.sim.setup import Setup  # noqa: E402
from scaler.sim.sweep import context  # noqa: E402
from scaler.sim.workload import WORKLOADS, build, trace_file  # noqa: E402


class DecisionLog:
    """Mixed into ours or a variant: keeps each new decision (the simulator asks for one per tick)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.decisions = []

    def control(self, now, view):
        replicas = super().control(now, view)
        if self.decision is not None and (not self.decisions or self.decisions[-1] is not self.decision):
            self.decisions.append(self.decision)
        return replicas


def add_run_arguments(parser: argparse.ArgumentParser, *, by_s: float) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--workload", choices=WORKLOADS)
    where.add_argument("--trace", type=Path, help="an Azure CSV or Mooncake JSONL trace")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--knob", type=float, help="targetUtilization (default: ours' default)")
    parser.add_argument("--by", type=float, default=by_s, help="seconds of arrival time per printed window")


def check_run_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.trace is not None and not args.trace.is_file():
        parser.error(f"--trace {args.trace}: no such file")
    if args.knob is not None and not 0 < args.knob <= 1:
        parser.error(f"--knob: expected a targetUtilization in (0, 1], got {args.knob:g}")
    if not args.by > 0:
        parser.error(f"--by: expected seconds > 0, got {args.by:g}")


def build_run(args: argparse.Namespace):
    """The setup, workload and context the bench uses for this seed."""
    setup = replace(Setup(), seed=args.seed)
    workload = trace_file(args.trace, setup, args.seed) if args.trace else build(args.workload, setup, args.seed)
    return setup, workload, context(workload, setup, args.seed)
