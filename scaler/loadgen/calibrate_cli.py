"""`slo-scaler calibrate URL`: step concurrency against one replica and print the calibration block."""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import asdict
from pathlib import Path

import aiohttp
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from scaler.loadgen.calibrate import CalibrateConfig, Level, calibration_block, run_calibration, safe_level
from scaler.loadgen.loadtest_cli import add_endpoint_arguments

HELP = "find one replica's safe concurrency and capacity under a TTFT p95 target; print the calibration block"
EPILOG = """Point it at ONE replica (a vLLM pod's port, or the emulator's replica port PORT+1), not at a
load balancer: the numbers are per replica. Use the prompt and output sizes of your traffic.

example:
  slo-scaler calibrate http://127.0.0.1:8001 --ttft-p95 0.5 --prompt-tokens 1024 --max-tokens 256
"""


# CalibrateConfig's fields as the command line spells them, for error messages.
CONFIG_FLAGS = {"target_p95_s": "--ttft-p95", "tpot_target_p95_s": "--tpot-p95", "speed": "--speed", "timeout_s": "--timeout",
                "prompt_tokens": "--prompt-tokens", "max_tokens": "--max-tokens", "min_requests": "--min-requests",
                "rounds": "--rounds", "max_concurrency": "--max-concurrency", "spread": "--spread"}


def register(subparsers) -> None:
    parser = subparsers.add_parser("calibrate", help=HELP, description=HELP, epilog=EPILOG,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_endpoint_arguments(parser, "one replica: http://host:8000 (vLLM, emulator replica), http://host/openai (KServe)")
    parser.add_argument("--ttft-p95", type=float, required=True, help="TTFT p95 target in seconds (the spec's slo)")
    parser.add_argument("--tpot-p95", type=float, default=None,
                        help="TPOT p95 target in seconds: a level whose output tokens are slower misses too "
                             "(the spec's tpot SLO, when it has one)")
    parser.add_argument("--prompt-tokens", type=int, default=512, help="prompt size of every request (default 512)")
    parser.add_argument("--max-tokens", type=int, default=128, help="mean output size (default 128)")
    parser.add_argument("--spread", type=float, default=0.25,
                        help="output sizes vary uniformly by this fraction around --max-tokens (default 0.25)")
    parser.add_argument("--min-requests", type=int, default=30, help="measured requests per level, at least")
    parser.add_argument("--rounds", type=int, default=4, help="each level sends at least rounds x concurrency requests")
    parser.add_argument("--max-concurrency", type=int, default=256, help="stop doubling here (default 256)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (output sizes, start stagger)")
    parser.add_argument("--out", default="calibrate-out", help="directory for calibrate.json and calibrate.png")
    parser.set_defaults(func=main)


def levels_table(levels: list[Level]) -> Table:
    table = Table(title="calibration levels (in measuring order)")
    for name in ("concurrency", "measured", "failed", "TTFT p50 ms", "TTFT p95 ms", "TPOT p50 ms", "req/s", "target"):
        table.add_column(name, justify="right" if name != "target" else "left")
    ms = lambda v: "-" if v is None else f"{v * 1000:.0f}"  # noqa: E731
    for level in levels:
        table.add_row(str(level.concurrency), str(level.requests), str(level.failed), ms(level.ttft_p50_s),
                      ms(level.ttft_p95_s), ms(level.tpot_p50_s),
                      "-" if level.throughput_rps is None else f"{level.throughput_rps:.2f}",
                      ("[green]meets" if level.passed else f"[red]misses{'' if level.ttft_p95_s else ': failures'}")
                      + (" [/][bold](saturated)" if level.saturation else ""))
    return table


def plot(path: Path, levels: list[Level], target_p95_s: float, safe: Level | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ordered = sorted((l for l in levels if l.ttft_p95_s is not None), key=lambda l: l.concurrency)
    fig, (ttft, rate) = plt.subplots(2, 1, figsize=(8, 7), sharex=True, constrained_layout=True)
    c = [l.concurrency for l in ordered]
    ttft.plot(c, [l.ttft_p95_s for l in ordered], "o-", label="TTFT p95")
    ttft.plot(c, [l.ttft_p50_s for l in ordered], "o--", label="TTFT p50", alpha=0.6)
    ttft.axhline(target_p95_s, color="tab:red", linestyle="--", label="target")
    ttft.set_yscale("log")
    ttft.set_ylabel("seconds")
    rate.plot(c, [l.throughput_rps for l in ordered], "o-", color="tab:green")
    rate.set_ylabel("requests/s (c / mean e2e)")
    rate.set_xlabel("concurrency")
    if safe is not None:
        for axis in (ttft, rate):
            axis.axvline(safe.concurrency, color="grey", linestyle=":", label=f"safe = {safe.concurrency}")
    ttft.legend()
    fig.suptitle("slo-scaler calibrate")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(args: argparse.Namespace) -> int:
    console = Console()
    try:
        config = CalibrateConfig(
            url=args.url, target_p95_s=args.ttft_p95, tpot_target_p95_s=args.tpot_p95, api=args.api, model=args.model, speed=args.speed,
            prompt_tokens=args.prompt_tokens, max_tokens=args.max_tokens, spread=args.spread,
            min_requests=args.min_requests, rounds=args.rounds, max_concurrency=args.max_concurrency,
            timeout_s=args.timeout, seed=args.seed).check()
    except ValueError as exc:
        field, _, rest = str(exc).partition(":")
        console.print(f"[red]error:[/red] {CONFIG_FLAGS.get(field, field)}:{rest}")
        return 2
    progress = Progress(TextColumn("[bold]concurrency {task.fields[c]}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=console)
    tasks: dict[int, int] = {}

    def on_progress(c: int, done: int, total: int) -> None:
        if c not in tasks:
            tasks[c] = progress.add_task("", total=total, c=c)
        progress.update(tasks[c], completed=done)

    def on_level(level: Level, why: str) -> None:
        colour = "green" if level.passed else "red"
        progress.console.print(f"concurrency {level.concurrency}: [{colour}]{level.reason}[/{colour}]; next: {why}")

    try:
        with progress:
            model, levels = asyncio.run(run_calibration(config, on_level, on_progress))
    except (ValueError, aiohttp.ClientError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 2
    safe = safe_level(levels)
    tpot = f", TPOT p95 target {args.tpot_p95 * 1000:g} ms" if args.tpot_p95 is not None else ""
    note = (f"slo-scaler calibrate {args.url} ({model}): TTFT p95 target {args.ttft_p95:g}s{tpot}, "
            f"prompt {args.prompt_tokens} tokens, output {args.max_tokens} +-{args.spread:.0%}")
    block, values = calibration_block(levels, args.ttft_p95, note, prompt_tokens=args.prompt_tokens)
    console.print(levels_table(levels))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "calibrate.json").write_text(json.dumps(
        {"config": asdict(config), "model": model, "levels": [l.to_json() for l in levels], "calibration": values},
        indent=1))
    plot(out / "calibrate.png", levels, args.ttft_p95, safe)
    console.print(f"wrote {out / 'calibrate.json'} and {out / 'calibrate.png'}")
    print(block, end="")
    return 0 if values else 1
