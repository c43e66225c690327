"""The scaler image and the Deployment that runs it agree with each other and with `serve`.

No Docker engine here, so the Dockerfile is checked for what the Deployment relies on, and the
Deployment's arguments are parsed by the real `slo-scaler` command line.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

from scaler.cli import build_parser

REPO = Path(__file__).resolve().parents[1]


def dockerfile() -> list[tuple[str, str]]:
    lines, pending = [], ""
    for raw in (REPO / "Dockerfile").read_text().splitlines():
        if raw.lstrip().startswith("#"):
            continue
        pending += raw.rstrip("\\").strip() + " "
        if not raw.endswith("\\"):
            if pending.strip():
                word, _, rest = pending.strip().partition(" ")
                lines.append((word.upper(), rest.strip()))
            pending = ""
    return lines


def container(path: str) -> dict:
    out = subprocess.run(["kubectl", "kustomize", str(REPO / path)], capture_output=True, text=True, check=True, timeout=60).stdout
    deployment = next(d for d in yaml.safe_load_all(out)
                      if d and d["kind"] == "Deployment" and d["metadata"]["name"] == "slo-scaler")
    return deployment["spec"]["template"]["spec"]


def test_image_runs_non_root_as_the_deployment_expects():
    pod = container("manifests/base")
    user = [rest for word, rest in dockerfile() if word == "USER"]
    assert user == [f"{pod['securityContext']['runAsUser']}:{pod['securityContext']['runAsGroup']}"]
    assert user[0].split(":")[0] != "0"


def test_image_exposes_the_contract_ports():
    exposed = {int(p) for word, rest in dockerfile() if word == "EXPOSE" for p in rest.split()}
    assert exposed == {9090, 9091, 8081}
    assert {p["containerPort"] for p in container("manifests/base")["containers"][0]["ports"]} == exposed


def test_image_is_built_from_the_wheel_without_extras():
    for word, rest in dockerfile():
        if word == "COPY" and not rest.startswith("--from="):
            *sources, _ = rest.split()
            for source in sources:
                assert (REPO / source).exists(), f"Dockerfile copies {source}, which is not in the repository"
    installs = [rest for word, rest in dockerfile() if word == "RUN" and "pip install" in rest]
    # The runtime stage installs the built wheel alone: no editable install, no extras (tools, test).
    assert installs and all("/dist/*.whl" in rest and "[" not in rest and "-e " not in rest for rest in installs)
    assert ("ENTRYPOINT", '["slo-scaler"]') in dockerfile()


def test_deployment_arguments_are_accepted_by_serve():
    base = build_parser().parse_args(container("manifests/base")["containers"][0]["args"])
    assert (base.command, base.grpc_port, base.metrics_port, base.rls_port) == ("serve", 9090, 9091, 8081)
    tls = build_parser().parse_args(container("manifests/overlays/tls")["containers"][0]["args"])
    assert (tls.tls_cert, tls.tls_key, tls.tls_client_ca) == (
        "/etc/slo-scaler/tls/tls.crt", "/etc/slo-scaler/tls/tls.key", "/etc/slo-scaler/tls/ca.crt")


def test_replicas_share_one_budget_and_the_single_replica_overlay_keeps_its_own():
    built = subprocess.run(["kubectl", "kustomize", str(REPO / "manifests/base")], capture_output=True, text=True,
                           check=True, timeout=60).stdout
    objects = [o for o in yaml.safe_load_all(built) if o]
    base = build_parser().parse_args(container("manifests/base")["containers"][0]["args"])
    redis = next(o for o in objects if o["kind"] == "Service" and o["metadata"]["name"] == "slo-scaler-redis")
    host_port = f"{redis['metadata']['name']}:{redis['spec']['ports'][0]['port']}"
    assert base.state_store == f"redis://{host_port}/0"
    deployment = next(o for o in objects if o["kind"] == "Deployment" and o["metadata"]["name"] == "slo-scaler")
    assert base.state_store_replicas == deployment["spec"]["replicas"] == 2
    assert "podAntiAffinity" in deployment["spec"]["template"]["spec"]["affinity"]
    single = container("manifests/overlays/single-replica")
    args = build_parser().parse_args(single["containers"][0]["args"])
    assert args.state_store is None and args.state_store_replicas is None and args.config == base.config
    built = subprocess.run(["kubectl", "kustomize", str(REPO / "manifests/overlays/single-replica")],
                           capture_output=True, text=True, check=True, timeout=60).stdout
    names = {(o["kind"], o["metadata"]["name"]) for o in yaml.safe_load_all(built) if o}
    assert not {n for n in names if "redis" in n[1]} and ("PodDisruptionBudget", "slo-scaler") not in names


def test_rendered_gateways_call_the_headless_rls_service_of_the_base():
    from scaler.render.derive import PORTS, rls_host
    from scaler.spec import load_spec

    built = subprocess.run(["kubectl", "kustomize", str(REPO / "manifests/base")], capture_output=True, text=True,
                           check=True, timeout=60).stdout
    services = {o["metadata"]["name"]: o for o in yaml.safe_load_all(built) if o and o["kind"] == "Service"}
    spec = load_spec(REPO / "manifests/examples/specs/chat.yaml")
    name, namespace = rls_host(spec).split(".")[:2]
    rls = services[name]
    assert rls["spec"]["clusterIP"] == "None"  # resolves to every replica: Envoy can eject a dead one
    assert namespace == rls["metadata"].get("namespace", "slo-scaler") == "slo-scaler"
    assert [p["port"] for p in rls["spec"]["ports"]] == [PORTS["rls"]]
