"""`slo-scaler serve` loads only what it needs: no plotting, numerics, simulator, demo or protoc;
nor does its rate-limit service process."""

from __future__ import annotations

import json

from conftest import free_port
from scaler.server.process import ServeProcess

HEAVY = ("matplotlib", "numpy", "rich", "scaler.sim", "scaler.demo", "scaler.render", "scaler.loadgen",
         "scaler.emulator", "grpc_tools.protoc", "jinja2", "kubernetes")

# Runs at interpreter start (Python imports `sitecustomize` from the path) and records, at exit,
# every module the process loaded (one file per process: serve and its RLS process).
SITECUSTOMIZE = """
import atexit, json, os, sys
_out = os.environ["SLO_SCALER_MODULES_OUT"] + "." + str(os.getpid())
atexit.register(lambda: open(_out, "w").write(json.dumps(sorted(sys.modules))))
"""


def test_serve_imports_no_heavy_module(tmp_path, monkeypatch):
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE)
    out = tmp_path / "modules.json"
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("SLO_SCALER_MODULES_OUT", str(out))
    serve = ServeProcess.start("--rls-port", str(free_port()), log=tmp_path / "serve.log")
    try:
        ref = serve.client.ref({"model": "m", "prometheusAddress": "http://127.0.0.1:1", "ttftSloSeconds": "1"})
        spec = serve.client.GetMetricSpec(ref, timeout=10)
        assert spec.metricSpecs[0].targetSizeFloat == 1.0  # it serves KEDA's first call
    finally:
        assert serve.stop() == 0
    files = sorted(tmp_path.glob("modules.json.*"))
    assert len(files) == 2, "serve and its RLS process"
    for path in files:
        loaded = json.loads(path.read_text())
        heavy = sorted(m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY))
        assert heavy == [], path
