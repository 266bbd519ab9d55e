"""Loopback ports for throwaway servers (the tests' and benchmarks' own pairs and sites)."""

from __future__ import annotations

import socket


def free_loopback_ports(count: int) -> list[int]:
    """``count`` distinct loopback ports nothing listens on (all probed at once)."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [int(probe.getsockname()[1]) for probe in probes]
    finally:
        for probe in probes:
            probe.close()
