"""One vLLM replica as a continuous-batching scheduler with an explicit clock.

Follows vLLM V1's scheduler loop: each step first serves the running requests (decodes and
the next chunks of partial prefills) within a per-step token budget, allocating paged KV
blocks; when blocks run out it preempts by recompute (the victim frees its blocks and goes
back to the front of the waiting queue). Only when nothing was preempted does it admit
waiting requests, up to max_num_seqs. The step's duration comes from EngineParams.step_time.

No I/O, no wall clock, no randomness: the caller passes `now`, so the same model runs on a
virtual clock (simulator) and on a scaled wall clock (emulator).
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import NamedTuple

from scaler.engine.params import EngineParams

@dataclass(eq=False, slots=True)
class Request:
    """A generation request; the replica fills in the timestamps (model seconds)."""

    id: str
    prompt_tokens: int
    max_tokens: int
    arrival_time: float
    priority: int = 0  # vLLM's convention: lower value is served first
    stop_after: int | None = None  # the model's own answer length (finish "stop"); None runs to max_tokens
    queued_time: float | None = None
    first_scheduled_time: float | None = None
    first_token_time: float | None = None
    last_token_time: float | None = None
    finish_time: float | None = None
    output_tokens: int = 0
    num_preemptions: int = 0
    finished_reason: str | None = None
    # Scheduler bookkeeping: tokens whose KV is computed, blocks held, admission order.
    num_computed_tokens: int = field(default=0, repr=False)
    num_blocks: int = field(default=0, repr=False)
    seq: int = field(default=-1, repr=False)

    @property
    def num_tokens(self) -> int:
        """Prompt plus generated tokens: what a recompute after preemption must prefill."""
        return self.prompt_tokens + self.output_tokens

    @property
    def finished(self) -> bool:
        return self.finished_reason is not None


class StepOutcome(NamedTuple):
    """What one engine iteration did; every change took effect at `end`.

    Immutable like a frozen dataclass, built at a third of the cost (one per step)."""

    start: float
    end: float
    tokens: list[tuple[Request, int]]  # output tokens emitted, per request
    first_tokens: list[Request]
    finished: list[Request]
    preempted: list[Request]
    prefill_tokens: int
    decode_seqs: int

    @property
    def duration(self) -> float:
        return self.end - self.start


@dataclass
class ReplicaCounters:
    """Monotonic counters, the sources of vLLM's *_total metrics."""

    preemptions: int = 0
    prompt_tokens: int = 0
    generation_tokens: int = 0
    finished: Counter = field(default_factory=Counter)  # finished_reason -> count


class _FcfsQueue(deque):
    """A deque under the queue interface: len, push and pop stay C calls in the scheduler loop."""

    __slots__ = ()
    push = deque.append
    push_front = deque.appendleft
    pop = deque.popleft  # the front, unlike deque.pop

    def peek(self) -> Request:
        return self[0]


class _PriorityQueue:
    """Lowest (priority, arrival_time, admission order) first, as vLLM's priority policy."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, float, int, Request]] = []
        self._removed: set[int] = set()

    def __len__(self) -> int:
        return len(self._heap) - len(self._removed)

    def push(self, request: Request) -> None:
        heapq.heappush(self._heap, (request.priority, request.arrival_time, request.seq, request))

    # A preempted request keeps its key, so it goes ahead of everything that arrived later.
    push_front = push

    def _drop_removed(self) -> None:
        while self._heap and self._heap[0][2] in self._removed:
            self._removed.discard(heapq.heappop(self._heap)[2])

    def peek(self) -> Request:
        self._drop_removed()
        return self._heap[0][3]

    def pop(self) -> Request:
        self._drop_removed()
        return heapq.heappop(self._heap)[3]

    def remove(self, request: Request) -> None:
        self._removed.add(request.seq)


class Replica:
    """A vLLM-like engine. Call `step(now)` whenever it has work and its last step has ended."""

    def __init__(self, params: EngineParams | None = None) -> None:
        self.params = (params or EngineParams()).validate()
        self._waiting = _PriorityQueue() if self.params.scheduling_policy == "priority" else _FcfsQueue()
        self._running: list[Request] = []
        self._requests: dict[str, Request] = {}
        self._free_blocks = self.params.num_gpu_blocks
        self._seq = itertools.count()
        self._busy_until = float("-inf")
        # decode_steps() and decode_timing() of the current state (None: to compute)
        self._plain: int | None = None
        self._timing: tuple[float, float] | None = None
        self._context: int | None = None  # set with _plain, see _decode_steps
        self.counters = ReplicaCounters()

    # --- state -------------------------------------------------------------------------

    @property
    def num_running(self) -> int:
        return len(self._running)

    # Every request held (waiting or running) is in _requests: the cheap count routing reads.
    @property
    def num_waiting(self) -> int:
        return len(self._requests) - len(self._running)

    @property
    def load(self) -> int:
        return len(self._requests)

    @property
    def kv_usage(self) -> float:
        """Fraction of KV blocks in use, as vllm:kv_cache_usage_perc (1 means full)."""
        return 1.0 - self._free_blocks / self.params.num_gpu_blocks

    @property
    def has_work(self) -> bool:
        return bool(self._requests)

    @property
    def busy_until(self) -> float:
        """End of the last step; the next step may start at this time or later."""
        return self._busy_until

    def get(self, request_id: str) -> Request | None:
        return self._requests.get(request_id)

    # --- requests ----------------------------------------------------------------------

    def check(self, prompt_tokens: int, max_tokens: int) -> None:
        """Raise ValueError (naming the field) for a request this engine would refuse."""
        if isinstance(prompt_tokens, bool) or not isinstance(prompt_tokens, int) or prompt_tokens < 1:
            raise ValueError(f"prompt_tokens: expected an integer >= 1, got {prompt_tokens!r}")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens: expected an integer >= 1, got {max_tokens!r}")
        if prompt_tokens + max_tokens > self.params.max_model_len:
            raise ValueError(
                f"max_tokens: prompt ({prompt_tokens}) plus max_tokens ({max_tokens}) exceeds "
                f"max_model_len={self.params.max_model_len}"
            )

    def add(self, request: Request, now: float) -> None:
        """Queue a request (it is considered from the next step on)."""
        self.check(request.prompt_tokens, request.max_tokens)
        if request.stop_after is not None and (isinstance(request.stop_after, bool) or request.stop_after < 1):
            raise ValueError(f"stop_after: expected an integer >= 1 or None, got {request.stop_after!r}")
        if request.id in self._requests:
            raise ValueError(f"id: request {request.id!r} is already in this replica")
        if request.finished or request.seq >= 0:
            raise ValueError(f"id: request {request.id!r} was already admitted once")
        request.seq = next(self._seq)
        self._plain = self._timing = None
        request.queued_time = now
        self._requests[request.id] = request
        self._waiting.push(request)

    def abort(self, request_id: str, now: float) -> Request | None:
        """Drop a waiting or running request (client went away); None if it is not here."""
        request = self._requests.get(request_id)
        if request is None:
            return None
        self._plain = self._timing = None
        if request in self._running:
            self._running.remove(request)
            self._release(request)
        else:
            self._waiting.remove(request)
        self._finish(request, "abort", now)
        return request

    # --- scheduling --------------------------------------------------------------------

    def step(self, now: float) -> StepOutcome:
        """Schedule and run one iteration starting at `now`; its effects are as of `end`."""
        if now < self._busy_until:
            raise ValueError(f"now: {now} is before the end of the previous step ({self._busy_until})")
        self.decode_steps()  # notes the batch's context when every running request is decoding
        # One more token needs at most one block per request: count exactly only when that many are not free.
        if self._context is not None and (len(self._running) <= self._free_blocks
                                          or self._blocks_for_decode(1) <= self._free_blocks):
            return self._decode_step(now, self._context)
        # Hot path of the simulator: block arithmetic inlined (ceil(t / bs) == -(-t // bs) for ints).
        self._plain = self._timing = None
        params = self.params
        bs = params.block_size
        running = self._running
        budget = params.max_num_batched_tokens
        scheduled: dict[Request, int] = {}
        preempted: list[Request] = []

        # 1. Running requests first, in admission order.
        index = 0
        while index < len(running) and budget > 0:
            request = running[index]
            computed = request.num_computed_tokens
            n_new = request.prompt_tokens + request.output_tokens - computed
            if n_new > budget:
                n_new = budget
            needed = -(-(computed + n_new) // bs) - request.num_blocks
            self_preempted = False
            while needed > self._free_blocks:
                victim = self._victim()
                victim_index = running.index(victim)
                self._preempt(victim)
                preempted.append(victim)
                budget += scheduled.pop(victim, 0)
                if victim is request:
                    self_preempted = True
                    break
                if victim_index < index:
                    index -= 1
            if self_preempted:
                break
            self._free_blocks -= needed
            request.num_blocks += needed
            scheduled[request] = n_new
            budget -= n_new
            index += 1

        # 2. Admit waiting requests only if nobody was preempted (vLLM V1 does the same).
        if not preempted:
            waiting = self._waiting
            max_seqs = params.max_num_seqs
            chunked = params.enable_chunked_prefill
            while len(waiting) and len(running) < max_seqs and budget > 0:
                request = waiting.peek()
                n_new = request.prompt_tokens + request.output_tokens
                if n_new > budget:
                    if not chunked:
                        break
                    n_new = budget
                needed = -(-n_new // bs)
                if needed > self._free_blocks:
                    break
                waiting.pop()
                running.append(request)
                self._free_blocks -= needed
                request.num_blocks += needed
                if request.first_scheduled_time is None:
                    request.first_scheduled_time = now
                scheduled[request] = n_new
                budget -= n_new

        prefill_tokens = decode_seqs = context_tokens = 0
        for request, n_new in scheduled.items():
            computed = request.num_computed_tokens
            context_tokens += computed
            if n_new == 1 and request.output_tokens > 0 and computed == request.prompt_tokens + request.output_tokens - 1:
                decode_seqs += 1
            else:
                prefill_tokens += n_new
        end = now + params.step_time(prefill_tokens, decode_seqs, context_tokens) if scheduled else now
        self._busy_until = end

        tokens: list[tuple[Request, int]] = []
        first_tokens: list[Request] = []
        finished: list[Request] = []
        for request, n_new in scheduled.items():
            computed = request.num_computed_tokens + n_new
            request.num_computed_tokens = computed
            if computed < request.prompt_tokens + request.output_tokens:
                continue  # a prefill chunk: no token sampled yet
            output = request.output_tokens = request.output_tokens + 1
            tokens.append((request, 1))
            if request.first_token_time is None:
                request.first_token_time = end
                self.counters.prompt_tokens += request.prompt_tokens
                first_tokens.append(request)
            request.last_token_time = end
            reason = None
            if output >= request.max_tokens:
                reason = "length"
            elif request.stop_after is not None and output >= request.stop_after:
                reason = "stop"
            if reason:
                running.remove(request)
                self._release(request)
                self._finish(request, reason, end)
                finished.append(request)
        self.counters.generation_tokens += len(tokens)
        return StepOutcome(now, end, tokens, first_tokens, finished, preempted, prefill_tokens, decode_seqs)

    def _decode_step(self, now: float, context: int) -> StepOutcome:
        """step() when nothing waits, every running request decodes one token and the KV blocks
        for them are free: no admission, no preemption, no prefill, so the same effects in one
        pass over the batch instead of three (most steps of a large batch)."""
        self._plain = self._timing = None
        running = self._running
        n = len(running)
        end = now + self.params.step_time(0, n, context)
        self._busy_until = end
        bs = self.params.block_size
        tokens: list[tuple[Request, int]] = []
        finished: list[Request] = []
        allocated = 0
        for request in running:
            computed = request.num_computed_tokens + 1
            blocks = -(-computed // bs)
            allocated += blocks - request.num_blocks
            request.num_blocks = blocks
            request.num_computed_tokens = computed
            output = request.output_tokens = request.output_tokens + 1
            tokens.append((request, 1))
            request.last_token_time = end
            if output >= request.max_tokens or (request.stop_after is not None and output >= request.stop_after):
                finished.append(request)
        self._free_blocks -= allocated
        for request in finished:
            running.remove(request)
            self._release(request)
            self._finish(request, "length" if request.output_tokens >= request.max_tokens else "stop", end)
        self.counters.generation_tokens += n
        return StepOutcome(now, end, tokens, [], finished, [], 0, n)

    # --- fast-forward (simulator) ----------------------------------------------------------

    def decode_steps(self) -> int:
        """How many next steps are certain to be plain decode steps in which no request
        finishes: nothing waiting, every running request past its prefill, KV blocks for all.
        A simulator may apply them at once with fast_forward; 0 means call step()."""
        if self._plain is None:
            self._plain = self._decode_steps()
        return self._plain

    def _decode_steps(self) -> int:
        """decode_steps(); sets _context to the batch's KV tokens when nothing waits and every
        running request is decoding (the next step is then a decode step of the whole batch), else None."""
        running = self._running
        self._context = None
        if len(self._requests) > len(running) or not running or len(running) > self.params.max_num_batched_tokens:
            return 0
        steps = None
        context = 0
        for r in running:
            output = r.output_tokens
            computed = r.num_computed_tokens
            if output < 1 or computed != r.prompt_tokens + output - 1:
                return 0
            context += computed
            stop = r.stop_after
            limit = r.max_tokens if stop is None or stop > r.max_tokens else stop
            left = limit - output - 1  # the step that reaches the limit is not plain
            if steps is None or left < steps:
                steps = left
        self._context = context
        # Each request needs at most ceil(steps / bs) more blocks: only a tight cache needs the exact count.
        bs = self.params.block_size
        while steps > 0 and len(running) * -(-steps // bs) > self._free_blocks and \
                self._blocks_for_decode(steps) > self._free_blocks:
            steps //= 2
        return max(0, steps)

    def decode_timing(self) -> tuple[float, float]:
        """(seconds of the next plain decode step, seconds each later one adds): the next `steps`
        plain decode steps take steps x first + growth x steps x (steps - 1) / 2."""
        if self._timing is None:
            n = len(self._running)
            context = self._context if self._plain is not None and self._context is not None else \
                sum(r.num_computed_tokens for r in self._running)
            p = self.params
            self._timing = (p.step_base_s + p.decode_s_per_seq * n + p.kv_read_s_per_token * context,
                            p.kv_read_s_per_token * n)
        return self._timing

    def decode_duration(self, steps: int) -> float:
        """Model seconds of the next `steps` plain decode steps (see decode_steps)."""
        first, growth = self.decode_timing()
        return steps * first + growth * steps * (steps - 1) / 2

    def fast_forward(self, now: float, steps: int) -> StepOutcome:
        """Apply `steps` plain decode steps back to back from `now`, leaving the state that as
        many step() calls would; the outcome sums them (no first token, nothing finishes)."""
        end = self.advance(now, steps)
        running = self._running  # a plain decode run adds and removes nobody
        return StepOutcome(now, end, [(r, steps) for r in running], [], [], [], 0, steps * len(running))

    def advance(self, now: float, steps: int) -> float:
        """fast_forward without building its outcome (the simulator's hot path); returns its end."""
        if not 0 < steps <= self.decode_steps():
            raise ValueError(f"steps: expected 1..{self.decode_steps()} plain decode steps, got {steps!r}")
        if now < self._busy_until:
            raise ValueError(f"now: {now} is before the end of the previous step ({self._busy_until})")
        end = now + self.decode_duration(steps)
        self._plain = self._timing = None
        bs = self.params.block_size
        allocated = 0
        for r in self._running:
            computed = r.num_computed_tokens + steps
            blocks = -(-computed // bs)
            allocated += blocks - r.num_blocks
            r.num_blocks = blocks
            r.num_computed_tokens = computed
            r.output_tokens += steps
            r.last_token_time = end
        self._free_blocks -= allocated
        self.counters.generation_tokens += steps * len(self._running)
        self._busy_until = end
        return end

    def _blocks_for_decode(self, steps: int) -> int:
        bs = self.params.block_size
        return sum(-(-(r.num_computed_tokens + steps) // bs) - r.num_blocks for r in self._running)

    def _victim(self) -> Request:
        if self.params.scheduling_policy == "priority":
            return max(self._running, key=lambda r: (r.priority, r.arrival_time, r.seq))
        return self._running[-1]

    def _preempt(self, request: Request) -> None:
        self._running.remove(request)
        self._release(request)
        request.num_computed_tokens = 0
        request.num_preemptions += 1
        self.counters.preemptions += 1
        self._waiting.push_front(request)

    def _release(self, request: Request) -> None:
        self._free_blocks += request.num_blocks
        request.num_blocks = 0

    def _finish(self, request: Request, reason: str, now: float) -> None:
        request.finished_reason = reason
        request.finish_time = now
        self.counters.finished[reason] += 1
        del self._requests[request.id]
