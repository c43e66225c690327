"""This checkout's wheel, installed (with its `tools` extra) into a fresh venv, for tests/test_wheel.py.

The build and install are ~15 s of pip, mostly CPU. The rest of the suite spends most of its time
waiting on servers and load, so conftest starts this in a thread at low priority with the session's
first test, and test_wheel.py takes the result when it gets there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import venv
from concurrent.futures import Future
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NICENESS = 10  # the tests running meanwhile come first


def clean_env() -> dict[str, str]:
    """This environment without PYTHONPATH or VIRTUAL_ENV: the venv must see only what it installed."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


class WheelInstall:
    """Started at construction; `result()` is (bin directory, a working folder outside the checkout,
    environment without PYTHONPATH) once done, or raises what failed."""

    def __init__(self, root: Path):
        self.root = root
        self._future: Future = Future()
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="wheel-install", daemon=True)
        self._thread.start()

    def result(self, timeout: float = 600) -> tuple[Path, Path, dict[str, str]]:
        return self._future.result(timeout)

    def stop(self) -> None:
        """Kill a pip still running (the session ended first) and wait for the thread."""
        with self._lock:
            self._stopping = True
            if self._proc is not None and self._proc.poll() is None:
                self._proc.kill()
        self._thread.join(30)

    def _run(self) -> None:
        try:
            self._future.set_result(self._install())
        except BaseException as error:  # noqa: BLE001 (handed to the test that takes the result)
            self._future.set_exception(error)

    def _install(self) -> tuple[Path, Path, dict[str, str]]:
        root = self.root
        self._pip("wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(root / "dist"), str(REPO))
        (wheel,) = (root / "dist").glob("slo_scaler-*.whl")
        # This pip installs into the venv (--python), so the venv needs none of its own (ensurepip:
        # ~2 s); --no-compile: byte-compiling every dependency (kubernetes, matplotlib, numpy) took
        # ~7 s, and the commands compile just what they import.
        venv.create(root / "venv", with_pip=False)
        bin_dir = root / "venv" / "bin"
        self._pip("--python", str(bin_dir / "python"), "install", "-q", "--no-compile", "--disable-pip-version-check",
                  f"{wheel}[tools]")
        work = root / "work"
        work.mkdir()
        return bin_dir, work, clean_env()

    def _pip(self, *args: str) -> None:
        argv = [sys.executable, "-m", "pip", *args]
        with self._lock:
            if self._stopping:
                raise RuntimeError("the session ended before the wheel was installed")
            # Without PYTHONPATH: a checkout on it (the wheel build leaves its egg-info there) would
            # read to the venv's pip as slo-scaler already installed, and the wheel would not be.
            self._proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                          env=clean_env())
            try:
                os.setpriority(os.PRIO_PROCESS, self._proc.pid, NICENESS)  # pip's own children inherit it
            except OSError:
                pass  # already gone, or not permitted: it runs at normal priority
        out, err = self._proc.communicate()
        if self._proc.returncode:
            raise RuntimeError(f"{' '.join(argv)} exited with {self._proc.returncode}: {(out + err)[-3000:]}")
