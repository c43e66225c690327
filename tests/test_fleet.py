"""The fleet on a manual clock: cold starts, scale-down order, draining, routing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scaler.engine import EngineParams, Fleet, MemberState, Request

PARAMS = EngineParams(
    max_num_seqs=2, max_num_batched_tokens=64, max_model_len=128, kv_cache_tokens=1024, block_size=16,
    step_base_s=1.0, prefill_s_per_token=0.0, decode_s_per_seq=0.0, kv_read_s_per_token=0.0,
)


def req(rid, out=3):
    return Request(id=rid, prompt_tokens=8, max_tokens=out, arrival_time=0.0)


def states(fleet):
    return {m.index: m.state.value for m in fleet.members}


def run_until_idle(member, now):
    while member.replica.has_work:
        now = member.replica.step(max(now, member.replica.busy_until)).end
    return now


def test_initial_replicas_are_ready_at_once():
    fleet = Fleet(PARAMS)
    changes = fleet.start(2, now=0.0)
    assert [m.index for m in changes.added] == [1, 2] and [m.index for m in changes.promoted] == [1, 2]
    assert states(fleet) == {1: "ready", 2: "ready"}
    assert (fleet.ready, fleet.starting, fleet.draining) == (2, 0, 0)


def test_new_replica_is_ready_only_after_cold_start():
    fleet = Fleet(PARAMS)
    fleet.start(1, now=0.0)
    added = fleet.set_replicas(2, now=10.0, cold_start_s=30.0).added
    assert [(m.index, m.ready_at) for m in added] == [(2, 40.0)]
    assert fleet.pending_ready_in(25.0) == [15.0] and fleet.oldest_pending_start() == 10.0
    for now in (10.0, 25.0, 39.99):
        fleet.tick(now)
        assert states(fleet) == {1: "ready", 2: "starting"}
        # Routing never picks a starting replica, even when the ready one is loaded.
        fleet.route().replica.add(req(f"r{now}"), now)
        assert fleet.route().index == 1
    promoted = fleet.tick(40.0).promoted
    assert [m.index for m in promoted] == [2]
    assert fleet.route().index == 2  # the idle newcomer is now the least loaded
    assert fleet.pending_ready_in(40.0) == [] and fleet.oldest_pending_start() is None


def test_cold_start_can_differ_per_replica():
    fleet = Fleet(PARAMS)
    fleet.set_replicas(3, now=5.0, cold_start_s=lambda index: 10.0 * index)
    assert [m.ready_at for m in fleet.members] == [15.0, 25.0, 35.0]
    assert fleet.pending_ready_in(5.0) == [10.0, 20.0, 30.0]


def test_scale_down_removes_starting_replicas_first_newest_first():
    fleet = Fleet(PARAMS)
    fleet.start(1, now=0.0)
    fleet.set_replicas(2, now=1.0, cold_start_s=60.0)
    fleet.set_replicas(3, now=2.0, cold_start_s=60.0)
    changes = fleet.set_replicas(2, now=3.0, cold_start_s=60.0)
    assert [m.index for m in changes.retired] == [3] and not changes.draining
    changes = fleet.set_replicas(1, now=4.0, cold_start_s=60.0)
    assert [m.index for m in changes.retired] == [2]
    assert states(fleet) == {1: "ready"}


def test_removed_replica_drains_its_requests_then_retires():
    fleet = Fleet(PARAMS)
    fleet.start(2, now=0.0)
    busy, idle = fleet.member(1), fleet.member(2)
    for i in range(3):  # 2 running + 1 waiting on replica 1
        busy.replica.add(req(f"b{i}"), 0.0)
    busy.replica.step(0.0)
    idle.replica.add(req("i0"), 0.0)
    idle.replica.step(0.0)
    # The least-loaded ready replica drains; it keeps its work and gets no new requests.
    changes = fleet.set_replicas(1, now=0.5, cold_start_s=0.0)
    assert [m.index for m in changes.draining] == [2] and not changes.retired
    assert fleet.route().index == 1
    fleet.set_replicas(0, now=0.6, cold_start_s=0.0)
    assert fleet.route() is None
    assert states(fleet) == {1: "draining", 2: "draining"}
    assert fleet.tick(0.7).retired == []
    run_until_idle(idle, 1.0)
    assert idle.replica.counters.finished["length"] == 1
    assert [m.index for m in fleet.tick(5.0).retired] == [2]
    end = run_until_idle(busy, 1.0)
    assert busy.replica.counters.finished["length"] == 3  # waiting ones finished too
    assert [m.index for m in fleet.tick(end).retired] == [1] and fleet.members == []


def test_route_picks_least_loaded_ready_replica():
    fleet = Fleet(PARAMS)
    fleet.start(3, now=0.0)
    picks = []
    for i in range(6):
        member = fleet.route()
        member.replica.add(req(f"r{i}"), 0.0)
        picks.append(member.index)
    assert picks == [1, 2, 3, 1, 2, 3]


def test_max_replicas_defers_additions_until_a_slot_frees():
    fleet = Fleet(PARAMS, max_replicas=2)
    fleet.start(2, now=0.0)
    fleet.member(2).replica.add(req("x"), 0.0)
    fleet.member(1).replica.add(req("y", out=1), 0.0)
    fleet.member(1).replica.add(req("z", out=1), 0.0)
    fleet.set_replicas(1, now=0.1, cold_start_s=0.0)  # replica 2 (less loaded) drains
    assert states(fleet) == {1: "ready", 2: "draining"}
    changes = fleet.set_replicas(2, now=0.2, cold_start_s=10.0)
    assert changes.added == []  # slot 2 is still held by the draining replica
    run_until_idle(fleet.member(2), 0.2)
    changes = fleet.tick(20.0)
    assert [m.index for m in changes.retired] == [2] and [(m.index, m.ready_at) for m in changes.added] == [(2, 30.0)]
    with pytest.raises(ValueError, match="replicas"):
        fleet.set_replicas(3, now=21.0, cold_start_s=0.0)


@pytest.mark.parametrize(
    "call,field",
    [
        (lambda f: f.set_replicas(-1, 0.0, 0.0), "replicas"),
        (lambda f: f.set_replicas(True, 0.0, 0.0), "replicas"),
        (lambda f: f.set_replicas(1, 0.0, -5.0), "cold_start_s"),
        (lambda f: f.set_replicas(1, 0.0, lambda i: float("nan")), "cold_start_s"),
        (lambda f: Fleet(PARAMS, max_replicas=0), "max_replicas"),
        (lambda f: Fleet(replace(PARAMS, max_num_seqs=0)), "max_num_seqs"),
    ],
)
def test_invalid_input_names_the_field(call, field):
    with pytest.raises(ValueError, match=field):
        call(Fleet(PARAMS))


def test_replica_states_are_plain_strings_for_json():
    assert [s.value for s in MemberState] == ["starting", "ready", "draining"]
