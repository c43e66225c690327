"""A Prometheus source whose thread is gone says so: a round fails as SourceError("source closed"),
not as the executor's RuntimeError.

Its thread goes away on close() and, in a server nobody stopped, as the interpreter exits: CPython's
exit hook tells every executor's workers to quit and marks their executors shut down. That second
path is how a poll round once logged "prometheus: RuntimeError('cannot schedule new futures after
shutdown')" (an in-process serve whose start had timed out, still polling as pytest exited).
"""

from __future__ import annotations

import asyncio
import concurrent.futures.thread as futures_thread
import subprocess
import sys
import time

import pytest

from conftest import REPO, free_port
from scaler.server.metadata import SourceSpec
from scaler.sources import ModelQuery, SourceError
from scaler.sources.prometheus import PrometheusSource


def _query(address: str) -> list[ModelQuery]:
    return [ModelQuery("m", SourceSpec(kind="prometheus", prometheus_address=address))]


def test_a_round_after_close_is_a_source_error():
    address = f"http://127.0.0.1:{free_port()}"  # nothing listens: the first round fails on its own
    source = PrometheusSource(address)

    async def rounds():
        with pytest.raises(SourceError, match="Connection"):
            await source.observe(_query(address), time.time())
        await source.close()
        with pytest.raises(SourceError, match=f"prometheus {address}: source closed"):
            await source.observe(_query(address), time.time())

    asyncio.run(rounds())


AT_EXIT = """
import asyncio, concurrent.futures.thread, time
from scaler.server.metadata import SourceSpec
from scaler.sources import ModelQuery
from scaler.sources.prometheus import PrometheusSource

address = "http://127.0.0.1:{port}"
source = PrometheusSource(address)
query = [ModelQuery("m", SourceSpec(kind="prometheus", prometheus_address=address))]

async def observe():
    try:
        await source.observe(query, time.time())
    except Exception as error:
        print(type(error).__name__, error)

asyncio.run(observe())  # its thread now exists
concurrent.futures.thread._python_exit()  # what the interpreter runs at exit, before daemon threads stop
asyncio.run(observe())
"""


@pytest.mark.skipif(not hasattr(futures_thread, "_python_exit"), reason="this CPython has no such exit hook to call")
def test_a_round_as_the_interpreter_exits_is_a_source_error():
    out = subprocess.run([sys.executable, "-c", AT_EXIT.format(port=free_port())], cwd=REPO, capture_output=True,
                         text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first.startswith("SourceError") and "source closed" not in first  # a live source's own failure
    assert second.startswith("SourceError") and "source closed (cannot schedule new futures" in second, second
