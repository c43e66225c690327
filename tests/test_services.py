"""The service layer picks containers only where a Docker engine answers."""

from __future__ import annotations

import services


def test_no_engine_means_local_binaries(monkeypatch, tmp_path):
    services.docker_engine.cache_clear()
    monkeypatch.delenv("SLO_SCALER_TEST_DOCKER", raising=False)
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-such.sock")
    try:
        assert services.docker_engine() is False
    finally:
        services.docker_engine.cache_clear()


def test_the_switch_overrides_detection(monkeypatch):
    services.docker_engine.cache_clear()
    try:
        monkeypatch.setenv("SLO_SCALER_TEST_DOCKER", "1")
        assert services.docker_engine() is True
        services.docker_engine.cache_clear()
        monkeypatch.setenv("SLO_SCALER_TEST_DOCKER", "0")
        assert services.docker_engine() is False
    finally:
        services.docker_engine.cache_clear()
