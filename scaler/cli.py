"""The `slo-scaler` command line: one subcommand per module, kubectl-style.

COMMANDS maps each subcommand to the module exposing `register(subparsers)`, which adds its
subparser and sets `func` (called with the parsed args, returning an exit code). Only the module of
the command being run is imported, so `slo-scaler serve` loads none of the simulator's, the demo's
or the plots' dependencies; `slo-scaler --help` imports them all to list every command.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from scaler import __version__

COMMANDS: dict[str, str] = {
    "serve": "scaler.server.cli",
    "render": "scaler.render.cli",
    "check": "scaler.check.cli",
    "emulate": "scaler.emulator.cli",
    "loadtest": "scaler.loadgen.loadtest_cli",
    "calibrate": "scaler.loadgen.calibrate_cli",
    "bench": "scaler.sim.cli",
    "demo": "scaler.demo.cli",
}

# Modules of the `tools` extra (pyproject.toml): the commands other than serve and render need them.
TOOLS_EXTRA = ("rich", "matplotlib", "numpy", "envoy", "prometheus_api_client")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The full parser of `command` (of every command when None); the others by name only."""
    parser = argparse.ArgumentParser(
        prog="slo-scaler",
        description="Keep LLM services on GPUs inside their latency SLOs when traffic bursts.",
    )
    parser.add_argument("--version", action="version", version=f"slo-scaler {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        if command in (None, name):
            importlib.import_module(module).register(subparsers)
        else:
            subparsers.add_parser(name, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    try:
        parser = build_parser(command if command in COMMANDS else None)
    except ModuleNotFoundError as error:
        missing = (error.name or "").partition(".")[0]
        if missing not in TOOLS_EXTRA:
            raise
        print(f"slo-scaler {command or ''}: needs {missing}, from the tools extra: "
              "pip install 'slo-scaler[tools]'", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    return int(args.func(args) or 0)
