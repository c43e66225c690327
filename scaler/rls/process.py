"""serve's side of the RLS process (scaler/rls/worker.py): start it, publish, count, stop.

Publishing: every PUBLISH_EVERY_S (and before each /metrics page) the models whose decision, data
time or configuration changed since the last publish go to the process, removed ones as None; the
--config shedding settings when they change. Sends run on a thread of their own, so a slow reader
never holds the loop, and what waits to be sent is coalesced (the latest view per model wins), so
a stuck process costs serve at most one pending view per model. The process's counts come back on the loop (add_reader): arrivals into each
model's ArrivalCounter with the time the RLS saw them, decision counts and state-store statistics
into the collector on serve's /metrics. `sync()` makes a /metrics page consistent: what it shows as
decided has reached the RLS, and every RLS answer given before it is counted on it.

A process that exits on its own (a crash, the OOM killer) is logged, counted
(slo_scaler_rls_process_restarts_total) and started again with everything published anew;
meanwhile Envoy fails open on the closed port. Its admission state (local buckets) starts over.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import sys
import threading
from collections import deque
from dataclasses import fields
from multiprocessing.connection import Connection
from pathlib import Path

from prometheus_client import CollectorRegistry

from scaler.rls.metrics import RlsMetrics
from scaler.rls.settings import RlsSettings
from scaler.rls.worker import PublishedModel
from scaler.state import StoreStats

log = logging.getLogger("scaler.rls")
PUBLISH_EVERY_S = 0.05
START_TIMEOUT_S = 30.0
SYNC_TIMEOUT_S = 1.0  # a /metrics page never waits longer than this for the RLS process
RESTART_DELAYS_S = (0.0, 1.0, 2.0, 5.0, 10.0, 30.0)  # between attempts to start it again, the last repeated
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


class RlsProcess:
    def __init__(self, registry, settings: RlsSettings, log_level: str, metrics: RlsMetrics, stats: StoreStats) -> None:
        self.registry, self.settings, self.log_level = registry, settings, log_level
        self.metrics, self.stats = metrics, stats
        self.address: str | None = None
        self.proc: subprocess.Popen | None = None
        self.conn: Connection | None = None
        self._loop = asyncio.get_running_loop()
        self._publishing: asyncio.Task | None = None
        self._restarting: asyncio.Task | None = None
        self._stopping = False
        self._replies: dict[int, asyncio.Future] = {}
        self._syncs = 0

    @classmethod
    async def start(cls, registry, args, metrics_registry: CollectorRegistry) -> RlsProcess | None:
        """The RLS process for `args`' --rls-* flags, serving once this returns; None with --rls-port 0.
        OSError when it cannot listen, RuntimeError for anything else it could not start with."""
        settings = RlsSettings.from_args(args)  # bad flags fail here, in serve, as before
        if settings.port == 0:
            return None
        stats = StoreStats()
        metrics = RlsMetrics(registry, stats)
        metrics_registry.register(metrics)
        rls = cls(registry, settings, args.log_level, metrics, stats)
        await rls._launch()
        rls._publishing = asyncio.create_task(rls._publish_loop())
        return rls

    async def _launch(self) -> None:
        """A new process: everything published to it, then serving."""
        ours, theirs = socket.socketpair()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(PACKAGE_ROOT),
                                                                         os.environ.get("PYTHONPATH")])))
        self.proc = subprocess.Popen([sys.executable, "-m", "scaler.rls.worker", str(theirs.fileno()), self.log_level],
                                     pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL)
        theirs.close()
        self.conn = Connection(ours.detach())
        self._sent: dict = {}  # key -> (decision, observation, metadata) as last published
        self._shedding: dict | None = None
        # What the sender thread has to send: the latest view per model, then control messages in order.
        self._pending: dict = {}
        self._pending_shedding: dict | None = None
        self._control: deque = deque()
        self._wake = threading.Condition()
        self._sender = threading.Thread(target=self._send_all, name="rls-publish", daemon=True)
        self._sender.start()
        self.publish()  # every model known now is known to the RLS before it answers
        self._put(("serve", self.settings))
        try:
            reply = await asyncio.wait_for(self._loop.run_in_executor(None, self.conn.recv), START_TIMEOUT_S)
        except (TimeoutError, EOFError, OSError) as error:
            await self._kill()
            raise RuntimeError(f"the rate-limit service process did not start: {error!r}") from None
        except asyncio.CancelledError:  # the start given up on: the process must not outlive it
            await self._kill()
            raise
        if reply[0] == "failed":
            await self._kill()
            raise (OSError if reply[1] == "OSError" else RuntimeError)(reply[2])
        self.address = reply[1]
        self._loop.add_reader(self.conn.fileno(), self._receive)

    def publish(self) -> None:
        """Send what changed since the last publish (on the loop: reads the registry)."""
        changes, seen = {}, set()
        for entry in self.registry.models():
            seen.add(entry.key)
            decision, observation, metadata = entry.decision, entry.observation, entry.metadata
            last = self._sent.get(entry.key)  # compared by identity: ~1 us a model, every PUBLISH_EVERY_S
            if last is None or last[0] is not decision or last[1] is not observation or last[2] is not metadata:
                self._sent[entry.key] = (decision, observation, metadata)
                changes[entry.key] = PublishedModel(entry.key, entry.config, entry.decision, entry.observed_at)
        for key in [k for k in self._sent if k not in seen]:
            del self._sent[key]
            changes[key] = None
        shedding = dict(self.registry.shedding)
        if not changes and shedding == self._shedding:
            return
        with self._wake:
            self._pending.update(changes)
            if shedding != self._shedding:
                self._shedding = self._pending_shedding = shedding
            self._wake.notify()

    def _put(self, message) -> None:
        """A control message, sent after every view published before it."""
        with self._wake:
            self._control.append(message)
            self._wake.notify()

    async def _publish_loop(self) -> None:
        while True:
            await asyncio.sleep(PUBLISH_EVERY_S)
            if self._restarting is not None:
                continue  # a new process gets everything when it starts
            try:
                self.publish()
            except Exception:  # noqa: BLE001 (the next tick retries; the RLS fails open on stale views)
                log.exception("rls publish failed", extra={"fields": {"event": "rls_error"}})

    async def sync(self) -> None:
        """Publish now and wait (at most SYNC_TIMEOUT_S) until the RLS has it and its counts are in."""
        if self._restarting is not None or self.proc.poll() is not None:
            return
        self.publish()
        self._syncs += 1
        n, future = self._syncs, self._loop.create_future()
        self._replies[n] = future
        self._put(("sync", n))
        try:
            await asyncio.wait_for(future, SYNC_TIMEOUT_S)
        except TimeoutError:
            pass
        finally:
            self._replies.pop(n, None)

    def _send_all(self) -> None:
        conn, wake = self.conn, self._wake  # this process's, not a later one's
        while True:
            with wake:
                while not (self._pending or self._pending_shedding is not None or self._control):
                    wake.wait()
                models, self._pending = self._pending, {}
                shedding, self._pending_shedding = self._pending_shedding, None
                control = list(self._control)
                self._control.clear()
            messages = ([("models", models)] if models else []) + \
                ([("shedding", shedding)] if shedding is not None else []) + control
            for message in messages:
                if message is None:
                    return
                try:
                    conn.send(message)
                except OSError:
                    return  # the process is gone: _receive sees it

    def _receive(self) -> None:
        try:
            while self.conn.poll():
                self._apply(self.conn.recv())
        except (EOFError, OSError):
            self._loop.remove_reader(self.conn.fileno())
            if not self._stopping and self._restarting is None:
                self._restarting = self._loop.create_task(self._restart())

    async def _restart(self) -> None:
        returncode = await asyncio.to_thread(self.proc.wait)
        self.metrics.restarts += 1
        log.error("rate-limit service process exited; starting it again (Envoy fails open meanwhile)",
                  extra={"fields": {"event": "rls_exited", "returncode": returncode}})
        await self._close()
        for attempt in range(10**9):
            await asyncio.sleep(RESTART_DELAYS_S[min(attempt, len(RESTART_DELAYS_S) - 1)])
            try:
                await self._launch()
            except (OSError, RuntimeError) as error:
                log.error("rate-limit service process did not start again", extra={"fields": {
                    "event": "rls_error", "error": str(error)[:300]}})
                continue
            log.info("rate-limit service process started again", extra={"fields": {
                "event": "rls_restarted", "address": self.address}})
            self._restarting = None
            return

    def _apply(self, message) -> None:
        kind = message[0]
        if kind == "counts":
            _, arrivals, decisions, stats = message
            for key, (offered, admitted, at) in arrivals.items():
                entry = self.registry.entry(key)
                if entry is not None:
                    if admitted:
                        entry.record_arrivals(admitted, admitted=True, at=at)
                    if offered > admitted:
                        entry.record_arrivals(offered - admitted, admitted=False, at=at)
            self.metrics.merge(decisions)
            for field in fields(StoreStats):
                setattr(self.stats, field.name, getattr(stats, field.name))
        elif kind == "synced":
            future = self._replies.get(message[1])
            if future is not None and not future.done():
                future.set_result(None)

    async def stop(self, grace: float | None) -> None:
        """Stop taking calls (in-flight ones get `grace` seconds), collect the last counts, wait."""
        self._stopping = True
        for task in (self._publishing, self._restarting):
            if task is not None:
                task.cancel()
        if self.proc.poll() is None:
            self._put(("stop", grace))
            try:
                await asyncio.wait_for(asyncio.to_thread(self.proc.wait), (grace or 0.0) + 5.0)
            except TimeoutError:
                self.proc.kill()
                await asyncio.to_thread(self.proc.wait)
            self._receive()  # the final counts, then EOF
        await self._close()

    async def _kill(self) -> None:
        self.proc.kill()
        await asyncio.to_thread(self.proc.wait)
        await self._close()

    async def _close(self) -> None:
        if self.conn.closed:
            return
        self._put(None)
        await asyncio.to_thread(self._sender.join, 5)
        try:
            self._loop.remove_reader(self.conn.fileno())
        except (ValueError, OSError):
            pass
        self.conn.close()
