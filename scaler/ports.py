"""Free loopback ports for the processes the demo, the scripts and the tests start."""

from __future__ import annotations

import socket


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port_range(count: int) -> int:
    """A base port P with P..P+count-1 free on loopback now (the emulator uses P+i per replica)."""
    for _ in range(200):
        base = free_port()
        if base + count < 65000 and all(_port_free(base + i) for i in range(count)):
            return base
    raise RuntimeError(f"no run of {count} free ports on 127.0.0.1")
