"""A small WSGI application for the web worker's tests (:mod:`pinsite.serving.threaded`),
served by gunicorn in a process of its own: no Django, so that each test sees the worker
alone."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from typing import Any

StartResponse = Callable[..., Any]


def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    path = environ["PATH_INFO"]
    if path == "/slow":  # its start marked in a file, answered once the client sends its body
        mark = os.environ.get("THREADED_APP_MARK")
        if mark:
            with open(mark, "w"):
                pass
        environ["wsgi.input"].read()
        return _answer(start_response, b"slow done")
    if path == "/echo":
        body = environ["wsgi.input"].read()
        return _answer(start_response, body)
    if path == "/chunks":  # a streamed answer of unknown length: chunked encoding
        start_response("200 OK", [("Content-Type", "text/plain")])
        return (b"chunk %d;" % number for number in range(1000))
    if path == "/file":  # gunicorn's file wrapper: sendfile
        return _file(environ, start_response)
    if path == "/empty":
        start_response("204 No Content", [])
        return []
    if path == "/pid":
        return _answer(start_response, str(os.getpid()).encode())
    if path == "/fail":
        raise RuntimeError("the application failed")
    return _answer(start_response, b"ok")


def _answer(start_response: StartResponse, body: bytes) -> list[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain"),
                              ("Content-Length", str(len(body)))])
    return [body]


FILE_BYTES = bytes(range(256)) * 4096  # 1 MiB


def _file(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    handle = tempfile.TemporaryFile()  # noqa: SIM115 (gunicorn's file wrapper closes it)
    handle.write(FILE_BYTES)
    handle.seek(0)
    start_response("200 OK", [("Content-Type", "application/octet-stream"),
                              ("Content-Length", str(len(FILE_BYTES)))])
    wrapped: Iterable[bytes] = environ["wsgi.file_wrapper"](handle)
    return wrapped
