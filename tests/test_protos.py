"""The generated descriptor sets match proto/, and loading them needs no protoc."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scaler import protos

REPO = Path(__file__).resolve().parents[1]
SOURCES = sorted((REPO / "proto").glob("*.proto"))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_generated_descriptor_sets_match_the_proto_sources(source):
    generated = protos.GENERATED_DIR / (source.stem + protos.SUFFIX)
    assert generated.read_bytes() == protos.compile_descriptor_set(source), (
        f"{generated.name} drifted from proto/{source.name}: run `python scripts/gen_protos.py`")


def test_every_proto_source_is_generated_and_nothing_else():
    assert {p.stem for p in SOURCES} == {p.stem for p in protos.GENERATED_DIR.glob("*" + protos.SUFFIX)}


def test_loading_does_not_run_protoc():
    code = ("import sys; from scaler import protos; protos.load('rls.proto'); protos.load('externalscaler.proto'); "
            "print('grpc_tools.protoc' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_loading_and_compiling_errors_are_clear(tmp_path):
    with pytest.raises(ValueError, match="expected one of externalscaler.proto, rls.proto"):
        protos.load("missing.proto")
    with pytest.raises(ValueError, match="expected an existing file"):
        protos.compile_descriptor_set(tmp_path / "missing.proto")
    (tmp_path / "broken.proto").write_text('syntax = "proto3";\nmessage {')
    with pytest.raises(ValueError, match="protoc failed"):
        protos.compile_descriptor_set(tmp_path / "broken.proto")


def test_messages_round_trip_with_the_well_known_imports():
    rls = protos.load("rls.proto")
    method = rls.method("RateLimitService", "ShouldRateLimit")
    assert method.path == "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit"
    request = rls.RateLimitRequest(domain="slo-scaler", hits_addend=2)
    assert method.request.FromString(request.SerializeToString()).hits_addend == 2
