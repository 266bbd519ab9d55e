"""The web worker (:mod:`pinsite.serving.threaded`) under gunicorn, serving a small WSGI
application (:mod:`tests.pinsite.threaded_app`) on a port of its own: kept-alive connections,
more clients than threads, bodies of every kind, idle connections expiring, the connection
limit, a graceful stop, ``max_requests``."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests
from django.conf import settings

from devstack.ports import free_loopback_ports
from pinsite.serving.threaded import _HeadersWithBody
from tests.pinsite.threaded_app import FILE_BYTES
from tests.polling import wait_until

pytestmark = pytest.mark.beside


@contextmanager
def server(tmp_path: Path, *options: str, threads: int = 2) -> Iterator[tuple[str, int, Path]]:
    """gunicorn with the worker, one process of ``threads`` threads: (host:port, the
    master's pid, its log)."""
    [port] = free_loopback_ports(1)
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "tests.pinsite.threaded_app:app",
             "--worker-class", "pinsite.serving.threaded.ThreadedWorker", "--workers", "1",
             "--threads", str(threads), "--bind", f"127.0.0.1:{port}", *options],
            cwd=settings.BASE_DIR, stdout=out, stderr=subprocess.STDOUT,
            env={**os.environ, "THREADED_APP_MARK": str(tmp_path / "slow-started")})
    address = f"127.0.0.1:{port}"
    try:
        assert wait_until(lambda: _answers(address), timeout=30, every=0.1), log.read_text()
        yield address, process.pid, log
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)


def _answers(address: str) -> bool:
    try:
        return requests.get(f"http://{address}/", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def _connection(address: str) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(address, timeout=10)


BODY = b"done"


def _slow_request(address: str) -> http.client.HTTPConnection:
    """A connection with a request to ``/slow`` whose body is not sent yet: the request holds
    its thread until the caller sends :data:`BODY`."""
    connection = _connection(address)
    connection.putrequest("POST", "/slow")
    connection.putheader("Content-Length", str(len(BODY)))
    connection.endheaders()
    return connection


def _get(connection: http.client.HTTPConnection, path: str) -> http.client.HTTPResponse:
    connection.request("GET", path)
    return connection.getresponse()


def test_one_connection_carries_many_requests_of_every_kind(tmp_path: Path) -> None:
    with server(tmp_path) as (address, _, _):
        connection = _connection(address)
        try:
            for _ in range(50):
                response = _get(connection, "/")
                assert (response.status, response.read()) == (200, b"ok")
                assert response.getheader("Connection") == "keep-alive"
            streamed = _get(connection, "/chunks")
            assert streamed.getheader("Transfer-Encoding") == "chunked"
            assert streamed.read() == b"".join(b"chunk %d;" % n for n in range(1000))
            sent = _get(connection, "/file")
            assert sent.read() == FILE_BYTES
            empty = _get(connection, "/empty")
            assert (empty.status, empty.read()) == (204, b"")
            connection.request("POST", "/echo", body=b"x" * 100_000)
            assert connection.getresponse().read() == b"x" * 100_000
            connection.request("HEAD", "/")
            head = connection.getresponse()
            assert (head.status, head.getheader("Content-Length"), head.read()) == (200, "2", b"")
            assert _get(connection, "/").read() == b"ok"  # the same connection still serves
        finally:
            connection.close()


def test_more_clients_than_threads_are_all_answered(tmp_path: Path) -> None:
    """Twelve clients on kept-alive connections, two threads: every request is answered."""
    answers: list[bytes] = []
    with server(tmp_path) as (address, _, _):
        def client() -> None:
            session = requests.Session()
            for _ in range(30):
                answers.append(session.get(f"http://{address}/", timeout=10).content)
            session.close()

        clients = [threading.Thread(target=client) for _ in range(12)]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
    assert answers == [b"ok"] * 360


def test_a_slow_request_holds_one_thread_and_the_other_serves(tmp_path: Path) -> None:
    with server(tmp_path) as (address, _, _):
        slow = _slow_request(address)
        assert wait_until((tmp_path / "slow-started").exists, timeout=10)
        quick = _connection(address)
        for _ in range(20):
            assert _get(quick, "/").read() == b"ok"
        slow.send(BODY)
        assert slow.getresponse().read() == b"slow done"


def test_an_idle_connection_is_closed_when_its_keep_alive_runs_out(tmp_path: Path) -> None:
    with server(tmp_path, "--keep-alive", "1") as (address, _, _):
        connection = _connection(address)
        assert _get(connection, "/").read() == b"ok"
        sock = connection.sock
        assert sock is not None
        sock.settimeout(15)
        assert sock.recv(1) == b""  # the server closed it: end of stream, before 15 s
        answer = _connection(address)
        assert _get(answer, "/").read() == b"ok"


def test_past_the_connection_limit_a_client_waits_for_a_connection_to_close(
        tmp_path: Path) -> None:
    """Three connections at most, with one thread: two kept alive (the limit less the
    threads) and one that sent nothing yet fill it; a fourth is accepted once one closes."""
    with server(tmp_path, "--worker-connections", "3", threads=1) as (address, _, _):
        host, port = address.split(":")
        kept = [_connection(address) for _ in range(2)]
        for connection in kept:
            assert _get(connection, "/").read() == b"ok"
        silent = socket.create_connection((host, int(port)), timeout=10)
        waiting = socket.create_connection((host, int(port)), timeout=1)
        waiting.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        with pytest.raises(TimeoutError):
            waiting.recv(100)  # not accepted while three connections are open
        silent.close()
        waiting.settimeout(10)
        assert waiting.recv(1000).endswith(b"\r\n\r\nok")
        waiting.close()


def test_sigterm_lets_the_request_in_hand_finish(tmp_path: Path) -> None:
    with server(tmp_path) as (address, master, log):
        connection = _slow_request(address)
        assert wait_until((tmp_path / "slow-started").exists, timeout=10)
        os.kill(master, signal.SIGTERM)
        assert wait_until(lambda: "Handling signal: term" in log.read_text(), timeout=10)
        connection.send(BODY)
        assert connection.getresponse().read() == b"slow done"
        assert wait_until(lambda: "Shutting down: Master" in log.read_text(), timeout=30)


def test_the_worker_is_replaced_after_max_requests(tmp_path: Path) -> None:
    with server(tmp_path, "--max-requests", "20") as (address, _, _):
        pids = set()
        for _ in range(60):
            pids.add(requests.get(f"http://{address}/pid", timeout=10).text)
        assert len(pids) >= 2  # every answer came, from the worker and its replacements


def test_an_application_error_answers_500_and_the_server_goes_on(tmp_path: Path) -> None:
    with server(tmp_path) as (address, _, log):
        assert requests.get(f"http://{address}/fail", timeout=10).status_code == 500
        assert requests.get(f"http://{address}/", timeout=10).text == "ok"
        assert "the application failed" in log.read_text()


class _Recorded:
    """A socket that records what is sent to it."""

    def __init__(self) -> None:
        self.sends: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.sends.append(bytes(data))


def test_the_headers_leave_with_the_first_chunk_of_the_body() -> None:
    sock = _Recorded()
    held = _HeadersWithBody(sock)
    held.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
    assert sock.sends == []
    held.sendall(b"body")
    held.sendall(b"more")
    held.flush()
    assert sock.sends == [b"HTTP/1.1 200 OK\r\n\r\nbody", b"more"]


def test_headers_without_a_body_leave_at_the_flush() -> None:
    sock = _Recorded()
    held = _HeadersWithBody(sock)
    held.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
    held.flush()
    held.flush()
    assert sock.sends == [b"HTTP/1.1 204 No Content\r\n\r\n"]
