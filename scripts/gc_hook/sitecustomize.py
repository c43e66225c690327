"""Loaded by Python at start-up when this directory is on PYTHONPATH (`bench_tails.py --gc-log`
puts it there for the `serve` it starts): in a process started as `... serve ...`, every garbage
collection's wall-clock time, generation and pause (ms) is appended to the file named by
$SLO_SCALER_GC_LOG."""

import gc
import os
import sys
import time

_PATH = os.environ.get("SLO_SCALER_GC_LOG")

if _PATH and "serve" in sys.argv:
    _out = open(_PATH, "a", buffering=1)  # noqa: SIM115 (open for the life of the process)
    _started = [0.0]

    def _pause(phase: str, info: dict) -> None:
        if phase == "start":
            _started[0] = time.perf_counter()
        else:
            _out.write(f"{time.time():.3f} {info['generation']} {1000 * (time.perf_counter() - _started[0]):.3f}\n")

    gc.callbacks.append(_pause)
