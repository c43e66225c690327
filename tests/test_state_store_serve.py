"""Several `serve` replicas, one admission budget in a real Redis (scaler/state), through the real RLS."""

from __future__ import annotations

import time

import grpc
import pytest

from conftest import free_port, poll_until
from rls_helpers import request
from scaler.rls.service import OK
from scaler.rls.stubs import SHOULD_RATE_LIMIT
from scaler_helpers import CAPTURE_MODEL, InProcessScaler, PageServer, metric, vllm_page

pytestmark = pytest.mark.integration
SKEW = (0, 0, 0, 0, 0, 0, 0, 0, 1, 2)  # Envoy's calls over three replicas, 80/10/10
CALLS_PER_S = 40.0
QUOTA = 5.0  # partner's requests/s, in every state: the budget the replicas must share


class Replica:
    def __init__(self, models, *flags):
        for attempt in range(5):  # a free port can be taken (a client's ephemeral port) before we bind it
            port = free_port()
            try:
                self.app = InProcessScaler("--poll-interval", "0.2", "--rls-port", str(port), "--models", str(models),
                                           *flags)
                break
            except OSError:
                if attempt == 4:
                    raise
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.call = self.channel.unary_unary(SHOULD_RATE_LIMIT.path,
                                             request_serializer=SHOULD_RATE_LIMIT.request.SerializeToString,
                                             response_deserializer=SHOULD_RATE_LIMIT.response.FromString)

    def green(self) -> bool:
        return metric(self.app.metrics_text(), "slo_scaler_state", model=CAPTURE_MODEL, state="GREEN") == 1

    def admitted(self, tenant: str) -> bool:
        entries = {"model": CAPTURE_MODEL, "class": "interactive", "tenant": tenant}
        return self.call(request(entries), timeout=5).overall_code == OK

    def close(self):
        self.channel.close()
        self.app.close()


@pytest.fixture
def fleet(tmp_path):
    page = PageServer(vllm_page(waiting=0, running=2))  # a healthy replica: GREEN
    models = tmp_path / "models.yaml"
    models.write_text(f"- model: {CAPTURE_MODEL}\n  source: scrape\n  scrapeTargets: {page.url}\n"
                      "  ttftSloSeconds: 2\n  perReplicaCapacity: 10\n  scaleUpLatencySeconds: 60\n")
    tenants = tmp_path / "tenants.yaml"
    tenants.write_text(f"tenants:\n- name: partner\n  quotaRequestsPerSecond: {QUOTA}\n")
    started: list[Replica] = []

    def start(*flags: str) -> Replica:
        started.append(Replica(models, "--tenants", str(tenants), *flags))
        return started[-1]

    yield start
    for replica in started:
        replica.close()
    page.close()


def drive(alone: Replica, shared: list[Replica], seconds: float, tenant: str = "partner") -> tuple[int, int]:
    """The same calls, at the same moments, to one replica alone and to three sharing a budget."""
    counts = [0, 0]
    started = time.monotonic()
    for n in range(int(seconds * CALLS_PER_S)):
        time.sleep(max(0.0, started + n / CALLS_PER_S - time.monotonic()))
        counts[0] += alone.admitted(tenant)
        counts[1] += shared[SKEW[n % len(SKEW)] % len(shared)].admitted(tenant)
    return counts[0], counts[1]


def test_three_replicas_sharing_redis_spend_one_budget(fleet, redis_server):
    redis = redis_server()
    alone = fleet()
    # A generous store timeout: on a loaded machine a 20 ms blip would spend the local share and
    # blur the comparison this test makes (the blip itself is tested in test_state_store.py).
    shared = [fleet("--state-store", redis.url, "--state-store-replicas", "3", "--state-store-timeout", "0.5")
              for _ in range(3)]
    for replica in (alone, *shared):
        poll_until(replica.green, 20, "every replica GREEN")
    one, three = drive(alone, shared, seconds=8)
    # partner offers 8x its quota to both sides: one bucket, whichever replica answers.
    assert QUOTA * 8 * 0.5 < one < CALLS_PER_S * 8 / 2, one
    assert abs(three - one) <= 0.1 * one + 2, (one, three)
    text = shared[0].app.metrics_text()
    assert metric(text, "slo_scaler_state_store_updates_total", store="shared") > 0
    assert metric(text, "slo_scaler_state_store_updates_total", store="fallback") == 0

    # Redis gone: nothing is refused for that alone (web has no quota) ...
    redis.stop()
    assert drive(alone, shared, seconds=2, tenant="web") == (2 * CALLS_PER_S, 2 * CALLS_PER_S)
    # ... and the quota is split: each replica spends a third of it, so together still about one.
    one, three = drive(alone, shared, seconds=6)
    assert three <= 1.1 * one + 2 * QUOTA, (one, three)  # + each replica's own burst of a share
    fallback = [metric(r.app.metrics_text(), "slo_scaler_state_store_updates_total", store="fallback") or 0
                for r in shared]
    assert all(n > 0 for n in fallback), fallback
