"""The load generator's client against a tiny aiohttp server that refuses a fixed number of times.

Waits are checked through an injected sleep that records what the client asked for (and does not
wait), so the tests check the retry logic, not the machine's timing.
"""

from __future__ import annotations

import asyncio
import json
import random
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import aiohttp
import pytest
from aiohttp import web

from scaler.loadgen.client import ERROR, OK, REFUSED, Client, Headers, Result
from scaler.loadgen.endpoint import Endpoint
from scaler.loadgen.retry import Backoff, parse_retry_after


class RefusingServer:
    """Refuses the first `refusals` POSTs with `status` (+ Retry-After), then streams `tokens` tokens."""

    def __init__(self, refusals: int, status: int = 429, retry_after: str | None = "2", tokens: int = 4, chat: bool = False):
        self.refusals, self.status, self.retry_after, self.tokens, self.chat = refusals, status, retry_after, tokens, chat
        self.calls: list[dict] = []

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.calls.append({"path": request.path, "headers": dict(request.headers), "body": body})
        if len(self.calls) <= self.refusals:
            headers = {"Retry-After": self.retry_after} if self.retry_after is not None else {}
            return web.Response(status=self.status, headers=headers, text="over capacity")
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for i in range(self.tokens):
            choice = {"index": 0, "delta": {"content": f"t{i}"}} if self.chat else {"index": 0, "text": f"t{i}"}
            await resp.write(f"data: {json.dumps({'choices': [choice]})}\n\n".encode())
        usage = {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": self.tokens}}
        await resp.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())
        await resp.write_eof()
        return resp


async def _with_server(server: RefusingServer, prefix: str, test):
    app = web.Application()
    app.router.add_post(prefix + "/v1/completions", server.handle)
    app.router.add_post(prefix + "/v1/chat/completions", server.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    try:
        return await test(f"http://127.0.0.1:{port}{prefix}")
    finally:
        await runner.cleanup()


def _send(server: RefusingServer, backoff: Backoff, prefix: str = "", api: str | None = None, seed: int = 0):
    sleeps: list[float] = []

    async def recording_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async def test(url: str) -> Result:
        async with aiohttp.ClientSession() as session:
            client = Client(session, Endpoint.from_url(url, api), "m", backoff=backoff, sleep=recording_sleep,
                            rng=random.Random(seed), headers=Headers())
            result = Result("r0", "batch", "team-a", 7, 4, 0.0)
            return await client.send(result)

    result = asyncio.run(_with_server(server, prefix, test))
    return result, sleeps


def test_retry_after_is_honoured_then_the_stream_is_measured():
    server = RefusingServer(refusals=2, status=429, retry_after="2")
    result, sleeps = _send(server, Backoff(max_retries=3, base_s=0.1, cap_s=30))
    assert sleeps == [2.0, 2.0]
    assert result.waits == [2.0, 2.0]
    assert result.outcome == OK and result.status == 200
    assert result.refusals == [429, 429]
    assert len(server.calls) == 3
    assert result.output_tokens == 4 and result.ttft_s is not None and result.ttft_s >= 0
    assert result.tpot_s is not None and result.e2e_s >= result.ttft_s


def test_503_retry_after_longer_than_the_cap_waits_the_cap_and_gives_up_after_max_retries():
    server = RefusingServer(refusals=99, status=503, retry_after="120")
    result, sleeps = _send(server, Backoff(max_retries=2, base_s=0.5, cap_s=10))
    assert sleeps == [10.0, 10.0]
    assert result.outcome == REFUSED and result.refusals == [503, 503, 503]
    assert len(server.calls) == 3
    assert "above the cap" in result.wait_reasons[0]


def test_without_retry_after_the_backoff_doubles_up_to_the_cap():
    server = RefusingServer(refusals=4, status=503, retry_after=None)
    result, sleeps = _send(server, Backoff(max_retries=4, base_s=0.5, cap_s=3, jitter=0.0))
    assert sleeps == [0.5, 1.0, 2.0, 3.0]
    assert result.outcome == OK


def test_backoff_longer_than_a_short_retry_after_wins():
    # Retry-After is a floor: on the third retry the doubled backoff (4 s) exceeds the 1 s asked for.
    server = RefusingServer(refusals=3, status=429, retry_after="1")
    result, sleeps = _send(server, Backoff(max_retries=3, base_s=1.0, cap_s=60, jitter=0.0))
    assert sleeps == [1.0, 2.0, 4.0]
    assert result.outcome == OK


def test_jitter_stays_within_its_band():
    server = RefusingServer(refusals=3, status=503, retry_after=None)
    _, sleeps = _send(server, Backoff(max_retries=3, base_s=1.0, cap_s=60, jitter=0.5), seed=7)
    for retry, wait in enumerate(sleeps, start=1):
        full = 2 ** (retry - 1)
        assert full * 0.5 <= wait <= full


def test_tenant_and_class_headers_and_kserve_prefix_and_chat_api():
    server = RefusingServer(refusals=0, chat=True, tokens=3)
    result, _ = _send(server, Backoff(), prefix="/openai", api="chat")
    call = server.calls[0]
    assert call["path"] == "/openai/v1/chat/completions"
    assert call["headers"]["x-tenant-id"] == "team-a" and call["headers"]["x-request-class"] == "batch"
    assert call["body"]["stream"] is True and call["body"]["messages"][0]["role"] == "user"
    assert result.outcome == OK and result.output_tokens == 3


def test_other_status_is_an_error_without_retry():
    server = RefusingServer(refusals=1, status=400, retry_after=None)
    result, sleeps = _send(server, Backoff())
    assert result.outcome == ERROR and "HTTP 400" in result.error
    assert sleeps == [] and len(server.calls) == 1


@pytest.mark.parametrize(
    "url, api, want_url",
    [
        ("http://127.0.0.1:8000", None, "http://127.0.0.1:8000/v1/completions"),
        ("http://127.0.0.1:8000/", "chat", "http://127.0.0.1:8000/v1/chat/completions"),
        ("http://gw.example/openai", None, "http://gw.example/openai/v1/completions"),
        ("http://gw.example/openai/v1/", None, "http://gw.example/openai/v1/completions"),
        ("https://gw.example/openai/v1/chat/completions", None, "https://gw.example/openai/v1/chat/completions"),
    ],
)
def test_endpoint_resolution(url, api, want_url):
    assert Endpoint.from_url(url, api).url == want_url


@pytest.mark.parametrize(
    "url, api, field",
    [
        ("ftp://host", None, "url"),
        ("http://host:8000?x=1", None, "url"),
        ("127.0.0.1:8000", None, "url"),
        ("http://host/v1/chat/completions", "completions", "api"),
        ("http://host", "embeddings", "api"),
    ],
)
def test_bad_endpoint_names_the_field(url, api, field):
    with pytest.raises(ValueError, match=rf"^{field}:"):
        Endpoint.from_url(url, api)


def test_retry_after_http_date_and_garbage():
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
    assert parse_retry_after(format_datetime(now + timedelta(seconds=7), usegmt=True), now) == 7.0
    assert parse_retry_after(format_datetime(now - timedelta(seconds=7), usegmt=True), now) == 0.0
    assert parse_retry_after(" 5 ") == 5.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


@pytest.mark.parametrize(
    "kwargs, field",
    [({"max_retries": -1}, "max_retries"), ({"base_s": 0}, "base_s"), ({"cap_s": 0.1, "base_s": 1}, "cap_s"), ({"jitter": 2}, "jitter")],
)
def test_bad_backoff_names_the_field(kwargs, field):
    with pytest.raises(ValueError, match=rf"^{field}:"):
        Backoff(**kwargs)
