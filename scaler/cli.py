"""The `slo-scaler` command line: one subcommand per module, kubectl-style.

Each entry of COMMANDS names a module exposing `register(subparsers)`, which adds its
subparser and sets `func` (called with the parsed args, returning an exit code).
Modules are imported only when their command line is built, so `--help` stays cheap.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from scaler import __version__

COMMANDS: tuple[str, ...] = (
    "scaler.emulator.cli",
    "scaler.loadgen.loadtest_cli",
    "scaler.loadgen.calibrate_cli",
    "scaler.demo.cli",
    "scaler.render.cli",
    "scaler.server.cli",
    "scaler.sim.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="slo-scaler",
        description="Keep LLM services on GPUs inside their latency SLOs when traffic bursts.",
    )
    parser.add_argument("--version", action="version", version=f"slo-scaler {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        importlib.import_module(module).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    return int(args.func(args) or 0)
