"""vLLM's OpenAI-compatible endpoints, answered on the engine model's timing.

Responses, stream chunks and errors have vLLM's shapes (errors as vLLM >= 0.10.1 sends
them: {"error": {"message", "type", "param", "code"}}). The text is filler, one word per
token. Load generators control sizes with two request headers:

- `x-prompt-tokens: N`  the prompt counts as N tokens (otherwise it is estimated from the text);
- `x-output-tokens: N`  the model ends its answer after N tokens (finish_reason "stop"),
  unless max_tokens comes first ("length").
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from scaler.emulator.driver import ReplicaDriver
from scaler.engine import Request

FILLER = ("The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".")
_WORD = re.compile(r"\w+|[^\w\s]")
# Llama-3 chat template: begin_of_text, and per message a role header (4 tokens) and eot_id;
# the generation prompt adds the assistant header.
CHAT_TOKENS_PER_MESSAGE = 5
CHAT_TOKENS_FIXED = 1 + 4


class ApiError(Exception):
    def __init__(self, status: int, message: str, err_type: str = "BadRequestError", param: str | None = None):
        super().__init__(message)
        self.status, self.message, self.err_type, self.param = status, message, err_type, param

    def response(self) -> web.Response:
        return error_response(self.status, self.message, self.err_type, self.param)


def error_response(status: int, message: str, err_type: str, param: str | None = None) -> web.Response:
    body = {"error": {"message": message, "type": err_type, "param": param, "code": status}}
    return web.json_response(body, status=status)


@dataclass(frozen=True)
class ServedModel:
    name: str
    max_model_len: int
    priority_scheduling: bool


@dataclass(frozen=True)
class GenerationRequest:
    chat: bool
    model: str
    prompt_tokens: int
    max_tokens: int
    stream: bool
    include_usage: bool
    priority: int
    stop_after: int | None


def count_text_tokens(text: str) -> int:
    """Rough token count (words and punctuation); use x-prompt-tokens for exact sizes."""
    return len(_WORD.findall(text))


def _int_field(body: dict, name: str, *, minimum: int | None = None) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{name}: Input should be a valid integer, got {json.dumps(value)}", param=name)
    if minimum is not None and value < minimum:
        raise ApiError(400, f"{name} must be at least {minimum}, got {value}.", param=name)
    return value


def _header_int(headers, name: str) -> int | None:
    raw = headers.get(name)
    if raw is None:
        return None
    if not raw.strip().isdigit() or int(raw) < 1:
        raise ApiError(400, f"{name}: expected a positive integer header, got {raw[:40]!r}", param=name)
    return int(raw)


def _prompt_tokens(body: dict, chat: bool) -> int:
    if chat:
        messages = body.get("messages")
        if messages is None:
            raise ApiError(400, "messages: Field required", param="messages")
        if not isinstance(messages, list) or not messages:
            raise ApiError(400, "messages: expected a non-empty list of messages", param="messages")
        total = CHAT_TOKENS_FIXED
        for i, message in enumerate(messages):
            if not isinstance(message, dict) or not isinstance(message.get("role"), str):
                raise ApiError(400, f"messages[{i}]: expected an object with a string 'role'", param="messages")
            content = message.get("content")
            if isinstance(content, list):
                content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
            elif content is not None and not isinstance(content, str):
                raise ApiError(400, f"messages[{i}].content: expected a string or a list of parts", param="messages")
            total += CHAT_TOKENS_PER_MESSAGE + count_text_tokens(content or "")
        return total
    prompt = body.get("prompt")
    if prompt is None:
        raise ApiError(400, "prompt: Field required", param="prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], (str, list)):
        prompt = prompt[0]  # a batch of one
    if isinstance(prompt, str):
        return max(1, count_text_tokens(prompt))
    if isinstance(prompt, list) and prompt and all(isinstance(t, int) and not isinstance(t, bool) for t in prompt):
        return len(prompt)  # token ids: the exact count
    raise ApiError(
        400, "prompt: expected a string, a list of token ids, or a batch of one of those (the emulator serves one "
        "prompt per request)", param="prompt")


def parse_generation(body_bytes: bytes, headers, served: ServedModel, chat: bool) -> GenerationRequest:
    try:
        body = json.loads(body_bytes)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApiError(400, f"JSON decode error: {exc}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "body: expected a JSON object")
    model = body.get("model", served.name)
    if model is not None and not isinstance(model, str):
        raise ApiError(400, "model: Input should be a valid string", param="model")
    if model not in (None, served.name):
        raise ApiError(404, f"The model `{model}` does not exist.", "NotFoundError", "model")
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise ApiError(400, "stream: Input should be a valid boolean", param="stream")
    stream_options = body.get("stream_options")
    if stream_options is not None:
        if not stream:
            raise ApiError(400, "Stream options can only be defined when `stream=True`.", param="stream_options")
        if not isinstance(stream_options, dict):
            raise ApiError(400, "stream_options: expected an object", param="stream_options")
    n = _int_field(body, "n", minimum=1)
    if n not in (None, 1):
        raise ApiError(400, f"n: the emulator generates one choice per request, got {n}", param="n")
    priority = _int_field(body, "priority") or 0
    if priority and not served.priority_scheduling:
        raise ApiError(400, f"Got priority {priority} but Priority scheduling is not enabled.", param="priority")

    prompt_tokens = _prompt_tokens(body, chat)
    hinted = _header_int(headers, "x-prompt-tokens")
    if hinted is not None:
        prompt_tokens = hinted
    stop_after = _header_int(headers, "x-output-tokens")

    max_tokens = _int_field(body, "max_completion_tokens", minimum=1) if chat else None
    if max_tokens is None:
        max_tokens = _int_field(body, "max_tokens", minimum=1)
    limit = served.max_model_len
    if prompt_tokens >= limit:
        raise ApiError(
            400, f"This model's maximum context length is {limit} tokens. However, your request has "
            f"{prompt_tokens} input tokens. Please reduce the length of the input messages.", param="messages"
            if chat else "prompt")
    if max_tokens is None:
        max_tokens = limit - prompt_tokens  # vLLM's default: whatever room the context leaves
    elif prompt_tokens + max_tokens > limit:
        raise ApiError(
            400, f"'max_tokens' or 'max_completion_tokens' is too large: {max_tokens}. This model's maximum "
            f"context length is {limit} tokens and your request has {prompt_tokens} input tokens "
            f"({max_tokens} > {limit} - {prompt_tokens}).", param="max_tokens")
    return GenerationRequest(
        chat=chat, model=served.name, prompt_tokens=prompt_tokens, max_tokens=max_tokens, stream=stream,
        include_usage=bool(stream_options and stream_options.get("include_usage")), priority=priority,
        stop_after=stop_after,
    )


def _text(start: int, n: int) -> str:
    return "".join(FILLER[i % len(FILLER)] for i in range(start, start + n))


def _usage(gen: GenerationRequest, completion_tokens: int) -> dict:
    return {
        "prompt_tokens": gen.prompt_tokens,
        "total_tokens": gen.prompt_tokens + completion_tokens,
        "completion_tokens": completion_tokens,
        "prompt_tokens_details": None,
    }


def _choice(gen: GenerationRequest, text: str, finish_reason: str | None, *, delta: bool, first: bool) -> dict:
    if not gen.chat:
        return {"index": 0, "text": text, "logprobs": None, "finish_reason": finish_reason, "stop_reason": None}
    if delta:
        body = {"role": "assistant", "content": text} if first else {"content": text}
        return {"index": 0, "delta": body, "logprobs": None, "finish_reason": finish_reason, "stop_reason": None}
    message = {"role": "assistant", "content": text, "refusal": None, "annotations": None, "audio": None,
               "function_call": None, "tool_calls": [], "reasoning_content": None}
    return {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason, "stop_reason": None}


DriverResolver = Callable[[], tuple[ReplicaDriver, int]]


async def generate(http: web.Request, served: ServedModel, resolve: DriverResolver, chat: bool) -> web.StreamResponse:
    """Run one completion on the replica `resolve` picks; errors come back in vLLM's shape."""
    try:
        driver, replica_index = resolve()
        arrival = driver.clock.now()
        gen = parse_generation(await http.read(), http.headers, served, chat)
    except ApiError as err:
        return err.response()
    request_id = f"{'chatcmpl' if chat else 'cmpl'}-{uuid.uuid4().hex}"
    request = Request(request_id, gen.prompt_tokens, gen.max_tokens, arrival, gen.priority, gen.stop_after)
    try:
        tokens = driver.submit(request)
    except ValueError as exc:  # parse_generation checks the same limits; this is the engine's word
        return error_response(400, str(exc), "BadRequestError")
    headers = {"x-emulator-replica": str(replica_index)}
    created = int(time.time())
    obj = "chat.completion" if chat else "text_completion"
    head = {"id": request_id, "object": obj + (".chunk" if chat and gen.stream else ""), "created": created,
            "model": gen.model}
    produced, reason = 0, None
    try:
        if not gen.stream:
            while reason is None:
                event = await tokens.get()
                produced += event.n
                reason = event.finished_reason
            if reason == "abort":
                return error_response(503, "the replica shut down before the request finished",
                                      "ServiceUnavailableError")
            body = dict(head, choices=[_choice(gen, _text(0, produced), reason, delta=False, first=True)],
                        usage=_usage(gen, produced))
            return web.json_response(body, headers=headers)
        response = web.StreamResponse(headers={**headers, "Content-Type": "text/event-stream; charset=utf-8"})
        await response.prepare(http)
        while reason is None:
            event = await tokens.get()
            reason = event.finished_reason
            chunk = dict(head, choices=[_choice(gen, _text(produced, event.n), reason, delta=True,
                                                first=produced == 0)])
            produced += event.n
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        if gen.include_usage:
            await response.write(f"data: {json.dumps(dict(head, choices=[], usage=_usage(gen, produced)))}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response
    except ConnectionResetError:
        return response  # the client hung up mid-stream; `finally` frees its place in the engine
    finally:
        if reason is None:
            driver.abort(request_id)  # the client went away (or the server is stopping)


def models_response(served: ServedModel, created: int) -> web.Response:
    model = {
        "id": served.name, "object": "model", "created": created, "owned_by": "vllm", "root": served.name,
        "parent": None, "max_model_len": served.max_model_len,
        "permission": [{"id": f"modelperm-{uuid.uuid4().hex}", "object": "model_permission", "created": created,
                        "allow_create_engine": False, "allow_sampling": True, "allow_logprobs": True,
                        "allow_search_indices": False, "allow_view": True, "allow_fine_tuning": False,
                        "organization": "*", "group": None, "is_blocking": False}],
    }
    return web.json_response({"object": "list", "data": [model]})


def add_api_routes(app: web.Application, served: ServedModel, resolve: DriverResolver) -> None:
    """/v1/completions, /v1/chat/completions and /v1/models on `app`."""
    created = int(time.time())

    def handler(chat: bool) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handle(http: web.Request) -> web.StreamResponse:
            return await generate(http, served, resolve, chat)
        return handle

    async def models(_: web.Request) -> web.Response:
        return models_response(served, created)

    app.router.add_post("/v1/completions", handler(False))
    app.router.add_post("/v1/chat/completions", handler(True))
    app.router.add_get("/v1/models", models)
