"""Real request traces: Azure LLM inference CSV and Mooncake JSONL, detected from the content.

Azure (AzurePublicDataset 2023): header `TIMESTAMP,ContextTokens,GeneratedTokens`, wall-clock
timestamps with up to 7 fractional digits. Mooncake (FAST'25): one JSON object per line with
`timestamp` in milliseconds from the start, `input_length`, `output_length`. Times come out in
seconds from the first request. Every error names the file, the line and the field.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from pathlib import Path

from scaler.workloads.arrivals import Arrival

AZURE_HEADER = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")
_AZURE_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?$")


class TraceError(ValueError):
    def __init__(self, path: Path, line: int | None, message: str):
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")


def load_trace(path: str | Path) -> list[Arrival]:
    """Read an Azure CSV or Mooncake JSONL trace; arrivals are sorted by time."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise TraceError(path, None, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceError(path, None, f"cannot read as UTF-8 text ({exc.__class__.__name__})") from None
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise TraceError(path, None, "empty file: expected an Azure CSV header or Mooncake JSON lines")
    head = lines[first].strip()
    if head.startswith("{"):
        arrivals = _mooncake(path, lines)
    elif head.split(",")[0].strip() == AZURE_HEADER[0]:
        arrivals = _azure(path, lines, first)
    else:
        raise TraceError(path, first + 1, (
            f"unknown format: expected the Azure header {','.join(AZURE_HEADER)!r} or a Mooncake JSON "
            f"object per line, got {head[:60]!r}"))
    if not arrivals:
        raise TraceError(path, None, "the trace holds no request")
    arrivals.sort(key=lambda a: a.time)
    return arrivals


def _tokens(path: Path, line: int, field: str, raw: object, minimum: int) -> int:
    if isinstance(raw, bool):
        raise TraceError(path, line, f"{field}: expected an integer >= {minimum}, got {raw!r}")
    try:
        value = int(raw) if isinstance(raw, int) else int(str(raw).strip())
    except ValueError:
        raise TraceError(path, line, f"{field}: expected an integer >= {minimum}, got {str(raw)[:40]!r}") from None
    if value < minimum:
        raise TraceError(path, line, f"{field}: expected an integer >= {minimum}, got {value}")
    return value


def _azure(path: Path, lines: list[str], header_index: int) -> list[Arrival]:
    header = tuple(col.strip() for col in lines[header_index].split(","))
    if header != AZURE_HEADER:
        raise TraceError(path, header_index + 1, f"header: expected {','.join(AZURE_HEADER)!r}, got {','.join(header)[:80]!r}")
    rows: list[tuple[float, int, int]] = []
    for index in range(header_index + 1, len(lines)):
        raw = lines[index].strip()
        if not raw:
            continue
        line = index + 1
        cols = raw.split(",")
        if len(cols) != 3:
            raise TraceError(path, line, f"expected 3 comma-separated columns {','.join(AZURE_HEADER)}, got {len(cols)}")
        rows.append((_azure_time(path, line, cols[0].strip()),
                     _tokens(path, line, "ContextTokens", cols[1], 1),
                     _tokens(path, line, "GeneratedTokens", cols[2], 1)))
    if not rows:
        return []
    start = min(t for t, _, _ in rows)
    return [Arrival(t - start, prompt, output) for t, prompt, output in rows]


def _azure_time(path: Path, line: int, raw: str) -> float:
    match = _AZURE_TIME.match(raw)
    if not match:
        raise TraceError(path, line, f"TIMESTAMP: expected 'YYYY-MM-DD HH:MM:SS.fffffff', got {raw[:40]!r}")
    try:
        whole = datetime.fromisoformat(match.group(1).replace("T", " "))
    except ValueError:
        raise TraceError(path, line, f"TIMESTAMP: not a valid date and time: {raw[:40]!r}") from None
    fraction = float("0." + match.group(2)) if match.group(2) else 0.0
    # Seconds since the epoch of a naive datetime, computed without the local time zone.
    return (whole - datetime(1970, 1, 1)).total_seconds() + fraction


def _mooncake(path: Path, lines: list[str]) -> list[Arrival]:
    out: list[Arrival] = []
    for index, raw in enumerate(lines):
        raw = raw.strip()
        if not raw:
            continue
        line = index + 1
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise TraceError(path, line, f"not valid JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise TraceError(path, line, "expected a JSON object with timestamp, input_length, output_length")
        for field in ("timestamp", "input_length", "output_length"):
            if field not in record:
                raise TraceError(path, line, f"{field}: missing (expected timestamp in ms, input_length, output_length)")
        stamp = record["timestamp"]
        if isinstance(stamp, bool) or not isinstance(stamp, (int, float)) or not math.isfinite(stamp) or stamp < 0:
            raise TraceError(path, line, f"timestamp: expected milliseconds >= 0, got {str(stamp)[:40]!r}")
        out.append(Arrival(stamp / 1000.0,
                           _tokens(path, line, "input_length", record["input_length"], 1),
                           _tokens(path, line, "output_length", record["output_length"], 1)))
    if out:
        start = min(a.time for a in out)
        out = [Arrival(a.time - start, a.prompt_tokens, a.max_tokens) for a in out]
    return out
