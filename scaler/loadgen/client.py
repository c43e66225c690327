"""One streamed OpenAI-compatible request, retried on 429/503 as the server asks.

Times come from an injected `clock` and waits go through an injected `sleep`, so tests check
the waits a client makes without waiting, and the runner can share one clock for all requests.
TTFT is measured from the start of the attempt that was admitted (what the server's queue did
to it); the time spent being refused and waiting is reported separately, and end-to-end latency
runs from the first attempt to the last token (what the user lived through).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field

import aiohttp

from scaler.loadgen.endpoint import Endpoint
from scaler.loadgen.retry import RETRYABLE_STATUSES, Backoff, parse_retry_after

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

OK, REFUSED, ERROR = "ok", "refused", "error"


_HEADER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,127}$")


@dataclass(frozen=True)
class Headers:
    """Header names the gateway reads to tell tenants and request classes apart."""

    tenant: str = "x-tenant-id"
    request_class: str = "x-request-class"

    def __post_init__(self) -> None:
        for flag, value in (("--tenant-header", self.tenant), ("--class-header", self.request_class)):
            if not isinstance(value, str) or not _HEADER_NAME.match(value):
                raise ValueError(f"{flag}: expected an HTTP header name of letters, digits and '-', got {value!r}")


@dataclass
class Result:
    """What happened to one request. Times are seconds; `start` is on the run's clock."""

    id: str
    request_class: str
    tenant: str
    prompt_tokens: int
    max_tokens: int
    scheduled: float  # when the workload wanted it sent, seconds from the run's start
    start: float = 0.0  # first attempt, seconds from the run's start
    outcome: str = ERROR
    status: int | None = None  # status of the last attempt (None: no response)
    refusals: list[int] = field(default_factory=list)  # status of each refused attempt
    waits: list[float] = field(default_factory=list)  # seconds waited before each retry
    wait_reasons: list[str] = field(default_factory=list)
    ttft_s: float | None = None
    tpot_s: float | None = None
    e2e_s: float | None = None
    output_tokens: int = 0
    error: str | None = None

    def to_json(self) -> dict:
        return asdict(self)


def prompt_text(tokens: int) -> str:
    """About `tokens` tokens for common BPE tokenizers (one short word each)."""
    return " ".join(["hello"] * max(1, tokens))


@dataclass
class Client:
    session: aiohttp.ClientSession
    endpoint: Endpoint
    model: str
    backoff: Backoff = field(default_factory=Backoff)
    headers: Headers = field(default_factory=Headers)
    clock: Clock = time.monotonic
    sleep: Sleep = asyncio.sleep
    rng: random.Random = field(default_factory=random.Random)
    timeout_s: float = 300.0
    t0: float = 0.0  # the run's start on `clock`

    def body(self, prompt_tokens: int, max_tokens: int) -> dict:
        text = prompt_text(prompt_tokens)
        body: dict = {
            "model": self.model,
            "max_tokens": max_tokens,
            "stream": True,
            "stream_options": {"include_usage": True},
            # vLLM's extension: generate exactly max_tokens, so output sizes follow the workload.
            "ignore_eos": True,
        }
        if self.endpoint.api == "chat":
            body["messages"] = [{"role": "user", "content": text}]
        else:
            body["prompt"] = text
        return body

    async def send(self, result: Result) -> Result:
        """Send until admitted, refused for good, or failed; fill in and return `result`."""
        headers = {
            self.headers.tenant: result.tenant,
            self.headers.request_class: result.request_class,
            # Exact sizes for the emulator; vLLM ignores the header and counts the prompt text.
            "x-prompt-tokens": str(result.prompt_tokens),
        }
        body = self.body(result.prompt_tokens, result.max_tokens)
        first = self.clock()
        result.start = first - self.t0
        retry = 0
        while True:
            began = self.clock()
            try:
                refused = await self._attempt(body, headers, result, began)
            except asyncio.TimeoutError:
                result.outcome, result.error = ERROR, f"timeout after {self.timeout_s:g}s"
                return result
            except (aiohttp.ClientError, ValueError) as exc:
                result.outcome, result.error = ERROR, f"{type(exc).__name__}: {exc}"
                return result
            if refused is None:
                result.outcome = OK
                result.e2e_s = self.clock() - first
                return result
            result.refusals.append(result.status)
            retry += 1
            if retry > self.backoff.max_retries:
                result.outcome = REFUSED
                return result
            delay, reason = self.backoff.delay(retry, refused.retry_after_s, self.rng.random())
            result.waits.append(delay)
            result.wait_reasons.append(reason)
            await self.sleep(delay)

    async def _attempt(self, body: dict, headers: dict, result: Result, began: float) -> "_Refused | None":
        """One attempt: None when served, what the server said when it refused."""
        timeout = aiohttp.ClientTimeout(total=self.timeout_s)
        async with self.session.post(self.endpoint.url, json=body, headers=headers, timeout=timeout) as resp:
            result.status = resp.status
            if resp.status in RETRYABLE_STATUSES:
                await resp.read()
                return _Refused(parse_retry_after(resp.headers.get("Retry-After")))
            if resp.status != 200:
                text = (await resp.text())[:200]
                raise ValueError(f"HTTP {resp.status}: {text}")
            first_token = last_token = None
            chunks = 0
            usage_tokens = None
            async for raw in resp.content:
                line = raw.strip()
                if not line.startswith(b"data:"):
                    continue
                data = line[5:].strip()
                if data == b"[DONE]":
                    break
                event = json.loads(data)
                if event.get("usage") and event["usage"].get("completion_tokens") is not None:
                    usage_tokens = event["usage"]["completion_tokens"]
                if _has_text(event, self.endpoint.api):
                    now = self.clock()
                    first_token = first_token if first_token is not None else now
                    last_token = now
                    chunks += 1
        if first_token is None:
            raise ValueError("stream ended without a token")
        result.ttft_s = first_token - began
        result.output_tokens = usage_tokens if usage_tokens is not None else chunks
        if result.output_tokens > 1:
            result.tpot_s = (last_token - first_token) / (result.output_tokens - 1)
        return None


@dataclass(frozen=True)
class _Refused:
    retry_after_s: float | None


def _has_text(event: dict, api: str) -> bool:
    for choice in event.get("choices") or ():
        text = choice.get("delta", {}).get("content") if api == "chat" else choice.get("text")
        if text:
            return True
    return False
