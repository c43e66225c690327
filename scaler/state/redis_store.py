"""The admission budget in Redis, one for every `serve` replica (as envoyproxy/ratelimit does).

Each model's AdmissionState is one key, updated atomically by optimistic concurrency (WATCH, then
MULTI/EXEC; a concurrent write from another replica retries the pure update on the new state), so
the admission logic stays the one pure function every replica and the simulator run.

When Redis is out of reach (connection refused, a timeout, an error), the update runs on this
replica's own state with a 1/N share of the budget, N being --state-store-replicas or the number
of replicas seen alive in Redis, and the store is not asked again for RETRY_AFTER_S: the store
being down never refuses a request by itself, it only splits the budget.
"""

from __future__ import annotations

import time
import uuid

import redis

from scaler.admission import AdmissionState
from scaler.state.codec import decode, encode
from scaler.state.store import StoreStats, T, Update

PREFIX = "slo-scaler:"
STATE_TTL_MS = 300_000  # a model nobody asked about for 5 minutes starts afresh
MAX_ATTEMPTS = 5  # concurrent writes in a row before this call spends its local share instead
RETRY_AFTER_S = 1.0  # after an error, the store is left alone this long
HEARTBEAT_S = 2.0  # how often this replica says it is alive and counts the others
HEARTBEAT_TTL_S = 3 * HEARTBEAT_S


class RedisStore:
    def __init__(self, url: str, *, replicas: int | None = None, timeout_s: float = 0.02,
                 clock=time.monotonic) -> None:
        if replicas is not None and replicas < 1:
            raise ValueError(f"--state-store-replicas: expected a whole number >= 1, got {replicas}")
        self.description = redis.connection.parse_url(url).get("host", "redis") if url else "redis"
        self.stats = StoreStats(replicas=replicas or 1)
        self._configured = replicas
        self._client = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s,
                                            retry_on_timeout=False)
        self._clock = clock
        self._skip_until = float("-inf")
        self._heartbeat_at = float("-inf")
        self._id = uuid.uuid4().hex[:12]
        self._local: dict[str, AdmissionState] = {}

    def update(self, key: str, fn: Update) -> T:
        now = self._clock()
        if now >= self._skip_until:
            started = time.perf_counter()
            try:
                result = self._shared(PREFIX + "admission:" + key, fn)
                if result is not None:
                    self.stats.latency_sum_s += time.perf_counter() - started
                    self.stats.latency_count += 1
                    self.stats.updates["shared"] += 1
                    if now - self._heartbeat_at >= HEARTBEAT_S:
                        self._heartbeat(now)
                    return result[0]
            except redis.RedisError as error:
                name = type(error).__name__
                self.stats.errors[name] = self.stats.errors.get(name, 0) + 1
                self._skip_until = now + RETRY_AFTER_S
        return self._fallback(key, fn)

    def _shared(self, key: str, fn: Update) -> tuple[T] | None:
        with self._client.pipeline() as pipe:
            for _ in range(MAX_ATTEMPTS):
                try:
                    pipe.watch(key)
                    result, state = fn(decode(pipe.get(key)), 1.0)
                    pipe.multi()
                    pipe.set(key, encode(state), px=STATE_TTL_MS)
                    pipe.execute()
                    return (result,)
                except redis.WatchError:
                    self.stats.conflicts += 1
        return None

    def _fallback(self, key: str, fn: Update) -> T:
        result, self._local[key] = fn(self._local.get(key) or AdmissionState(), 1.0 / self.stats.replicas)
        self.stats.updates["fallback"] += 1
        return result

    def _heartbeat(self, now: float) -> None:
        self._heartbeat_at = now
        pipe = self._client.pipeline(transaction=False)
        pipe.set(f"{PREFIX}replica:{self._id}", b"1", ex=int(HEARTBEAT_TTL_S))
        pipe.eval("return #redis.call('KEYS', ARGV[1])", 0, f"{PREFIX}replica:*")
        _, alive = pipe.execute()
        if self._configured is None:
            self.stats.replicas = max(1, int(alive))

    def close(self) -> None:
        try:
            self._client.delete(f"{PREFIX}replica:{self._id}")
        except redis.RedisError:
            pass
        self._client.close()
