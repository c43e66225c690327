"""`slo-scaler loadtest URL`: the command line of the load generator."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from scaler.loadgen.client import Headers
from scaler.loadgen.loadtest import LoadtestConfig, run
from scaler.loadgen.retry import Backoff
from scaler.loadgen.workload import PROFILES, WorkloadOptions, build_arrivals, parse_mix
from scaler.policy.config import REQUEST_CLASSES
from scaler.workloads import TraceError

HELP = "OpenAI-compatible streaming load test (vLLM, KServe /openai, the emulator): TTFT, TPOT, refusals"
EPILOG = """examples:
  slo-scaler loadtest http://127.0.0.1:8000 --profile burst --rate 2 --peak-rate 4 --speed 10
  slo-scaler loadtest http://gateway/openai --profile poisson --rate 5 --duration 120 \\
      --class-mix interactive=0.8,batch=0.2 --tenant-mix acme=3,globex=1
  slo-scaler loadtest http://127.0.0.1:8000 --profile trace --trace AzureLLMInferenceTrace_conv.csv \\
      --trace-duration 300 --trace-rate-scale 0.5
"""


def add_endpoint_arguments(parser: argparse.ArgumentParser, url_help: str) -> None:
    """Options shared by loadtest and calibrate: where to send, and how to read the timings."""
    parser.add_argument("url", help=url_help)
    parser.add_argument("--api", choices=("completions", "chat"), default=None,
                        help="OpenAI API to call (default completions, or what the URL names)")
    parser.add_argument("--model", default=None, help="model name (default: the first of GET /v1/models)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="the emulator's --speed: schedules are compressed and latencies reported in model seconds")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before a request counts as failed")


def add_client_arguments(parser: argparse.ArgumentParser) -> None:
    """loadtest's client: the endpoint, how to retry refusals, and the tenant/class headers."""
    add_endpoint_arguments(parser, "service URL: http://host:8000 (vLLM, emulator), http://host/openai (KServe)")
    parser.add_argument("--max-retries", type=int, default=3, help="retries of a 429/503 before giving up (default 3)")
    parser.add_argument("--backoff-base", type=float, default=0.5, help="first backoff without Retry-After, seconds")
    parser.add_argument("--backoff-cap", type=float, default=60.0, help="longest wait before a retry, seconds")
    parser.add_argument("--tenant-header", default=Headers.tenant, help="header carrying the tenant")
    parser.add_argument("--class-header", default=Headers.request_class, help="header carrying the request class")
    parser.add_argument("--seed", type=int, default=1, help="random seed (arrivals, mixes, jitter)")


def register(subparsers) -> None:
    parser = subparsers.add_parser("loadtest", help=HELP, description=HELP, epilog=EPILOG,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_client_arguments(parser)
    work = parser.add_argument_group("workload")
    work.add_argument("--profile", choices=PROFILES, default="burst",
                      help="burst: the standard three-phase burst; poisson: steady; trace: replay a file")
    work.add_argument("--rate", type=float, default=2.0, help="requests/s (poisson; burst: the base phases)")
    work.add_argument("--peak-rate", type=float, default=None,
                      help="burst: the normal peak the service is sized for (default 2x --rate)")
    work.add_argument("--burst-factor", type=float, default=2.5, help="burst: rate is this times --peak-rate")
    work.add_argument("--low", type=float, default=150.0, help="burst: seconds at --rate before the burst")
    work.add_argument("--burst", type=float, default=15.0, help="burst: seconds of burst")
    work.add_argument("--after", type=float, default=120.0, help="burst: seconds at --rate after the burst")
    work.add_argument("--duration", type=float, default=60.0, help="poisson: seconds")
    work.add_argument("--trace", default=None, help="trace: Azure LLM inference CSV or Mooncake JSONL")
    work.add_argument("--trace-start", type=float, default=0.0, help="trace: skip this many seconds")
    work.add_argument("--trace-duration", type=float, default=None, help="trace: replay this many seconds")
    work.add_argument("--trace-rate-scale", type=float, default=1.0, help="trace: thin (<1) or multiply (>1) arrivals")
    work.add_argument("--long-prompt-frac", type=float, default=0.2, help="fraction of long (RAG-sized) prompts")
    work.add_argument("--long-output-frac", type=float, default=0.2, help="fraction of long answers")
    work.add_argument("--prompt-tokens", type=int, default=None, help="fixed prompt size (overrides the mix)")
    work.add_argument("--max-tokens", type=int, default=None, help="fixed output size (overrides the mix)")
    work.add_argument("--class-mix", default=None, metavar="CLASS=W,...",
                      help=f"request classes and weights ({', '.join(REQUEST_CLASSES)})")
    work.add_argument("--tenant-mix", default=None, metavar="TENANT=W,...", help="tenants and weights")
    out = parser.add_argument_group("output")
    out.add_argument("--slo-ttft", type=float, default=None, help="TTFT SLO in seconds: drawn and counted")
    out.add_argument("--bin", type=float, default=5.0, help="timeline bin, seconds")
    out.add_argument("--out", default="loadtest-out", help="directory for loadtest.json and loadtest.png")
    parser.set_defaults(func=main)


BACKOFF_FLAGS = {"max_retries": "--max-retries", "base_s": "--backoff-base", "cap_s": "--backoff-cap"}


def backoff_from(args: argparse.Namespace) -> Backoff:
    try:
        return Backoff(max_retries=args.max_retries, base_s=args.backoff_base, cap_s=args.backoff_cap)
    except ValueError as exc:
        field, _, rest = str(exc).partition(":")
        raise ValueError(f"{BACKOFF_FLAGS.get(field, field)}:{rest}") from None


def _check_positive(name: str, value: float | None) -> None:
    if value is not None and not value > 0:
        raise ValueError(f"{name}: expected a number > 0, got {value!r}")


def main(args: argparse.Namespace) -> int:
    console = Console()
    try:
        for name in ("speed", "timeout", "bin", "slo_ttft", "prompt_tokens", "max_tokens"):
            _check_positive("--" + name.replace("_", "-"), getattr(args, name))
        options = WorkloadOptions(
            profile=args.profile, seed=args.seed, rate_rps=args.rate, peak_rps=args.peak_rate,
            burst_factor=args.burst_factor, low_s=args.low, burst_s=args.burst, after_s=args.after,
            duration_s=args.duration, trace=args.trace, trace_start_s=args.trace_start,
            trace_duration_s=args.trace_duration, trace_rate_scale=args.trace_rate_scale,
            long_prompt_frac=args.long_prompt_frac, long_output_frac=args.long_output_frac,
            prompt_tokens=args.prompt_tokens, max_tokens=args.max_tokens,
            class_mix=parse_mix(args.class_mix, "--class-mix", REQUEST_CLASSES) if args.class_mix else None,
            tenant_mix=parse_mix(args.tenant_mix, "--tenant-mix") if args.tenant_mix else None,
        )
        arrivals = build_arrivals(options)
        config = LoadtestConfig(
            url=args.url, api=args.api, model=args.model, speed=args.speed, backoff=backoff_from(args),
            headers=Headers(args.tenant_header, args.class_header), timeout_s=args.timeout,
            slo_ttft_s=args.slo_ttft, bin_s=args.bin, seed=args.seed)
    except (ValueError, TraceError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 2
    span = arrivals[-1].time
    console.print(f"sending {len(arrivals)} requests over {span:.0f}s ({span / args.speed:.0f}s wall) to {args.url}")
    try:
        run(config, arrivals, Path(args.out), console)
    except ValueError as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 2
    return 0
