"""One admission budget across replicas: the state in a real Redis, the 1/N share when it is gone."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from admission_helpers import decision, req
from scaler.admission import AdmissionConfig, AdmissionState, TenantConfig, admit
from scaler.admission.backlog import Admitted
from scaler.admission.bucket import Bucket
from scaler.admission.share import share_of
from scaler.policy.decide import State
from scaler.state import LocalStore, open_store
from scaler.state.codec import decode, encode

RED = decision(State.RED, admission_rps=20.0)
GREEN = decision(State.GREEN)
CONFIG = AdmissionConfig(tenants={"partner": TenantConfig(quota_rps=5.0)})


def offer(store, now: float, request, dec=RED, config=CONFIG) -> bool:
    def update(state, share):
        cfg, d = share_of(config, dec, share)
        return admit(cfg, state, request, d, now, 0.5, stale_after_s=1e9)
    return store.update("default/m", update).admitted


def skewed_run(stores, seconds: float = 5.0, rate: float = 100.0, weights=(8, 1, 1)) -> int:
    """`rate` interactive calls/s for `seconds`, spread over the stores in `weights` (Envoy's 80/10/10)."""
    pattern = [i for i, w in enumerate(weights) for _ in range(w)]
    admitted = 0
    for n in range(int(seconds * rate)):
        admitted += offer(stores[pattern[n % len(pattern)] % len(stores)], n / rate, req("interactive"))
    return admitted


bucket = st.builds(Bucket, st.floats(-1e6, 1e6), st.floats(0, 1e9))
pools = st.dictionaries(st.text(min_size=1, max_size=8), bucket, max_size=4)


@given(st.builds(AdmissionState, quotas=pools, red=st.none() | bucket, shares=pools,
                 last_seen=st.dictionaries(st.text(min_size=1, max_size=8), st.floats(0, 1e9), max_size=4)))
def test_the_codec_round_trips_every_state(state):
    assert decode(encode(state)) == state


def test_the_codec_keeps_the_admissions_counted_since_the_data():
    state = AdmissionState(admitted=Admitted(((10.0, 3.0), (10.05, 1.0)), 9.5, ((9.9, 12.0, 6.3), 13.2, 10.07)))
    assert decode(encode(state)) == state
    older = encode(AdmissionState()).replace(b',"adm":[[],null,null]', b"")  # a replica before the count
    assert b'"adm"' not in older and decode(older) == AdmissionState()


@pytest.mark.parametrize("raw", [None, b"", b"not json", b'{"v": 99}', b'{"v": 1, "quotas": 3}', b"[]"])
def test_a_missing_or_corrupt_value_starts_afresh(raw):
    assert decode(raw) == AdmissionState()


def test_the_share_splits_red_and_quotas_but_never_green():
    config, red = share_of(CONFIG, RED, 0.5)
    assert red.admission_rps == 10.0 and config.tenants["partner"].quota_rps == 2.5
    assert share_of(CONFIG, GREEN, 0.25)[1] == GREEN
    with pytest.raises(ValueError, match="share: expected a fraction in"):
        share_of(CONFIG, RED, 0.0)


@pytest.mark.integration
def test_three_replicas_sharing_redis_admit_what_one_would(redis_server):
    redis = redis_server()
    shared = [open_store(redis.url, replicas=3) for _ in range(3)]
    try:
        together = skewed_run(shared)
        alone = skewed_run([LocalStore()])
        # The same calls on the same manual clock: one budget, whichever replica answers.
        assert alone > 0 and abs(together - alone) <= 0.1 * alone, (together, alone)
        split = skewed_run([LocalStore(), LocalStore(), LocalStore()])
        assert split > 1.5 * alone  # three budgets: what the shared store prevents
        assert all(s.stats.updates["fallback"] == 0 and not s.stats.errors for s in shared)
    finally:
        for s in shared:
            s.close()


@pytest.mark.integration
def test_concurrent_replicas_never_overspend_the_budget(redis_server):
    redis = redis_server()
    stores = [open_store(redis.url, replicas=3) for _ in range(3)]
    results = Counter()

    def hammer(store):
        for _ in range(150):  # all at one instant: only the bucket's burst may pass
            results[offer(store, 1.0, req("interactive"))] += 1

    threads = [threading.Thread(target=hammer, args=(s,)) for s in stores]
    try:
        offer(stores[0], 0.0, req("interactive"))  # RED starts here with an empty bucket
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # The RED bucket started empty at 0 and refills 20/s up to 1 s of burst: 20 tokens at 1.0.
        assert results[True] == 20, results
        assert results[True] + results[False] == 450
    finally:
        for s in stores:
            s.close()


@pytest.mark.integration
def test_losing_redis_degrades_to_the_local_share_and_recovers(redis_server):
    redis = redis_server()
    store = open_store(redis.url, replicas=2)
    try:
        assert offer(store, 0.0, req("interactive"), GREEN)
        redis.stop()
        # GREEN without the store: everything admitted, nothing refused for its absence.
        assert all(offer(store, 0.01 * i, req("batch"), GREEN) for i in range(50))
        assert store.stats.updates["fallback"] == 50 and sum(store.stats.errors.values()) >= 1
        # RED without the store: this replica spends half the budget (2 replicas).
        admitted = sum(offer(store, 10 + n / 100, req("interactive")) for n in range(500))
        assert 0.4 * 5 * 20 / 2 <= admitted <= 5 * 20 / 2 + 20, admitted
        restarted = redis_server(port=redis.port)
        store._skip_until = float("-inf")  # do not wait out RETRY_AFTER_S on the wall clock
        assert offer(store, 20.0, req("interactive"), GREEN)
        assert store.stats.updates["shared"] >= 2
        restarted.stop()
    finally:
        store.close()


def test_a_bad_replica_count_is_named():
    with pytest.raises(ValueError, match="--state-store-replicas: expected a whole number >= 1"):
        open_store("redis://127.0.0.1:1/0", replicas=0)


@pytest.mark.parametrize("flags, message", [
    (["--state-store", "http://redis:6379"], "argument --state-store: expected redis://host:port/db"),
    (["--state-store", "redis://"], "argument --state-store: expected redis://host:port/db"),
    (["--state-store-replicas", "two"], "argument --state-store-replicas: expected a whole number >= 1"),
])
def test_bad_store_flags_are_named(flags, message, capsys):
    from rls_helpers import rls_args
    with pytest.raises(SystemExit):
        rls_args(*flags)
    assert message in capsys.readouterr().err
