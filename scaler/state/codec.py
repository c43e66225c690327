"""AdmissionState to and from the bytes a shared store keeps (compact JSON, versioned)."""

from __future__ import annotations

import json

from scaler.admission import AdmissionState
from scaler.admission.backlog import Admitted
from scaler.admission.bucket import Bucket

VERSION = 1


def encode(state: AdmissionState) -> bytes:
    def buckets(mapping):
        return {pool: [b.tokens, b.time] for pool, b in mapping.items()}

    return json.dumps({
        "v": VERSION,
        "quotas": buckets(state.quotas),
        "red": None if state.red is None else [state.red.tokens, state.red.time],
        "shares": buckets(state.shares),
        "seen": dict(state.last_seen),
        "adm": [[list(b) for b in state.admitted.bins], state.admitted.since, _last(state.admitted.last)],
    }, separators=(",", ":")).encode()


def decode(raw: bytes | None) -> AdmissionState:
    """The stored state; a missing, foreign or corrupt value starts afresh (an empty state admits
    as a new model would), so a bad write can never make this replica refuse more."""
    if not raw:
        return AdmissionState()
    try:
        data = json.loads(raw)
        if data.get("v") != VERSION:
            return AdmissionState()

        def buckets(mapping):
            return {str(pool): Bucket(float(t), float(at)) for pool, (t, at) in mapping.items()}

        red = data["red"]
        bins, since, last = data.get("adm") or ([], None, None)  # absent (an older replica wrote it): nothing counted
        return AdmissionState(quotas=buckets(data["quotas"]),
                              red=None if red is None else Bucket(float(red[0]), float(red[1])),
                              shares=buckets(data["shares"]),
                              last_seen={str(k): float(v) for k, v in data["seen"].items()},
                              admitted=Admitted(tuple((float(t), float(n)) for t, n in bins),
                                                None if since is None else float(since),
                                                None if last is None else (tuple(float(v) for v in last[0]),
                                                                           float(last[1]), float(last[2]))))
    except (ValueError, TypeError, KeyError, AttributeError):
        return AdmissionState()


def _last(last):
    """The slot queue's last projected point (a cache of a replay of the bins), as JSON."""
    return None if last is None else [list(last[0]), last[1], last[2]]
