"""``devstack kill`` returns once the server is gone and its port is free, so a ``start``
right after it never finds the port taken (a killed multi-threaded server shows a zombie main
thread while its other threads still hold the listening socket)."""

from __future__ import annotations

import signal
import socket
from collections.abc import Iterator

import pytest

from devstack import health, process
from devstack.__main__ import main
from devstack.stack import Stack
from tests.devstack.helpers import own_stack

pytestmark = pytest.mark.beside  # CONTRIBUTING.md, "Three sessions"

PROFILE = "killstart"


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    """A stack of its own (profile ``killstart``, ports 9200+); stopped and removed after."""
    with own_stack(monkeypatch, PROFILE, 9200) as own:
        yield own


def test_a_killed_service_starts_again_at_once(stack: Stack,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    redis = stack.services["redis001a"]  # with AOF: more threads to end after the main one
    for _ in range(10):
        assert main(["--profile", PROFILE, "start", "redis001a"]) == 0, capsys.readouterr().err
        assert main(["--profile", PROFILE, "kill", "redis001a"]) == 0, capsys.readouterr().err
        assert not health.port_open(redis.host, redis.port, timeout=0.3)
        assert "in use by a process devstack did not start" not in capsys.readouterr().err


def test_stop_returns_once_the_port_is_free(stack: Stack) -> None:
    redis = stack.services["redis000"]
    stack.start("redis000")
    stack.stop("redis000")
    assert not redis.is_running()
    assert not health.port_open(redis.host, redis.port, timeout=0.3)


def test_a_stopped_service_answers_nothing_once_kill_returns(stack: Stack) -> None:
    """SIGSTOP stops a busy thread only when it is next scheduled: ``kill`` waits for every
    thread of the server to stop, so a request sent after it gets no answer until SIGCONT."""
    redis = stack.services["redis000"]
    stack.start("redis000")
    try:
        for _ in range(10):
            with socket.create_connection((redis.host, redis.port), timeout=5) as client:
                assert ping(client) == b"+PONG\r\n"
                redis.kill(signal.SIGSTOP)
                pid = redis.pid()
                assert pid is not None and process.wait_suspended(pid, 0)  # no wait left
                client.settimeout(0.3)
                with pytest.raises(TimeoutError):
                    ping(client)
                redis.kill(signal.SIGCONT)
    finally:
        redis.kill(signal.SIGCONT)


def ping(client: socket.socket) -> bytes:
    client.sendall(b"PING\r\n")
    return client.recv(64)
