"""SignalWindow keeps each counter's increases as the snapshots arrive; its rates must be exactly
what walking the window's snapshots gives (the reference below: the walk the window replaced)."""

import math

from hypothesis import given, settings, strategies as st

from scaler.policy.signals import RECENT_S, TREND_MIN_Z, Rates, SignalWindow, Snapshot


def _increase(values):
    total = 0.0
    for (_, prev), (_, cur) in zip(values, values[1:]):
        total += cur - prev if cur >= prev else cur  # a drop is a reset
    return total


def _completion(snaps):
    done = [(s.time, s.completed_total) for s in snaps if s.completed_total is not None]
    span = snaps[-1].time - snaps[0].time
    return _increase(done) / span if len(done) >= 2 and span > 0 else 0.0


def _generation(snaps):
    """Output tokens/s over the recent readings, and the requests running averaged over their seconds."""
    made = [(s.time, s.generation_tokens_total) for s in snaps if s.generation_tokens_total is not None]
    if len(made) < 2:
        return None, None
    recent = [m for m in made if made[-1][0] - m[0] <= RECENT_S + 1e-9]
    made = recent if len(recent) >= 2 else made[-2:]
    span = made[-1][0] - made[0][0]
    if span <= 0:
        return None, None
    between = [s for s in snaps if made[0][0] <= s.time <= made[-1][0]]
    area = sum((a.running + b.running) / 2 * (b.time - a.time) for a, b in zip(between, between[1:]))
    return _increase(made) / span, area / span


def _arrival(snaps):
    span = snaps[-1].time - snaps[0].time
    if span <= 0:
        return 0.0, False
    arrived = [(s.time, s.arrivals_total) for s in snaps if s.arrivals_total is not None]
    if len(arrived) >= 2:
        return _increase(arrived) / span, True
    growth = (snaps[-1].waiting + snaps[-1].running) - (snaps[0].waiting + snaps[0].running)
    return max(0.0, _completion(snaps) + growth / span), False


def _trend(snaps):
    if len(snaps) < 4:
        return 0.0
    mid = len(snaps) // 2
    early, late = snaps[: mid + 1], snaps[mid:]
    early_s, late_s = early[-1].time - early[0].time, late[-1].time - late[0].time
    if early_s <= 0 or late_s <= 0:
        return 0.0
    early_rps, late_rps = _arrival(early)[0], _arrival(late)[0]
    noise = math.sqrt(early_rps / early_s + late_rps / late_s)
    if noise == 0 or abs(late_rps - early_rps) < TREND_MIN_Z * noise:
        return 0.0
    return (late_rps - early_rps) / ((early_s + late_s) / 2)


def reference(snaps, span_s):
    """The window's snapshots (same trimming rule) and their rates, by walking them."""
    kept = []
    for snap in snaps:
        if kept and snap.time <= kept[-1].time:
            continue
        kept.append(snap)
        while len(kept) > 2 and snap.time - kept[1].time >= span_s:
            kept.pop(0)
    if len(kept) < 2:
        return kept, None
    lam, exact = _arrival(kept)
    generation_tps, generation_running = _generation(kept)
    return kept, Rates(completion_rps=_completion(kept), arrival_rps=lam, arrival_trend_rps2=_trend(kept),
                       span_s=kept[-1].time - kept[0].time, arrivals_exact=exact,
                       generation_tps=generation_tps, generation_running=generation_running)


def _same(a, b):
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


counter = st.one_of(st.none(), st.floats(0, 1e4, allow_nan=False))
readings = st.lists(st.tuples(st.floats(0.05, 8.0), st.integers(0, 40), st.integers(0, 40), counter, counter,
                              counter, st.booleans()), min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(readings, st.sampled_from([1.0, 5.0, 10.0, 30.0]))
def test_window_rates_are_exactly_those_of_walking_its_snapshots(steps, span_s):
    window, snaps, t = SignalWindow(span_s), [], 0.0
    cumulative = [0.0, 0.0, 0.0]
    for gap, waiting, running, arrived, done, made, repeat in steps:
        t = t if repeat else t + gap  # a repeated time is a scrape seen twice: ignored
        values = []
        for i, step in enumerate((arrived, done, made)):
            if step is None:
                values.append(None)
            else:
                # Mostly growing counters, sometimes a reset (a smaller value).
                cumulative[i] = step if step < 50 else cumulative[i] + step
                values.append(cumulative[i])
        snap = Snapshot(time=t, waiting=waiting, running=running, ready_replicas=1, arrivals_total=values[0],
                        completed_total=values[1], generation_tokens_total=values[2])
        window.push(snap)
        snaps.append(snap)
        kept, want = reference(snaps, span_s)
        assert len(window) == len(kept) and window.latest is kept[-1]
        got = window.rates()
        if want is None:
            assert got is None
            continue
        for field in Rates.__dataclass_fields__:
            assert _same(getattr(got, field), getattr(want, field)), (field, getattr(got, field), getattr(want, field))
        assert window.queue_sustained() == (len(kept) >= 3 and all(s.waiting > 0 for s in kept[-3:]))


def test_the_window_holds_what_its_span_needs_however_long_it_runs():
    # Bounded by time: one snapshot a second over a 30 s window, for an hour.
    window = SignalWindow(30.0)
    for t in range(3600):
        window.push(Snapshot(time=float(t), waiting=1, running=2, ready_replicas=1, arrivals_total=2.0 * t,
                             completed_total=1.5 * t, generation_tokens_total=40.0 * t))
    assert len(window) == 31
    assert all(len(c.seqs) == len(c.times) == len(c.increases) == 31 for c in window._counters.values())
    assert window.rates().arrival_rps == 2.0 and window.rates().completion_rps == 1.5


def test_busy_seconds_count_the_unbroken_run_of_work_in_flight():
    window = SignalWindow(30.0)
    assert window.busy_s() == 0.0  # nothing pushed
    for t, (waiting, running) in enumerate([(0, 3), (1, 4), (0, 0), (0, 0), (5, 0), (2, 6), (0, 7)], start=1):
        window.push(Snapshot(time=float(t), waiting=waiting, running=running, ready_replicas=1, completed_total=0.0))
    assert window.busy_s() == 2.0  # work since t=5, after the idle snapshots at 3 and 4
    window.push(Snapshot(time=8.0, waiting=0, running=0, ready_replicas=1, completed_total=0.0))
    assert window.busy_s() == 0.0  # idle now
    for t in range(9, 60):
        window.push(Snapshot(time=float(t), waiting=1, running=2, ready_replicas=1, completed_total=0.0))
    assert window.busy_s() == 30.0  # as far back as the window holds
