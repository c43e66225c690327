#!/usr/bin/env python3
"""How fast the simulator runs: simulated hours per wall-clock second on the Azure code trace.

    python scripts/bench_sim_speed.py [--policy slo-scaler] [--workload azure-code] [--repeat 3] [--all] [--split]

Builds the workload once (calibration included, not timed), then times whole runs of the policy
(best of --repeat) and prints simulated seconds, wall seconds, engine steps and the ratio. With
--all it also times every policy once and the total for a full bench run on one core. With
--split one more run times the policy's own calls (admit per attempt, control per tick) apart
from the simulator and the engine, which is what a faster simulator can speed up.
"""

from __future__ import annotations

import argparse
import time

from scaler.sim.simulation import simulate
from scaler.sim.sweep import context, run_point
from scaler.sim.policies import POLICIES, make
from scaler.sim.setup import Setup
from scaler.sim.workload import WORKLOADS, build


def timed(workload, policy, setup):
    """Wall seconds and CPU seconds of this process (the CPU figure is steadier on a shared machine)."""
    started, cpu = time.perf_counter(), time.process_time()
    result = run_point(workload, policy, None, setup, setup.seed)
    return time.perf_counter() - started, time.process_time() - cpu, result


def split(workload, policy, setup):
    """Wall seconds of one simulate() call and of the policy's admit and control calls within it."""
    instance = make(policy, context(workload, setup, setup.seed), None)
    spent = {"admit": 0.0, "control": 0.0}
    for name in spent:
        call = getattr(instance, name)

        def timed_call(*args, _call=call, _name=name):
            started = time.perf_counter()
            try:
                return _call(*args)
            finally:
                spent[_name] += time.perf_counter() - started

        setattr(instance, name, timed_call)
    started = time.perf_counter()
    simulate(workload, instance, setup)
    return time.perf_counter() - started, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", default="slo-scaler", choices=list(POLICIES))
    parser.add_argument("--workload", default="azure-code", choices=list(WORKLOADS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--all", action="store_true", help="also time every policy once")
    parser.add_argument("--split", action="store_true", help="also time the policy's own calls apart (one more run)")
    args = parser.parse_args()
    setup = Setup()
    started = time.perf_counter()
    workload = build(args.workload, setup, setup.seed)
    print(f"workload {workload.name}: {len(workload.arrivals)} requests, {workload.duration_s:.0f} s "
          f"(built and calibrated in {time.perf_counter() - started:.2f} s)")
    best, cpu, result = min((timed(workload, args.policy, setup) for _ in range(max(1, args.repeat))),
                            key=lambda x: x[0])
    simulated = result.details["simulated_s"]
    print(f"{args.policy}: simulated {simulated:.0f} s in {best:.2f} s wall, {cpu:.2f} s CPU (best of {args.repeat}), "
          f"{result.details['engine_steps']} engine steps")
    print(f"simulated hours per wall-clock second: {simulated / 3600 / best:.3f} (per CPU second: {simulated / 3600 / cpu:.3f})")
    if args.split:
        total, spent = split(workload, args.policy, setup)
        engine = total - sum(spent.values())
        print(f"one simulate() of {args.policy}: {total:.2f} s wall; policy admit {spent['admit']:.2f} s "
              f"({spent['admit'] / total:.0%}), policy control {spent['control']:.2f} s ({spent['control'] / total:.0%}), "
              f"simulator and engine {engine:.2f} s ({engine / total:.0%})")
    if args.all:
        total = 0.0
        for name in POLICIES:
            wall, _, r = timed(workload, name, setup)
            total += wall
            print(f"  {name:22s} {wall:6.2f} s wall  {r.details['simulated_s'] / 3600 / wall:6.3f} sim-h/s  "
                  f"{r.details['engine_steps']:>9} steps")
        print(f"all {len(POLICIES)} policies on one core: {total:.1f} s")


if __name__ == "__main__":
    main()
