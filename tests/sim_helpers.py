"""Small workloads and scripted fleet views for the simulator tests."""

from __future__ import annotations

from scaler.engine import EngineParams, MemberState
from scaler.sim.calibrate import Calibration
from scaler.sim.observe import FleetView, MemberView
from scaler.sim.policies import PolicyContext
from scaler.sim.setup import Setup
from scaler.sim.workload import Sizing, Workload, size
from scaler.workloads import Arrival


def workload(arrivals: list[Arrival], *, capacity_rps: float = 4.0, setup: Setup | None = None,
             duration_s: float | None = None, burst: tuple[float, float] = (0.0, 0.0), name: str = "test",
             initial: int | None = None, peak: int | None = None, safe_concurrency: int = 64) -> Workload:
    setup = setup or Setup()
    duration = duration_s if duration_s is not None else (arrivals[-1].time + 1.0 if arrivals else 1.0)
    sizing = size(arrivals, duration, capacity_rps, setup.target_utilization)
    if initial is not None or peak is not None:
        init = initial if initial is not None else sizing.initial
        sizing = Sizing(sizing.capacity_rps, sizing.planned_rps, sizing.peak_rate_rps, sizing.opening_rate_rps,
                        init, max(init, peak if peak is not None else sizing.peak))
    calibration = Calibration(capacity_rps=capacity_rps, prefill_velocity=28000.0, median_prompt_tokens=512,
                              median_prefill_s=0.03, mean_prompt_tokens=512.0, mean_output_tokens=128.0,
                              safe_concurrency=safe_concurrency)
    return Workload(name, "test workload", tuple(arrivals), duration, burst, calibration, sizing)


def context(w: Workload, setup: Setup | None = None, seed: int = 0) -> PolicyContext:
    return PolicyContext(setup or Setup(), w.sizing, w.calibration, w.arrivals, seed)


def member(index=1, state=MemberState.READY, running=0, waiting=0, kv=0.0, busy_s=0.0, prefill_tokens=0,
           created_at=0.0, ready_at=0.0, completed=0) -> MemberView:
    return MemberView(index, state, created_at, ready_at, running, waiting, kv, busy_s, prefill_tokens, completed)


def view(time, members, *, desired=None, completed=0, admitted=0, offered=None, held=0) -> FleetView:
    members = tuple(members)
    if desired is None:
        desired = sum(1 for m in members if m.state is not MemberState.DRAINING)
    return FleetView(time, members, desired, completed, admitted, admitted if offered is None else offered, held)


def ready(n, **gauges):
    """n ready pods, each with the same gauges."""
    return [member(i + 1, **gauges) for i in range(n)]


UNIT_PARAMS = EngineParams(max_num_seqs=1, max_num_batched_tokens=64, max_model_len=4096, kv_cache_tokens=65536,
                           step_base_s=0.01, prefill_s_per_token=0.0, decode_s_per_seq=0.0, kv_read_s_per_token=0.0)
