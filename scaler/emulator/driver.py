"""Runs one engine model on the model clock and hands its tokens to the HTTP handlers."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from scaler.emulator.clock import ModelClock
from scaler.emulator.metrics import VllmMetrics
from scaler.engine import Replica, Request

CATCH_UP_WALL_S = 0.005  # lateness of a wake-up treated as timer slop, not idle time


@dataclass(frozen=True)
class TokenEvent:
    """`n` new output tokens of one request at model time `time`; the last one has a reason."""

    n: int
    time: float
    finished_reason: str | None = None


class ReplicaDriver:
    def __init__(self, replica: Replica, clock: ModelClock, metrics: VllmMetrics) -> None:
        self.replica = replica
        self.clock = clock
        self.metrics = metrics
        self._streams: dict[str, asyncio.Queue[TokenEvent]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._last_submit = float("-inf")
        metrics.update_gauges(replica)

    def _next_start(self) -> float:
        """When the next step starts: right at the previous step's end when the engine runs
        back to back and we woke up late by timer slop only (so slop does not pile up into
        lost GPU time), otherwise now. Never before a request that arrived in between."""
        end, now = self.replica.busy_until, self.clock.now()
        if self._last_submit <= end <= now <= end + CATCH_UP_WALL_S * self.clock.speed:
            return end
        return max(now, end)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def finish_in_flight(self, timeout_s: float) -> None:
        """Let the step in flight deliver its last tokens. The engine marks a request finished when
        its last step starts and the stream ends when that step's time has come, so a replica with
        no work left may still owe tokens; stopping it then would abort those streams."""
        deadline = asyncio.get_running_loop().time() + timeout_s
        while self._streams and not self.replica.has_work and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.005)

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        now = self.clock.now()
        for request_id, stream in list(self._streams.items()):
            self.replica.abort(request_id, now)
            stream.put_nowait(TokenEvent(0, now, "abort"))
        self._streams.clear()

    def submit(self, request: Request) -> asyncio.Queue[TokenEvent]:
        """Queue a request (ValueError if the engine refuses it); its tokens arrive on the queue."""
        self._last_submit = self.clock.now()
        self.replica.add(request, self._last_submit)
        stream: asyncio.Queue[TokenEvent] = asyncio.Queue()
        self._streams[request.id] = stream
        self.metrics.update_gauges(self.replica)
        self._wake.set()
        return stream

    def abort(self, request_id: str) -> None:
        """The client went away: drop the request and free its KV blocks."""
        self._streams.pop(request_id, None)
        request = self.replica.abort(request_id, self.clock.now())
        if request is not None:
            self.metrics.observe_finished(request)
            self.metrics.update_gauges(self.replica)

    async def _run(self) -> None:
        while True:
            if not self.replica.has_work:
                self._wake.clear()
                await self._wake.wait()
                continue
            outcome = self.replica.step(self._next_start())
            # While the step runs the gauges show its batch, including requests ending with it.
            self.metrics.update_gauges(self.replica, finishing=len(outcome.finished))
            await self.clock.sleep_until(outcome.end)
            finished = {id(r): r.finished_reason for r in outcome.finished}
            for request, n in outcome.tokens:
                stream = self._streams.get(request.id)
                if stream is not None:
                    stream.put_nowait(TokenEvent(n, outcome.end, finished.get(id(request))))
            for request in outcome.finished:
                self._streams.pop(request.id, None)
            self.metrics.observe_step(outcome)
            if not self.replica.has_work:
                self.metrics.update_gauges(self.replica)
