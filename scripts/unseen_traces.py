#!/usr/bin/env python3
"""Write traces the policy was never designed on, for `slo-scaler bench --trace FILE --sweep`.

Every trace is seeded and written in the Azure trace format (`TIMESTAMP,ContextTokens,GeneratedTokens`).

Set 1 (the default; non-homogeneous Poisson, lognormal lengths unlike the built-in workloads'
(prompts around 1,500 tokens, outputs around 250)). The policy has since been studied on these:

- `recurring-bursts.csv`: 20 minutes at 10 requests/s with a 30 s burst to 45 requests/s every
  4 minutes (the fleet that never releases is hard to beat there);
- `ramp-and-spikes.csv`: 30 minutes whose rate climbs from 3 to 30 requests/s and back (half a
  sine), with a 10 s spike to twice the current rate every 3 minutes at a random offset;
- `steps.csv`: 30 minutes at 8 requests/s that steps to 25 for 8 minutes (from minute 6) and to 40
  for 5 (from minute 20): rises that last, which a policy sizing on short bursts meets late.

Set 2 (`--set 2`): shapes taken from published characterisations of LLM serving traffic, chosen
without running any policy on them. Where a number is not from a source, it is marked "ours".
ServeGen facts (Xiang et al., NSDI '26, arXiv 2505.09999) are from its README and a summary of the
paper (themoonlight.io), not its full text.

- `gamma-api.csv` (25 minutes, 11.5-12.5 requests/s by the seeded phase): bursty API traffic.
  Arrivals are a Gamma renewal process: BurstGPT models request burstiness with a Gamma (Wang et
  al. 2024, arXiv 2401.17644; its example generator, github.com/HPMLL/BurstGPT
  example/src/burstgpt/workload.py, draws the gaps from one) and ServeGen finds Gamma and Weibull
  fit inter-arrivals better than Poisson. Shape 0.25, so the gaps' CV is 2.0 (ours: between the
  BurstGPT generator's default shape 0.5, CV 1.41, and the Azure 2023 code trace, whose 1 s count
  dispersion is 13.2 in scaler/workloads/traces_data/SOURCES.md, i.e. CV ~3.6 for a renewal
  process). The mean drifts +-25% on a 15-minute sine at a seeded phase (ours; ServeGen reports
  rates that shift over time), applied by a time change, so the local CV stays 2. Lengths take
  ServeGen's forms for language models: prompts a mixture of lognormal (80%, median 800, sigma
  0.9) and Pareto (20%, alpha 1.5 from 2,000 tokens), outputs exponential (mean 250), drawn
  independently, as ServeGen finds the input-output correlation weak (parameters ours).
- `diurnal-chat.csv` (30 minutes, ~12.3 requests/s): a day of chat traffic compressed into 30
  minutes (75 s per hour). The day's shape, a night trough, a daytime peak and a smaller evening
  bump, follows a published description of LLM API load (peak "roughly between 8am and 2pm", "a
  smaller secondary bump after dinner", off-peak midnight to 6am:
  tianpan.co/blog/2026-05-09-diurnal-latency-ai-feature-slowest-9am-et; the Azure LLM inference
  trace 2024 of DynamoLLM, Stojkovic et al., HPCA 2025, spans a week for the same reason); the
  curve itself is ours: 28 requests/s at 11:30, 5.6 at night, 14 at 20:30. Overdispersed noise:
  the rate is multiplied, per 10 s, by a Gamma factor of mean 1 and CV 0.27 (a Cox process). The
  CV comes from the Azure 2023 conversation trace (1 s dispersion 1.39 at 5.53 requests/s in
  SOURCES.md; for a Cox process dispersion = 1 + rate x CV^2, so CV^2 ~ 0.07); the 10 s period is
  ours. Lengths take BurstGPT's Zipf form (its example generator draws prompt and output lengths
  from a Zipf, default exponent 1.1): a power law of exponent 1.1 bounded to 16-16,384 prompt and
  4-4,096 output tokens (bounds ours).
- `flash-crowd.csv` (30 minutes, ~11 requests/s): Poisson at 6 requests/s until a seeded onset in
  minutes 6-10, then a flash crowd, "a surge in traffic" (Ari et al., "Managing flash crowds on
  the Internet", MASCOTS 2003, who model such events), as at a launch or a viral post. Its shape is
  ours: a linear rise over 30 s to 5x the base, held 2 minutes, then an exponential decay back
  with a 4-minute time constant. Lengths as at a reasoning model's launch: ServeGen reports a
  bimodal reasoning-length distribution (DeepSeek-R1, github.com/alibaba/ServeGen README); outputs
  here are a 55/45 mixture of lognormals with medians 500 and 2,400 (sigma 0.5 and 0.3), prompts
  exponential with mean 350 (ours).

All lengths are clamped to 1-16,384 prompt and 1-4,096 output tokens.

    python scripts/unseen_traces.py --out DIR [--seed N] [--set 1|2]
    slo-scaler bench --trace DIR/recurring-bursts.csv --sweep --seeds 3
"""

from __future__ import annotations

import argparse
import bisect
import math
import os
import random
import statistics
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

START = datetime(2024, 5, 13, 9, 0, 0)
HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens"
PROMPT_MAX, OUTPUT_MAX = 16384, 4096  # set 2's clamps
Rate = Callable[[float], float]  # requests/s at t seconds


def recurring_bursts(t: float) -> float:
    return 45.0 if t % 240.0 >= 210.0 else 10.0


def steps(t: float) -> float:
    if 360.0 <= t < 840.0:
        return 25.0
    return 40.0 if 1200.0 <= t < 1500.0 else 8.0


def ramp_and_spikes(offsets: list[float]):
    def rate(t: float) -> float:
        base = 3.0 + 27.0 * math.sin(math.pi * t / 1800.0)
        spike = any(o <= t < o + 10.0 for o in offsets)
        return base * (2.0 if spike else 1.0)
    return rate


def stamp(t: float) -> str:
    return (START + timedelta(seconds=t)).strftime("%Y-%m-%d %H:%M:%S.%f")


def write_lines(path: Path, lines: list[str]) -> None:
    """Write to a temporary file in the same directory, then rename: no half-written trace."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "x") as out:
            out.write("\n".join(lines) + "\n")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write(path: Path, rate, seconds: float, rng: random.Random, peak: float) -> int:
    """Set 1. Thinning: candidates at the peak rate, each kept with probability rate(t) / peak."""
    lines, t = [HEADER], 0.0
    while True:
        t += rng.expovariate(peak)
        if t >= seconds:
            break
        if rng.random() * peak > rate(t):
            continue
        prompt = min(7000, max(16, int(rng.lognormvariate(math.log(1500), 0.8))))
        output = min(1000, max(2, int(rng.lognormvariate(math.log(250), 0.7))))
        lines.append(f"{stamp(t)},{prompt},{output}")
    write_lines(path, lines)
    return len(lines) - 1


def write_set1(out: Path, seed: int) -> None:
    rng = random.Random(seed)
    offsets = [k * 180.0 + rng.uniform(0, 170) for k in range(10)]
    for name, rate, seconds, peak in (("recurring-bursts", recurring_bursts, 1200.0, 45.0),
                                      ("ramp-and-spikes", ramp_and_spikes(offsets), 1800.0, 60.0),
                                      ("steps", steps, 1800.0, 40.0)):
        n = write(out / f"{name}.csv", rate, seconds, rng, peak)
        print(f"{out / name}.csv: {n} requests over {seconds / 60:.0f} minutes")


# ---- set 2 ----------------------------------------------------------------------------------------

GRID_S = 0.02  # the time change treats the rate as constant over steps this long


def renewal(rng: random.Random, rate: Rate, seconds: float, shape: float) -> list[float]:
    """Arrival times of a renewal process with Gamma(shape) gaps (CV 1/sqrt(shape); shape 1 is
    Poisson) run at the time-varying `rate`: unit-mean gaps in operational time, mapped back to
    seconds through the cumulative rate."""
    steps_n = int(round(seconds / GRID_S))
    cumulative, total = [0.0], 0.0
    for i in range(steps_n):
        total += rate((i + 0.5) * GRID_S) * GRID_S
        cumulative.append(total)
    times, s = [], 0.0
    while True:
        s += rng.gammavariate(shape, 1.0 / shape)
        if s >= total:
            return times
        i = bisect.bisect_right(cumulative, s) - 1  # cumulative[i] <= s < cumulative[i + 1]
        times.append((i + (s - cumulative[i]) / (cumulative[i + 1] - cumulative[i])) * GRID_S)


def gamma_api_rate(phase: float) -> Rate:
    def rate(t: float) -> float:
        return 12.0 * (1.0 + 0.25 * math.sin(2.0 * math.pi * t / 900.0 + phase))
    return rate


def diurnal_rate(t: float) -> float:
    """Requests/s at `t` seconds into a day compressed to 30 minutes (75 s per hour)."""
    hour = t / 75.0
    return 28.0 * (0.2 + 0.8 * math.exp(-((hour - 11.5) / 3.5) ** 2) + 0.3 * math.exp(-((hour - 20.5) / 1.5) ** 2))


NOISE_CV, NOISE_PERIOD_S = 0.27, 10.0


def noisy(rate: Rate, factors: list[float]) -> Rate:
    return lambda t: rate(t) * factors[min(len(factors) - 1, int(t // NOISE_PERIOD_S))]


FLASH_BASE, FLASH_MULTIPLE, FLASH_RISE_S, FLASH_HOLD_S, FLASH_DECAY_S = 6.0, 5.0, 30.0, 120.0, 240.0


def flash_rate(onset: float) -> Rate:
    excess = FLASH_BASE * (FLASH_MULTIPLE - 1.0)

    def rate(t: float) -> float:
        into = t - onset
        if into < 0:
            return FLASH_BASE
        if into < FLASH_RISE_S:
            return FLASH_BASE + excess * into / FLASH_RISE_S
        if into < FLASH_RISE_S + FLASH_HOLD_S:
            return FLASH_BASE + excess
        return FLASH_BASE + excess * math.exp(-(into - FLASH_RISE_S - FLASH_HOLD_S) / FLASH_DECAY_S)
    return rate


def clamp(value: float, cap: int) -> int:
    return max(1, min(cap, int(round(value))))


def bounded_power_law(rng: random.Random, low: float, high: float, exponent: float) -> float:
    """Inverse-CDF draw from density ~ x^-exponent on [low, high] (exponent != 1)."""
    a, b = low ** (1.0 - exponent), high ** (1.0 - exponent)
    return (a + rng.random() * (b - a)) ** (1.0 / (1.0 - exponent))


def servegen_lengths(rng: random.Random) -> tuple[int, int]:
    if rng.random() < 0.8:
        prompt = rng.lognormvariate(math.log(800), 0.9)
    else:
        prompt = 2000.0 * rng.paretovariate(1.5)
    return clamp(prompt, PROMPT_MAX), clamp(rng.expovariate(1.0 / 250.0), OUTPUT_MAX)


def zipf_lengths(rng: random.Random) -> tuple[int, int]:
    return (clamp(bounded_power_law(rng, 16, PROMPT_MAX, 1.1), PROMPT_MAX),
            clamp(bounded_power_law(rng, 4, OUTPUT_MAX, 1.1), OUTPUT_MAX))


def reasoning_lengths(rng: random.Random) -> tuple[int, int]:
    prompt = rng.expovariate(1.0 / 350.0)
    output = rng.lognormvariate(math.log(500), 0.5) if rng.random() < 0.55 else rng.lognormvariate(math.log(2400), 0.3)
    return clamp(prompt, PROMPT_MAX), clamp(output, OUTPUT_MAX)


SET2 = ("gamma-api", "diurnal-chat", "flash-crowd")


def set2_trace(name: str, seed: int) -> tuple[list[tuple[float, int, int]], float, Rate]:
    """(time, prompt, output) rows, the duration and the rate function (requests/s at t) of one
    set-2 trace. Each trace has its own random stream, so one trace's draws never shift another's."""
    rng = random.Random(f"unseen-set2/{name}/{seed}")
    if name == "gamma-api":
        seconds, lengths, shape = 1500.0, servegen_lengths, 0.25
        rate = gamma_api_rate(rng.uniform(0.0, 2.0 * math.pi))
    elif name == "diurnal-chat":
        seconds, lengths, shape = 1800.0, zipf_lengths, 1.0
        k = 1.0 / NOISE_CV ** 2
        factors = [rng.gammavariate(k, 1.0 / k) for _ in range(int(seconds // NOISE_PERIOD_S) + 1)]
        rate = noisy(diurnal_rate, factors)
    elif name == "flash-crowd":
        seconds, lengths, shape = 1800.0, reasoning_lengths, 1.0
        rate = flash_rate(rng.uniform(360.0, 600.0))
    else:
        raise ValueError(f"trace: expected one of {', '.join(SET2)}, got {name!r}")
    return [(t, *lengths(rng)) for t in renewal(rng, rate, seconds, shape)], seconds, rate


def gap_cv(times: list[float]) -> float:
    gaps = [b - a for a, b in zip(times, times[1:])]
    return statistics.pstdev(gaps) / statistics.fmean(gaps)


def write_set2(out: Path, seed: int) -> None:
    for name in SET2:
        rows, seconds, _ = set2_trace(name, seed)
        write_lines(out / f"{name}.csv", [HEADER] + [f"{stamp(t)},{p},{o}" for t, p, o in rows])
        times = [t for t, _, _ in rows]
        print(f"{out / name}.csv: {len(rows)} requests over {seconds / 60:.0f} minutes, "
              f"{len(rows) / seconds:.2f} req/s mean, inter-arrival CV {gap_cv(times):.2f}, "
              f"median prompt {statistics.median(p for _, p, _ in rows):.0f} / output "
              f"{statistics.median(o for _, _, o in rows):.0f} tokens")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="directory to write the traces into")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", type=int, choices=(1, 2), default=1, dest="trace_set",
                        help="1: recurring-bursts, ramp-and-spikes, steps; 2: gamma-api, diurnal-chat, flash-crowd")
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out: expected a directory, got the file {args.out}")
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--out: cannot create the directory {args.out} ({exc.strerror})")
    (write_set1 if args.trace_set == 1 else write_set2)(args.out, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
