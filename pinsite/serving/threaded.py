"""The web worker: gunicorn's threaded worker (``gthread``) without its hand-offs.

``gthread`` runs a loop in the main thread that polls the listening sockets and the idle
kept-alive connections, and hands each connection with a request to read to a
``concurrent.futures`` pool: a ``Future`` (with its condition) and a done callback per
request, and on every turn of the loop a ``futures.wait`` over every request in flight, a
heartbeat to the arbiter and a check of the parent. Every request wakes two threads, the
loop's and then a pool thread, and they hand the GIL to each other.

Here the serving threads poll themselves. They wait together on one epoll set holding the
listening sockets and every idle connection (each registered ``EPOLLONESHOT``, so that one
thread gets it); the thread that the kernel wakes accepts, or reads the request and answers
it, then puts its connection back in the set. The main thread only keeps house once every
:data:`HOUSEKEEPING` seconds: the heartbeat, the parent check, the kept-alive connections that
expired. Requests are handled by gunicorn's own ``handle`` and ``handle_request`` (parsing,
the WSGI call, errors, ``max_requests``, the keep-alive limit), with every setting as
``gthread`` reads it; and a response's headers leave in the same ``send`` as its body.
Measured in BENCHMARKS.md, "The web worker".

``gunicorn -k pinsite.serving.threaded.ThreadedWorker`` (:mod:`pinsite.serving.gunicorn`);
Linux only (epoll), as the site's machines are.
"""

from __future__ import annotations

import errno
import select
import sys
import threading
import time
from contextlib import suppress
from threading import RLock
from typing import Any

from gunicorn.workers import base
from gunicorn.workers.gthread import TConn, ThreadWorker

HOUSEKEEPING = 1.0  # seconds between heartbeats, parent checks and keep-alive expiries
_ARMED = select.EPOLLIN | select.EPOLLONESHOT


class ThreadedWorker(ThreadWorker):
    """``gthread``'s requests, served by threads that poll for them."""

    def init_process(self) -> None:
        self._lock = RLock()
        self._epoll = select.epoll()
        self._listeners: dict[int, tuple[Any, Any]] = {}  # fd → (socket, its address)
        self._open: dict[int, TConn] = {}  # fd → every connection accepted and not closed
        self._accepting = True
        self._threads = [threading.Thread(target=self._poll, name=f"web-{number}",
                                          daemon=True)
                         for number in range(self.cfg.threads)]
        base.Worker.init_process(self)  # loads the application, then run()

    def handle_quit(self, sig: Any, frame: Any) -> None:
        """SIGQUIT / SIGINT: stop at once, as ``gthread`` does."""
        self.alive = False
        self.cfg.worker_int(self)
        time.sleep(0.1)
        sys.exit(0)

    def run(self) -> None:
        for listener in self.sockets:
            listener.setblocking(False)
            # gthread's note: the listener's name may be gone during a graceful shutdown
            self._listeners[listener.fileno()] = (listener, listener.getsockname())
            self._epoll.register(listener.fileno(), select.EPOLLIN)
        for thread in self._threads:
            thread.start()
        while self.alive:
            self.notify()
            if not self.is_parent_alive():
                break
            self.murder_keepalived()
            time.sleep(HOUSEKEEPING)
        self.alive = False
        with self._lock:
            listeners, self._listeners = self._listeners, {}
            for fd, (listener, _) in listeners.items():
                self._epoll.unregister(fd)
                listener.close()
        deadline = time.monotonic() + self.cfg.graceful_timeout
        for thread in self._threads:  # each ends after the request in its hands
            thread.join(max(0.0, deadline - time.monotonic()))
        self._drain(deadline)
        with self._lock:
            for conn in list(self._open.values()):
                self._close(conn)
            self._epoll.close()

    def _drain(self, deadline: float) -> None:
        """Answer the connections accepted whose request was not read yet (a thread accepts
        until it sees the worker stopping, after ``max_requests`` or a SIGTERM), each with
        ``Connection: close``, until ``deadline``."""
        with self._lock:
            fresh = [conn for conn in self._open.values() if not conn.initialized]
        for conn in fresh:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            conn.init()
            conn.sock.settimeout(min(left, HOUSEKEEPING))  # a client that sends nothing
            self._serve(conn)

    def _poll(self) -> None:
        """A serving thread: wait for a listener or an idle connection to be readable, accept
        or serve it, until the worker stops."""
        while self.alive:
            try:
                events = self._epoll.poll(HOUSEKEEPING, 1)
            except (OSError, ValueError):  # the set closed: the worker is stopping
                return
            for fd, _ in events:
                listener = self._listeners.get(fd)
                if listener is not None:
                    self._accept(*listener)
                elif (conn := self._claim(fd)) is not None:
                    self._serve(conn)

    def _accept(self, listener: Any, server: Any) -> None:
        try:
            sock, client = listener.accept()
        except OSError as exc:  # another thread took it, or the client left
            if exc.errno in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                return
            raise
        conn = TConn(self.cfg, sock, client, server)
        conn.fd = sock.fileno()
        with self._lock:
            if conn.fd not in self._open:  # else its number was a connection gunicorn closed
                self.nr_conns += 1
            self._open[conn.fd] = conn
            self._epoll.register(conn.fd, _ARMED)
            if self.nr_conns >= self.worker_connections:
                self._accept_more(False)

    def _claim(self, fd: int) -> TConn | None:
        """The connection ``fd`` readable, taken off the idle list; None if it expired or
        closed meanwhile."""
        with self._lock:
            conn = self._open.get(fd)
            if conn is not None and conn.initialized:
                try:
                    self._keep.remove(conn)
                except ValueError:
                    return None
            return conn

    def _serve(self, conn: TConn) -> None:
        """One request of ``conn``; then the connection back in the set, or closed. Its
        socket blocks from its first request on: epoll tells when it is readable, and
        switching it back and forth cost two system calls a request."""
        if not conn.initialized:
            conn.init()
        try:
            keepalive, conn = self.handle(conn)
        except Exception:  # handle() answers what it can; this closes the connection
            self.log.exception("Error handling a connection")
            keepalive = False
        if keepalive and self.alive:
            conn.set_timeout()
            with self._lock:
                self._keep.append(conn)
                self._epoll.modify(conn.fd, _ARMED)
            return
        with self._lock:
            self._close(conn)

    def handle_request(self, req: Any, conn: TConn) -> bool:
        """gunicorn's, with the response's headers sent together with its body."""
        sock = conn.sock
        conn.sock = held = _HeadersWithBody(sock)
        try:
            return bool(super().handle_request(req, conn))
        finally:
            conn.sock = sock
            held.flush()

    def murder_keepalived(self) -> None:
        """Close the idle connections whose keep-alive ran out (``_keep`` is in the order
        their time runs out)."""
        now = time.time()
        with self._lock:
            while self._keep and self._keep[0].timeout <= now:
                self._close(self._keep.popleft())

    def _close(self, conn: TConn) -> None:
        """Under the lock: ``conn`` out of the set and closed. A socket that gunicorn closed
        already (an error after the headers) may have had its number taken by a newer
        connection, which stays, and which :meth:`_accept` counted in its place."""
        if self._open.get(conn.fd) is conn:
            del self._open[conn.fd]
            self.nr_conns -= 1
            with suppress(OSError, ValueError):
                self._epoll.unregister(conn.fd)
            if not self._accepting and self.nr_conns < self.worker_connections:
                self._accept_more(True)
        conn.close()

    def _accept_more(self, accepting: bool) -> None:
        """Under the lock: listen or stop listening (at ``worker_connections``)."""
        self._accepting = accepting
        for fd in self._listeners:
            self._epoll.modify(fd, select.EPOLLIN if accepting else 0)


class _HeadersWithBody:
    """A connection's socket as a response writes to it: the first write (gunicorn's headers)
    is held and leaves with the next (the body's first chunk) in one ``send``, or at
    :meth:`flush` when no body follows. On loopback and on the network alike, a send is the
    costly part of a small response; gunicorn makes two."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self._held: bytes | None = None
        self._first = True

    def sendall(self, data: bytes) -> None:
        if self._first:
            self._first, self._held = False, bytes(data)
            return
        if self._held is not None:
            data, self._held = self._held + data, None
        self._sock.sendall(data)

    def sendfile(self, *args: Any, **kwargs: Any) -> int:
        self.flush()
        return int(self._sock.sendfile(*args, **kwargs))

    def flush(self) -> None:
        """Send what is held (a response without a body); a connection already shut down
        (an error after the headers) has nothing more to send."""
        held, self._held = self._held, None
        if held:
            with suppress(OSError):
                self._sock.sendall(held)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)
