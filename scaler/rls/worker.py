"""The rate-limit service's own process (`serve` starts it: scaler/rls/process.py).

Why a process: in one interpreter the RLS's threads wait for the GIL behind every poll round and
every KEDA call on the scaler's loop (p99 17 ms at 300 ScaledObjects + 500 calls/s, where 5 ms is
the target). Here the RLS has an interpreter to itself and reads a copy of what it needs:

- serve -> here: each model's published view (key, configuration, latest decision, the data time
  it was made from) whenever it changes, the --config shedding settings, `sync` and `stop`.
- here -> serve: every FLUSH_EVERY_S, the requests counted per model (the scaler's arrival rate
  and scale-from-zero), the decision counts and the state-store statistics for serve's /metrics.

Fail open is unchanged: a model not (yet) published is an unknown model; a decision whose data is
older than maxStalenessSeconds is UNKNOWN here exactly as in serve (registry.decision_at, checked
per call), so a stuck or dead serve makes this process admit. SIGTERM and SIGINT are serve's to
handle: this process stops when serve says `stop` or its end of the socket closes.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import sys
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection

from prometheus_client import CollectorRegistry

from scaler.policy import Decision, PolicyConfig
from scaler.server import logs
from scaler.server.metadata import ModelKey
from scaler.server.registry import decision_at, find

log = logging.getLogger("scaler.rls")
FLUSH_EVERY_S = 0.05  # counts reach serve at most this late (its arrival marks are 0.25 s apart)


@dataclass(frozen=True)
class PublishedModel:
    """What the RLS needs of one model, as serve last decided it."""

    key: ModelKey
    config: PolicyConfig
    decision: Decision | None
    observed_at: float | None  # data time of the observation behind `decision`


class MirrorEntry:
    """A published model, read by RateLimitService like a ModelEntry."""

    def __init__(self, published: PublishedModel, mirror: "Mirror") -> None:
        self.published, self.key, self.config = published, published.key, published.config
        self.name, self.namespace = self.key.model, self.key.namespace
        self._mirror = mirror
        self._stale_view: tuple[Decision, Decision] | None = None

    def decision_at(self, now: float) -> Decision | None:
        p = self.published
        view, self._stale_view = decision_at(p.decision, p.observed_at, p.config.max_staleness_s, now,
                                             self._stale_view)
        return view

    @property
    def observed_at(self) -> float | None:
        return self.published.observed_at

    def record_arrivals(self, n: float = 1, admitted: bool = True) -> None:
        self._mirror.count_arrivals(self.key, n, admitted)


class Mirror:
    """The registry as the RLS process sees it: replaced whole on each update (readers on grpc's
    threads take one consistent dict), plus the arrivals counted since the last flush."""

    def __init__(self) -> None:
        self.clock = time.time
        self.shedding: dict = {}  # ModelAdmission holds this mapping: updated in place
        # (key -> entry, served name -> keys): one object, so a reader never pairs old and new
        self._index: tuple[dict[ModelKey, MirrorEntry], dict[str, frozenset[ModelKey]]] = ({}, {})
        self._arrivals: dict[ModelKey, list[float]] = {}  # key -> [offered, admitted, last time]
        self._lock = threading.Lock()

    def bind_loop(self, loop) -> None:
        """Nothing to bind: arrivals go to serve in batches, not to a loop here."""

    def get(self, model: str, namespace: str | None = None) -> MirrorEntry | None:
        entries, by_name = self._index
        return find(entries, by_name, model, namespace)

    def update(self, changes: dict[ModelKey, PublishedModel | None]) -> None:
        entries = dict(self._index[0])
        for key, published in changes.items():
            if published is None:
                entries.pop(key, None)
            else:
                entries[key] = MirrorEntry(published, self)
        by_name: dict[str, set[ModelKey]] = {}
        for key in entries:
            by_name.setdefault(key.model, set()).add(key)
        self._index = (entries, {name: frozenset(keys) for name, keys in by_name.items()})

    def set_shedding(self, shedding: dict) -> None:
        for key in [k for k in self.shedding if k not in shedding]:
            del self.shedding[key]
        self.shedding.update(shedding)

    def count_arrivals(self, key: ModelKey, n: float, admitted: bool) -> None:
        now = self.clock()
        with self._lock:
            counts = self._arrivals.setdefault(key, [0.0, 0.0, now])
            counts[0] += n
            counts[1] += n if admitted else 0.0
            counts[2] = now

    def take_arrivals(self) -> dict[ModelKey, tuple[float, float, float]]:
        with self._lock:
            taken, self._arrivals = self._arrivals, {}
        return {key: tuple(v) for key, v in taken.items()}


class Worker:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.mirror = Mirror()
        self.service = self.server = None
        self._send_lock = threading.Lock()
        self._stopped = threading.Event()

    def send(self, message) -> None:
        with self._send_lock:
            self.conn.send(message)

    def flush(self) -> None:
        """Counts since the last flush to serve (nothing when nothing happened)."""
        if self.service is None:
            return
        arrivals, decisions = self.mirror.take_arrivals(), self.service.metrics.take()
        if arrivals or decisions:
            self.send(("counts", arrivals, decisions, self.service.store.stats))

    def _flusher(self) -> None:
        while not self._stopped.wait(FLUSH_EVERY_S):
            try:
                self.flush()
            except OSError:  # serve is gone: the reader sees EOF and stops us
                return

    def run(self) -> int:
        from scaler.rls import server  # grpc and the service: after the socket is ours

        loop = asyncio.new_event_loop()
        grace: float | None = 0.0
        try:
            while True:
                try:
                    message = self.conn.recv()
                except (EOFError, OSError):
                    break  # serve exited without a word: stop now
                kind = message[0]
                if kind == "models":
                    self.mirror.update(message[1])
                elif kind == "shedding":
                    self.mirror.set_shedding(message[1])
                elif kind == "sync":
                    self.flush()
                    self.send(("synced", message[1]))
                elif kind == "serve":
                    try:
                        self.server = loop.run_until_complete(
                            server.serve_settings(self.mirror, message[1], CollectorRegistry(auto_describe=False)))
                    except OSError as error:
                        self.send(("failed", "OSError", str(error)))
                        return 1
                    except Exception as error:  # noqa: BLE001 (reported to serve, which exits with it)
                        self.send(("failed", type(error).__name__, str(error)))
                        return 1
                    self.service = self.server.service
                    gc.freeze()  # start-up objects: out of every later collection's way
                    threading.Thread(target=self._flusher, name="rls-flush", daemon=True).start()
                    self.send(("ready", self.server.address))
                elif kind == "stop":
                    grace = message[1]
                    break
        finally:
            self._stopped.set()
            if self.server is not None:
                loop.run_until_complete(self.server.stop(grace))
                try:
                    self.flush()  # the last answers' counts
                except OSError:
                    pass
            loop.close()
        return 0


def main(argv: list[str]) -> int:
    """`python -m scaler.rls.worker FD LOG_LEVEL`: FD is this end of serve's socket pair."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    logs.configure(argv[1])
    sys.setswitchinterval(0.001)  # grpc's poll thread and the workers hand the GIL over promptly
    return Worker(Connection(int(argv[0]))).run()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
