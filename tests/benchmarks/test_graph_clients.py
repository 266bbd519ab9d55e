"""bench graph's concurrent follows: real follows and raw writes from client processes, each
side's rate and CPU per operation measured in the same run."""

from __future__ import annotations

import uuid

from benchmarks import cpu, graph_clients
from graph import selectors
from pins.actions import create_pinner


def test_each_side_reports_its_rate_and_its_cpu_per_operation() -> None:
    pinners = [[create_pinner(f"gc{uuid.uuid4().hex[:12]}", None).user_id for _ in range(4)]
               for _ in range(2)]

    def pairs_of(client: int) -> list[tuple[int, int]]:
        own = pinners[client]
        return [(a, b) for a in own for b in own if a != b]

    try:
        figures = graph_clients.measure(2, 1, 11, pairs_of)
    finally:
        graph_clients.drop_ceiling(pinners)
    assert (figures["clients"], figures["processes"]) == (2, 1)
    for side in (figures["follows"], figures["raw_insert_and_two_zadds"]):
        assert side["samples"] == 22 and side["per_s"] > 0
        spent = side["cpu_ms_per_op"]
        assert spent["machine"] > 0 and spent["clients"] > 0
        assert set(spent) == {"machine", "clients", "other", *(name for name, _ in cpu.STORES)}
        parts = sum(ms for name, ms in spent.items() if name != "machine")
        assert parts >= spent["machine"] - 0.01  # "other" is what is left of the machine's
    assert figures["machine_cpu_ratio"] > 0
    assert all(selectors.is_following_user(a, b) for own in pinners
               for a, b in pairs_of(pinners.index(own))[:12])
