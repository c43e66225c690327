"""Where the admission budget lives: in this process (one replica), or in Redis shared by every
replica, as envoyproxy/ratelimit keeps its counters, degrading to a local 1/N share, never to
refusal, while the store is out of reach."""

from scaler.state.store import AdmissionStore, LocalStore, StoreStats, Update

__all__ = ["AdmissionStore", "LocalStore", "StoreStats", "Update", "open_store"]


def open_store(url: str | None, *, replicas: int | None = None, timeout_s: float = 0.02) -> AdmissionStore:
    """`None` keeps the budget in this process; `redis://host:port/db` shares it (redis imported only then)."""
    if not url:
        return LocalStore()
    from scaler.state.redis_store import RedisStore

    return RedisStore(url, replicas=replicas, timeout_s=timeout_s)
