"""A demo arm whose process start fails leaves no process behind.

The slo-scaler arm starts the emulator, Prometheus, serve (in a thread) and Envoy at once. Here
Envoy's binary does not exist, so its start fails at once while serve is still starting: the arm
must raise that error, naming Envoy, and still stop serve once it is up (it was left running before
7d60e2f).
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import signal
from pathlib import Path

import pytest
from rich.console import Console

from scaler.demo.orchestrator import SLO_ARM, Arm, Tools
from scaler.demo.processes import ProcessError, prometheus_binary
from scaler.demo.scenario import DemoScenario

pytestmark = pytest.mark.integration


def _live_processes() -> dict[int, tuple[int, str]]:
    """{pid: (parent pid, command line)} of every process not yet exited (zombies left out)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if stat[0] != "Z":
                out[int(entry.name)] = (int(stat[1]), cmdline)
    return out


def _ours(marker: str) -> dict[int, str]:
    """This test process' descendants, and any process naming `marker` (the arm's directory:
    serve's models.yaml, Prometheus' and Envoy's configs) even if it was handed to init."""
    live = _live_processes()
    mine, frontier = {}, {os.getpid()}
    while frontier:
        frontier = {pid for pid, (ppid, _) in live.items() if ppid in frontier and pid not in mine}
        mine.update({pid: live[pid][1] for pid in frontier})
    mine.update({pid: cmd for pid, (_, cmd) in live.items() if marker in cmd})
    mine.pop(os.getpid(), None)
    return mine


def test_a_failed_start_stops_serve_and_every_other_process(tmp_path):
    before = _ours(str(tmp_path))
    missing = tmp_path / "no-such-envoy"
    # Prometheus when installed (one more real process to stop), else serve scrapes the replicas.
    tools = Tools(prometheus=prometheus_binary(), envoy=str(missing))
    arm = Arm(SLO_ARM, DemoScenario().shortened(), tools, tmp_path / "work", Console(file=io.StringIO()))
    try:
        named = f"envoy could not start: .*No such file or directory: {re.escape(repr(str(missing)))}"
        with pytest.raises(ProcessError, match=named):
            asyncio.run(arm.run())
        # serve was starting in its thread when Envoy failed: it got as far as writing its log.
        assert (tmp_path / "work" / SLO_ARM / "serve.log").exists()
        left = {pid: cmd for pid, cmd in _ours(str(tmp_path)).items() if pid not in before}
        assert left == {}, f"processes left running after the failed start: {left}"
    finally:
        for pid in set(_ours(str(tmp_path))) - set(before):  # a failure here leaves nothing for later tests
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
