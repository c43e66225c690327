"""The documented install path: the image set the way `kustomize edit set image` does, the scaler's
arguments accepted by `serve`, and the rendered runtime config at the path the Deployment reads."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

from scaler.cli import build_parser
from scaler.modelconfig import load_path

REPO = Path(__file__).resolve().parents[1]
IMAGE = "registry.example.com/ml/slo-scaler"


def _build(path: Path) -> list[dict]:
    out = subprocess.run(["kubectl", "kustomize", str(path)], capture_output=True, text=True, check=True, timeout=60).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def test_setting_the_image_in_the_base_runs_it(tmp_path):
    """`kustomize edit set image slo-scaler=IMAGE:TAG` in manifests/base rewrites its `images:` entry
    for `slo-scaler` to this; done here on a copy (the kustomize CLI is not installed)."""
    base = tmp_path / "base"
    shutil.copytree(REPO / "manifests" / "base", base)
    kustomization = yaml.safe_load((base / "kustomization.yaml").read_text())
    (entry,) = [i for i in kustomization["images"] if i["name"] == "slo-scaler"]
    entry.update(newName=IMAGE, newTag="0.1.0")
    (base / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))
    deployment = next(o for o in _build(base) if o["kind"] == "Deployment")
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == f"{IMAGE}:0.1.0"


def test_serve_accepts_the_deployment_arguments_and_reads_the_rendered_config():
    deployment = next(o for o in _build(REPO / "manifests" / "base") if o["kind"] == "Deployment")
    args = build_parser().parse_args(deployment["spec"]["template"]["spec"]["containers"][0]["args"])
    assert args.config == "/etc/slo-scaler/models"
    # What the ConfigMap puts at that path is what `render` wrote: both example models load.
    loaded = load_path(REPO / "manifests" / "examples" / "scaler-config-slo-scaler")
    assert set(loaded.models) == {("llm", "qwen2.5-7b-instruct"), ("llm-batch", "meta-llama/Llama-3.1-8B-Instruct")}
