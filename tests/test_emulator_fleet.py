"""Fleet mode: cold start, draining, the /fleet control API, shutdown and CLI validation."""

from __future__ import annotations

import json
import signal
import threading
import time
import urllib.request

import pytest
from conftest import http_get, http_json, poll_until

from scaler.cli import main

pytestmark = pytest.mark.integration

MODEL = "emu-llama"
# 50 ms model steps at speed 10: 5 ms of wall time per token.
FAST = ("--model", MODEL, "--step-base-s", "0.05")


def _complete(url: str, max_tokens: int, stream: bool = False) -> tuple[int, dict | list[str], str | None]:
    body = json.dumps({"model": MODEL, "prompt": "x", "max_tokens": max_tokens, "stream": stream}).encode()
    req = urllib.request.Request(url + "/v1/completions", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            replica = resp.headers.get("x-emulator-replica")
            if stream:
                return resp.status, [line.decode().strip() for line in resp if line.strip()], replica
            return resp.status, json.loads(resp.read()), replica
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read()), None


def test_new_replica_is_ready_only_after_its_cold_start(emulator_fleet):
    fleet = emulator_fleet(*FAST, "--max-num-seqs", "1", replicas=1, max_replicas=3, speed=10, cold_start=20)
    put_at = time.monotonic()
    body = fleet.set_replicas(2)
    assert body["replicas"] == 2 and (body["ready"], body["starting"]) == (1, 1)
    new = body["members"][1]
    assert (new["index"], new["port"], new["state"]) == (2, fleet.port + 2, "starting")
    assert 10 < new["ready_in_s"] <= 20  # 20 model seconds, less up to 1 s of wall-clock delay at speed 10

    # While it starts, the pod answers 503 and the front door keeps sending work to replica 1.
    status, error, _ = _complete(fleet.replica_url(2), 2)
    assert status == 503 and error["error"]["type"] == "ServiceUnavailableError"
    assert http_get(fleet.replica_url(2) + "/health")[0] == 503
    assert http_get(fleet.replica_url(2) + "/metrics")[0] == 503  # nothing to scrape before weights load
    assert _complete(fleet.url, 2)[2] == "1"

    poll_until(lambda: http_get(fleet.replica_url(2) + "/health")[0] == 200, 10, "replica 2 to become ready")
    waited = time.monotonic() - put_at
    assert waited >= 20 / 10 * 0.95  # 20 model seconds at speed 10
    assert fleet.fleet()["ready"] == 2
    assert http_get(fleet.replica_url(2) + "/metrics")[0] == 200
    status, body, replica = _complete(fleet.replica_url(2), 3)
    assert status == 200 and replica == "2" and body["usage"]["completion_tokens"] == 3


def test_removed_replica_drains_its_requests_then_closes(emulator_fleet):
    fleet = emulator_fleet(*FAST, replicas=2, max_replicas=2, speed=10)
    results = {}

    def stream(name, url, n):
        results[name] = _complete(url, n, stream=True)

    # One long stream on replica 2 and two on replica 1, so replica 2 is the least loaded.
    threads = [threading.Thread(target=stream, args=("drained", fleet.replica_url(2), 200))]
    threads += [threading.Thread(target=stream, args=(f"kept{i}", fleet.replica_url(1), 300)) for i in range(2)]
    for t in threads:
        t.start()
    poll_until(lambda: [m["running"] for m in fleet.fleet()["members"]] == [2, 1], 10, "streams to be running")

    body = fleet.set_replicas(1)
    states = {m["index"]: (m["state"], m["running"]) for m in body["members"]}
    assert states == {1: ("ready", 2), 2: ("draining", 1)}
    # The draining replica takes nothing new; the front door routes around it.
    assert _complete(fleet.replica_url(2), 2)[0] == 503
    assert _complete(fleet.url, 2)[2] == "1"

    for t in threads:
        t.join(30)
    status, lines, _ = results["drained"]
    assert status == 200 and lines[-1] == "data: [DONE]"
    chunks = [json.loads(line[len("data: "):]) for line in lines[:-1]]
    assert len(chunks) == 200 and chunks[-1]["choices"][0]["finish_reason"] == "length"
    poll_until(lambda: [m["index"] for m in fleet.fleet()["members"]] == [1], 10, "replica 2 to retire")
    with pytest.raises(OSError):
        urllib.request.urlopen(fleet.replica_url(2) + "/health", timeout=2)


def test_scale_from_zero_and_control_api_errors(emulator_fleet):
    fleet = emulator_fleet(*FAST, replicas=0, max_replicas=2, speed=10, cold_start=5)
    status, body = http_json("POST", fleet.url + "/v1/completions", {"model": MODEL, "prompt": "x"})
    assert status == 503 and body["error"]["code"] == 503
    assert http_get(fleet.url + "/health")[0] == 503
    for bad, needle in [({"replicas": -1}, "replicas"), ({"replicas": 3}, "between 0 and 2"),
                        ({"replicas": "2"}, "replicas"), ({"count": 2}, "Field required")]:
        status, body = http_json("PUT", fleet.url + "/fleet", bad)
        assert status == 400 and needle in body["error"]["message"], (bad, body)
    fleet.set_replicas(1)
    poll_until(lambda: http_get(fleet.url + "/health")[0] == 200, 10, "the first replica after a cold start")
    assert _complete(fleet.url, 2)[0] == 200


def test_sigterm_stops_cleanly(emulator_fleet):
    fleet = emulator_fleet(*FAST, replicas=2, max_replicas=2, speed=10)
    fleet.proc.send_signal(signal.SIGTERM)
    assert fleet.proc.wait(10) == 0
    assert "stopping" in fleet.log.read_text()
    for port in (fleet.port, fleet.port + 1, fleet.port + 2):
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2)


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--speed", "0"], "speed"),
        (["--replicas", "5", "--max-replicas", "2"], "replicas"),
        (["--max-num-seqs", "0"], "max_num_seqs"),
        (["--scheduling-policy", "lifo"], "scheduling_policy"),
        (["--kv-cache-tokens", "100"], "kv_cache_tokens"),
        (["--cold-start", "-1"], "cold_start"),
        (["--model", 'bad"name'], "model"),
    ],
)
def test_bad_cli_input_exits_2_naming_the_field(args, needle, capsys):
    assert main(["emulate", "--port", "1", *args]) == 2
    assert needle in capsys.readouterr().err
