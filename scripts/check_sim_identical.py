#!/usr/bin/env python3
"""Check that a change to the simulator leaves every run's results bit-identical.

    python scripts/check_sim_identical.py dump OUT.json [--workloads a,b] [--policies a,b] [--seeds 0,1]
    python scripts/check_sim_identical.py compare BEFORE.json AFTER.json

`dump` runs each policy (at its default knob) on each workload and seed and writes, per run, a
digest of every request's outcome (attempts, refusals, first-token time, finish time, TPOT, as
exact float reprs), of the GPU-seconds and replica lifetimes, the scale events, the per-tick
samples, the refused attempts, the policy's summary and the workload's calibration, plus the
engine step count. `compare` names every run and field that differs and exits 1 if any does.
Run `dump` on the old tree (PYTHONPATH=<clone>) and on the new one, then `compare`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import replace

DEFAULT_WORKLOADS = "standard-burst,azure-code,mooncake,tenant-mix"
DEFAULT_POLICIES = "slo-scaler,kserve-keda-running"


def digest(value) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def run_digests(workload, policy: str, setup, seed: int) -> dict:
    from scaler.sim.policies import make  # imported here, as in dump()
    from scaler.sim.simulation import simulate
    from scaler.sim.sweep import context

    record = simulate(workload, make(policy, context(workload, setup, seed), None), setup)
    outcomes = [(r.index, r.attempts, r.refusals, r.admitted_at, r.first_token, r.finished, r.tpot, r.refused)
                for r in record.requests]
    return {
        "requests": digest(outcomes),
        "completed": sum(1 for r in record.requests if r.finished is not None),
        "gpu_replica_seconds": repr(record.gpu_replica_seconds),
        "lifetimes": digest(record.lifetimes),
        "scale_events": digest(record.scale_events),
        "samples": digest(record.samples),
        "refused_attempts": digest(record.refused_attempts),
        "policy_summary": digest(sorted(record.policy_summary.items(), key=lambda kv: kv[0])),
        "end_time": repr(record.end_time),
        "engine_steps": record.engine_steps,
    }


def dump(args) -> None:
    # Imported here so that `compare` runs anywhere; print which tree is being measured.
    import scaler
    from scaler.sim.setup import Setup
    from scaler.sim.workload import build

    print(f"scaler from {scaler.__file__}", file=sys.stderr)
    base = Setup()
    runs = {}
    for name in args.workloads.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            setup = replace(base, seed=seed)
            workload = build(name, setup, seed)
            calibration = digest((workload.calibration, workload.sizing, workload.arrivals))
            for policy in args.policies.split(","):
                started = time.process_time()
                runs[f"{name}/{policy}/seed{seed}"] = {"workload": calibration,
                                                       **run_digests(workload, policy, setup, seed)}
                print(f"{name:15s} {policy:22s} seed {seed}: {time.process_time() - started:6.2f} s CPU",
                      file=sys.stderr, flush=True)
    with open(args.out, "w") as f:
        json.dump(runs, f, indent=1, sort_keys=True)
    print(f"wrote {len(runs)} runs to {args.out}")


def compare(args) -> int:
    with open(args.before) as f:
        before = json.load(f)
    with open(args.after) as f:
        after = json.load(f)
    differences = 0
    for run in sorted(set(before) | set(after)):
        if run not in before or run not in after:
            print(f"{run}: only in {'after' if run not in before else 'before'}")
            differences += 1
            continue
        for key in sorted(set(before[run]) | set(after[run])):
            if before[run].get(key) != after[run].get(key):
                print(f"{run}: {key} differs ({before[run].get(key)!r} -> {after[run].get(key)!r})")
                differences += 1
    common = len(set(before) & set(after))
    print(f"{common} runs compared, {differences} differences" + ("" if differences else ": identical"))
    return 1 if differences else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="run and write the digests")
    d.add_argument("out")
    d.add_argument("--workloads", default=DEFAULT_WORKLOADS)
    d.add_argument("--policies", default=DEFAULT_POLICIES)
    d.add_argument("--seeds", default="0,1")
    c = sub.add_parser("compare", help="compare two dumps")
    c.add_argument("before")
    c.add_argument("after")
    args = parser.parse_args()
    if args.command == "dump":
        dump(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
