"""`slo-scaler loadtest`: send a workload open-loop, measure it, write JSON and a PNG.

`run_loadtest` is also what the demo calls, once per arm of its comparison.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from scaler.emulator.clock import ModelClock
from scaler.loadgen import report
from scaler.loadgen.client import ERROR, OK, REFUSED, Client, Headers, Result
from scaler.loadgen.endpoint import Endpoint
from scaler.loadgen.results import summarize, timeline, write_json
from scaler.loadgen.retry import Backoff
from scaler.loadgen.runner import discover_model, new_session, open_loop


@dataclass(frozen=True)
class LoadtestConfig:
    url: str
    api: str | None = None
    model: str | None = None
    speed: float = 1.0  # the emulator's --speed: latencies are reported in its model seconds
    backoff: Backoff = field(default_factory=Backoff)
    headers: Headers = field(default_factory=Headers)
    timeout_s: float = 300.0
    slo_ttft_s: float | None = None
    bin_s: float = 5.0
    seed: int = 1


@dataclass
class LoadtestRun:
    config: LoadtestConfig
    model: str
    results: list[Result]
    duration_s: float
    summary: dict
    bins: list[dict]

    def write(self, out_dir: Path, name: str = "loadtest", title: str | None = None) -> tuple[Path, Path]:
        """`<name>.json` (config, summary, timeline, every request) and `<name>.png`."""
        config = asdict(self.config) | {"model": self.model}
        json_path, png_path = out_dir / f"{name}.json", out_dir / f"{name}.png"
        write_json(json_path, config, self.summary, self.results, self.bins)
        report.plot(png_path, self.results, self.bins, self.config.bin_s, self.config.slo_ttft_s,
                    title or f"{name}: {self.config.url}")
        return json_path, png_path

    def after(self, warmup_s: float) -> "LoadtestRun":
        """The run without its warm-up: requests first sent before `warmup_s`, with times shifted
        so the measured part starts at 0. Summary and timeline are recomputed."""
        kept = [replace(r, start=r.start - warmup_s, scheduled=r.scheduled - warmup_s)
                for r in self.results if r.scheduled >= warmup_s]
        duration = self.duration_s - warmup_s
        summary = summarize(kept, duration, self.config.slo_ttft_s) | {"model": self.model, "warmup_s": warmup_s}
        return LoadtestRun(self.config, self.model, kept, duration, summary, timeline(kept, self.config.bin_s))


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("ok {task.fields[ok]}  refused {task.fields[refused]}  errors {task.fields[errors]}"),
        TimeElapsedColumn(), console=console, transient=False)


async def run_loadtest(config: LoadtestConfig, arrivals: Sequence, console: Console | None = None,
                       show_progress: bool = True, description: str = "loadtest") -> LoadtestRun:
    """Send `arrivals` open-loop and measure every request; prints a progress bar unless told not to."""
    if not arrivals:
        raise ValueError("arrivals: expected at least one request to send")
    endpoint = Endpoint.from_url(config.url, config.api)
    clock = ModelClock(config.speed)
    async with new_session(config.timeout_s / config.speed) as session:
        model = config.model or await discover_model(session, endpoint.models_url)
        client = Client(session, endpoint, model, backoff=config.backoff, headers=config.headers,
                        clock=clock.now, sleep=lambda s: clock.sleep_until(clock.now() + s),
                        rng=random.Random(config.seed), timeout_s=config.timeout_s / config.speed)
        counts = {OK: 0, REFUSED: 0, ERROR: 0}
        progress = _progress(console or Console(stderr=True)) if show_progress else None

        def done(result: Result) -> None:
            counts[result.outcome] += 1
            if progress is not None:
                progress.update(task, advance=1, ok=counts[OK], refused=counts[REFUSED], errors=counts[ERROR])

        if progress is not None:
            progress.start()
            task = progress.add_task(description, total=len(arrivals), ok=0, refused=0, errors=0)
        try:
            start = clock.now()
            results = await open_loop(client, arrivals, clock, done)
            duration = clock.now() - start
        finally:
            if progress is not None:
                progress.stop()
    summary = summarize(results, duration, config.slo_ttft_s)
    summary["model"] = model
    return LoadtestRun(config, model, results, duration, summary, timeline(results, config.bin_s))


def run(config: LoadtestConfig, arrivals: Sequence, out_dir: Path, console: Console) -> LoadtestRun:
    loadtest = asyncio.run(run_loadtest(config, arrivals, console))
    json_path, png_path = loadtest.write(out_dir)
    report.print_summary(loadtest.summary, console, title=f"loadtest {config.url} ({loadtest.model})")
    console.print(f"wrote {json_path} and {png_path}")
    return loadtest
