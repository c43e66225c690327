"""The emulator's OpenAI-compatible API, driven by the official `openai` client and raw HTTP."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import aiohttp
import openai
import pytest
from conftest import http_get, poll_until, start_emulator_fleet

pytestmark = pytest.mark.integration

MODEL = "emu-llama"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    # Small context so oversized prompts are cheap to send; 50 ms model steps at speed 10.
    emu = start_emulator_fleet(
        tmp_path_factory.mktemp("emulator-api"), "--model", MODEL, "--max-model-len", "4096",
        "--step-base-s", "0.05", replicas=1, max_replicas=1, speed=10)
    yield emu
    emu.proc.terminate()
    emu.proc.wait(10)


def test_openai_client_streams_chat_with_usage(fleet):
    client = openai.OpenAI(base_url=fleet.url + "/v1", api_key="unused")
    stream = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Say something long."}], max_tokens=12, stream=True,
        stream_options={"include_usage": True}, extra_headers={"x-prompt-tokens": "321"})
    chunks = list(stream)
    content = [c.choices[0].delta.content for c in chunks if c.choices]
    assert len(content) == 12 and all(content)
    assert chunks[0].choices[0].delta.role == "assistant"
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "length" and set(finishes[:-1]) == {None}
    usage = chunks[-1].usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (321, 12, 333)
    assert chunks[-1].choices == []


def test_openai_client_non_streaming_completion_and_models(fleet):
    client = openai.OpenAI(base_url=fleet.url + "/v1", api_key="unused")
    assert [m.id for m in client.models.list().data] == [MODEL]
    done = client.completions.create(model=MODEL, prompt="one two three four", max_tokens=5)
    assert done.object == "text_completion" and done.choices[0].finish_reason == "length"
    assert done.usage.prompt_tokens == 4 and done.usage.completion_tokens == 5
    assert len(done.choices[0].text.split()) == 5
    chat = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "hi"}], max_completion_tokens=30,
        extra_headers={"x-output-tokens": "7"})
    # The "model" ends its answer after 7 tokens: finish_reason stop, like hitting EOS.
    assert chat.choices[0].finish_reason == "stop" and chat.usage.completion_tokens == 7
    assert chat.choices[0].message.role == "assistant"


def test_token_ids_prompt_is_counted_exactly(fleet):
    status, body = _post(fleet, "/v1/completions", {"model": MODEL, "prompt": list(range(57)), "max_tokens": 1})
    assert status == 200 and body["usage"]["prompt_tokens"] == 57


def _post(fleet, path, payload, headers=None, raw: bytes | None = None):
    data = raw if raw is not None else json.dumps(payload).encode()
    req = urllib.request.Request(fleet.url + path, data=data, method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


BAD_REQUESTS = [
    ("malformed json", "/v1/chat/completions", None, b'{"model": "emu-llama", "messages": [', 400, "JSON"),
    ("not an object", "/v1/completions", None, b"[1, 2]", 400, "object"),
    ("missing messages", "/v1/chat/completions", {"model": MODEL, "max_tokens": 3}, None, 400, "messages"),
    ("missing prompt", "/v1/completions", {"model": MODEL}, None, 400, "prompt"),
    ("negative max_tokens", "/v1/completions", {"model": MODEL, "prompt": "x", "max_tokens": -1}, None, 400,
     "max_tokens must be at least 1, got -1."),
    ("string max_tokens", "/v1/completions", {"model": MODEL, "prompt": "x", "max_tokens": "5"}, None, 400,
     "max_tokens"),
    ("unknown model", "/v1/completions", {"model": "gpt-9", "prompt": "x"}, None, 404,
     "The model `gpt-9` does not exist."),
    ("oversized prompt", "/v1/completions", {"model": MODEL, "prompt": "word " * 5000, "max_tokens": 1}, None, 400,
     "maximum context length is 4096"),
    ("max_tokens beyond context", "/v1/chat/completions",
     {"model": MODEL, "messages": [{"role": "user", "content": "x"}], "max_tokens": 5000}, None, 400,
     "'max_tokens' or 'max_completion_tokens' is too large: 5000"),
    ("stream_options without stream", "/v1/completions",
     {"model": MODEL, "prompt": "x", "stream_options": {"include_usage": True}}, None, 400, "stream=True"),
    ("priority without priority scheduling", "/v1/completions", {"model": MODEL, "prompt": "x", "priority": 3},
     None, 400, "Priority scheduling is not enabled"),
    ("bad messages", "/v1/chat/completions", {"model": MODEL, "messages": [{"content": "no role"}]}, None, 400,
     "messages[0]"),
]


@pytest.mark.parametrize("label,path,payload,raw,status,needle", BAD_REQUESTS, ids=[b[0] for b in BAD_REQUESTS])
def test_bad_input_gets_vllm_status_and_error_body(fleet, label, path, payload, raw, status, needle):
    got_status, body = _post(fleet, path, payload, raw=raw)
    assert got_status == status
    assert set(body) == {"error"}
    error = body["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["code"] == status
    assert error["type"] == ("NotFoundError" if status == 404 else "BadRequestError")
    assert needle in error["message"]


@pytest.mark.parametrize("header", ["x-prompt-tokens", "x-output-tokens"])
@pytest.mark.parametrize("value", ["0", "-3", "many", "1e3"])
def test_bad_size_headers_are_rejected_naming_the_header(fleet, header, value):
    status, body = _post(fleet, "/v1/completions", {"model": MODEL, "prompt": "x", "max_tokens": 2},
                         headers={header: value})
    assert status == 400 and header in body["error"]["message"]


def test_openai_client_raises_the_matching_exceptions(fleet):
    client = openai.OpenAI(base_url=fleet.url + "/v1", api_key="unused", max_retries=0)
    with pytest.raises(openai.NotFoundError):
        client.completions.create(model="nope", prompt="x", max_tokens=1)
    with pytest.raises(openai.BadRequestError) as info:
        client.completions.create(model=MODEL, prompt="x", max_tokens=-5)
    assert "max_tokens" in info.value.message


def test_server_keeps_serving_while_bad_requests_arrive(fleet):
    """Garbage and good requests at the same time: the good ones all complete."""

    async def scenario():
        async with aiohttp.ClientSession() as session:
            async def good(i):
                async with session.post(fleet.url + "/v1/completions",
                                        json={"model": MODEL, "prompt": f"p{i}", "max_tokens": 8}) as resp:
                    return resp.status, (await resp.json())["usage"]["completion_tokens"]

            async def bad(i):
                async with session.post(fleet.url + "/v1/completions", data=b"\xff\xfe{" * i,
                                        headers={"Content-Type": "application/json"}) as resp:
                    return resp.status, None

            return await asyncio.gather(*(good(i) for i in range(10)), *(bad(i) for i in range(1, 11)))

    results = asyncio.run(scenario())
    assert results[:10] == [(200, 8)] * 10
    assert all(status == 400 for status, _ in results[10:])
    assert http_get(fleet.url + "/health")[0] == 200


def test_client_disconnect_mid_stream_frees_the_engine(fleet):
    async def scenario():
        async with aiohttp.ClientSession() as session:
            resp = await session.post(fleet.url + "/v1/completions",
                                      json={"model": MODEL, "prompt": "x", "max_tokens": 3000, "stream": True})
            await resp.content.readline()  # the first chunk arrived: the request is running
            resp.close()  # hang up

    asyncio.run(scenario())
    poll_until(lambda: fleet.fleet()["members"][0]["running"] == 0, 10, "the aborted request to leave the batch")
    metrics = http_get(fleet.replica_url(1) + "/metrics")[1].decode()
    aborted = [line for line in metrics.splitlines()
               if line.startswith("vllm:request_success_total") and 'finished_reason="abort"' in line]
    assert aborted and float(aborted[0].split()[-1]) >= 1
