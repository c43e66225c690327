"""This checkout's wheel, installed (with its `tools` extra) into a fresh venv, for tests/test_wheel.py.

The build and install are ~15 s of pip, mostly CPU. The rest of the suite spends most of its time
waiting on servers and load, so conftest starts this in a thread at low priority with the session's
first test, and test_wheel.py takes the result when it gets there.

Under pytest-xdist every worker starts it, in a folder the workers share: the first to take the
lock builds, the others wait and reuse its venv. Two `pip wheel` runs at once would also share the
checkout's `build/` folder, which setuptools does not guard.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import threading
import time
import venv
from concurrent.futures import Future
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NICENESS = 10  # the tests running meanwhile come first
DONE = "installed"  # written into the shared folder once the venv is complete


def clean_env() -> dict[str, str]:
    """This environment without PYTHONPATH or VIRTUAL_ENV: the venv must see only what it installed."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


class WheelInstall:
    """Started at construction; `result()` is (bin directory, a working folder outside the checkout,
    environment without PYTHONPATH) once done, or raises what failed. `root` may be shared with
    other processes (xdist workers); `worker` names this one's working folder."""

    def __init__(self, root: Path, worker: str = "main"):
        self.root = root
        self.worker = worker
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
        root.mkdir(parents=True, exist_ok=True)
        with open(root / "lock", "w") as lock:
            self._take(lock)  # released when closed, also by a holder that was killed
            if not (root / DONE).exists():
                self._build(root)
                (root / DONE).touch()
        work = root / f"work-{self.worker}"
        work.mkdir(exist_ok=True)
        return root / "venv" / "bin", work, clean_env()

    def _take(self, lock) -> None:
        """The lock, waiting for another process that holds it, unless this session ends first."""
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if self._stopping:
                    raise RuntimeError("the session ended before the wheel was installed") from None
                time.sleep(0.2)

    def _build(self, root: Path) -> None:
        """Into `root`: the wheel in dist/, a venv with it installed in venv/ (a holder killed halfway
        leaves no DONE, and the next one starts again from empty folders)."""
        for leftover in ("dist", "venv"):
            shutil.rmtree(root / leftover, ignore_errors=True)
        self._pip("wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(root / "dist"), str(REPO))
        (wheel,) = (root / "dist").glob("slo_scaler-*.whl")
        # This pip installs into the venv (--python), so the venv needs none of its own (ensurepip:
        # ~2 s); --no-compile: byte-compiling every dependency (kubernetes, matplotlib, numpy) took
        # ~7 s, and the commands compile just what they import.
        venv.create(root / "venv", with_pip=False)
        bin_dir = root / "venv" / "bin"
        self._pip("--python", str(bin_dir / "python"), "install", "-q", "--no-compile", "--disable-pip-version-check",
                  f"{wheel}[tools]")

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
