"""JSON log lines, one object per line: what people grep and what log pipelines parse.

A record's `extra={"fields": {...}}` is merged into the object, e.g. every state change carries
the decision's fields (model, state, previous_state, reason, detail and the numbers).
"""

from __future__ import annotations

import json
import logging
import math
import sys


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {"ts": round(record.created, 3), "level": record.levelname.lower(), "logger": record.name,
                "msg": record.getMessage()}
        line.update(getattr(record, "fields", {}))
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps({k: _plain(v) for k, v in line.items()}, default=str)


def _plain(value):
    """JSON has no Infinity or NaN: write them as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is at the time (so redirections, pytest's included, hold)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _):
        pass


def configure(level: str = "info") -> None:
    """JSON lines on stderr for the whole process; calling it again replaces only our handler."""
    handler = StderrHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if not isinstance(h, StderrHandler)] + [handler]
    root.setLevel(level.upper())
