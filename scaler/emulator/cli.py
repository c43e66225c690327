"""`slo-scaler emulate`: a fleet of emulated vLLM replicas on loopback (or any host)."""

from __future__ import annotations

import argparse
import asyncio
import signal
from dataclasses import fields

from rich.console import Console
from rich.table import Table

from scaler.emulator.fleet_server import FleetServer, FleetSettings
from scaler.engine import EngineParams

DEFAULTS = EngineParams()

# Engine flags, spelled as vLLM spells them where vLLM has the flag.
ENGINE_FLAGS = {
    "max_num_seqs": "Maximum number of sequences per iteration (vLLM --max-num-seqs).",
    "max_num_batched_tokens": "Token budget of one iteration (vLLM --max-num-batched-tokens).",
    "max_model_len": "Context length: prompt plus output tokens (vLLM --max-model-len).",
    "kv_cache_tokens": "KV cache capacity in tokens (vLLM logs it as 'GPU KV cache size').",
    "block_size": "Tokens per KV block (vLLM --block-size).",
    "scheduling_policy": "fcfs or priority (vLLM --scheduling-policy).",
    "step_base_s": "Step-time profile: fixed cost of every iteration, seconds.",
    "prefill_s_per_token": "Step-time profile: seconds per prefill token in the batch.",
    "decode_s_per_seq": "Step-time profile: seconds per decoding sequence in the batch.",
    "kv_read_s_per_token": "Step-time profile: seconds per context token read by attention.",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "emulate",
        help="Run emulated vLLM replicas (OpenAI API + /metrics) with a front door and a /fleet control API.",
        description="Replica i serves vLLM's OpenAI-compatible API and /metrics on PORT+i; PORT is a front door "
        "that routes to the least-loaded ready replica and serves GET/PUT /fleet. See docs/engine.md.",
    )
    parser.add_argument("--replicas", type=int, default=1, help="Replicas at start, ready at once (default 1).")
    parser.add_argument("--max-replicas", type=int, default=16, help="Upper bound for PUT /fleet (default 16).")
    parser.add_argument("--port", type=int, default=8000, help="Front door port; replica i uses PORT+i.")
    parser.add_argument("--host", default="127.0.0.1", help="Address to listen on (default 127.0.0.1).")
    parser.add_argument("--model", default="meta-llama/Llama-3.1-8B-Instruct", help="Served model name.")
    parser.add_argument("--cold-start", type=float, default=60.0, metavar="SECONDS",
                        help="Model seconds from adding a replica to it being ready (default 60).")
    parser.add_argument("--speed", type=float, default=1.0, metavar="FACTOR",
                        help="Time compression: 10 runs everything 10x faster; metrics stay in model seconds.")
    chunking = parser.add_mutually_exclusive_group()
    chunking.add_argument("--enable-chunked-prefill", dest="enable_chunked_prefill", action="store_true",
                          default=DEFAULTS.enable_chunked_prefill, help="Split long prompts across steps (default).")
    chunking.add_argument("--no-enable-chunked-prefill", dest="enable_chunked_prefill", action="store_false")
    for name in (f.name for f in fields(EngineParams)):
        if name in ENGINE_FLAGS:
            kind = type(getattr(DEFAULTS, name))
            parser.add_argument(f"--{name.replace('_', '-')}", type=kind, default=getattr(DEFAULTS, name),
                                help=f"{ENGINE_FLAGS[name]} Default {getattr(DEFAULTS, name)}.")
    parser.set_defaults(func=run)


def settings_from_args(args: argparse.Namespace) -> FleetSettings:
    params = EngineParams(enable_chunked_prefill=args.enable_chunked_prefill,
                          **{name: getattr(args, name) for name in ENGINE_FLAGS})
    return FleetSettings(params=params, model=args.model, host=args.host, port=args.port, replicas=args.replicas,
                         max_replicas=args.max_replicas, cold_start_s=args.cold_start, speed=args.speed).validate()


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True, soft_wrap=True)
    try:
        settings = settings_from_args(args)
    except ValueError as exc:
        console.print(f"[red]emulate: {exc}[/red]")
        return 2
    try:
        return asyncio.run(_serve(settings, console))
    except OSError as exc:
        console.print(f"[red]emulate: cannot listen: {exc}[/red]")
        return 1


async def _serve(settings: FleetSettings, console: Console) -> int:
    server = FleetServer(settings, log=lambda line: console.print(f"[dim]{line}[/dim]"))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await server.start()
        table = Table(title=f"slo-scaler emulate: {settings.model} (speed x{settings.speed:g})")
        table.add_column("what")
        table.add_column("url")
        base = f"http://{settings.host}"
        table.add_row("front door (API, /fleet)", f"{base}:{settings.port}")
        for member in server.describe()["members"]:
            table.add_row(f"replica {member['index']} ({member['state']})", f"{base}:{member['port']} (/metrics)")
        console.print(table)
        print(f"ready: front door on {base}:{settings.port}", flush=True)
        await stop.wait()
        console.print("stopping")
    finally:
        await server.stop()
    return 0
