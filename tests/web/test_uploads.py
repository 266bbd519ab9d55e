"""Upload size limits of the web UI: a body over the limit is refused before it is read,
whether it declares its length or streams it (chunked); one within the limit is a pin.

The streamed requests go through ``pinsite.wsgi.application``, the WSGI application gunicorn
serves (which decodes chunked bodies and leaves ``Content-Length`` unset), with an environ as
gunicorn builds it. An upload handler placed first records what reaches Django's parsing.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.files.uploadhandler import FileUploadHandler
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from pytest_django import Settings

from pins.models import Pinner
from pins.selectors import pins_of_board
from pinsite.serving.bodies import upload_limit
from pinsite.wsgi import application
from tests.web.helpers import new_board, png_bytes, text

HUGE = 50 * 2**20


class RecordingHandler(FileUploadHandler):
    """Counts the files and bytes Django's multipart parser hands to upload handlers."""

    files = 0
    received = 0

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        RecordingHandler.files += 1

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        RecordingHandler.received += len(raw_data)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


class StreamedBody(io.RawIOBase):
    """A request body of ``head``, ``size`` zero bytes and ``tail``, made as it is read,
    counting what was read."""

    def __init__(self, head: bytes, size: int, tail: bytes) -> None:
        self.parts = iter([head, *[b"\0" * 2**20] * (size // 2**20), tail])
        self.pending = b""
        self.sent = 0

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        while size < 0 or len(self.pending) < size:
            part = next(self.parts, None)
            if part is None:
                break
            self.pending += part
        cut = len(self.pending) if size < 0 else size
        chunk, self.pending = self.pending[:cut], self.pending[cut:]
        self.sent += len(chunk)
        return chunk


@pytest.fixture(autouse=True)
def recording(settings: Settings, tmp_path: Path) -> Iterator[Path]:
    """The recording handler before Django's own; temporary uploads in a folder of the test."""
    temp = tmp_path / "uploads"
    temp.mkdir()
    settings.FILE_UPLOAD_TEMP_DIR = str(temp)
    settings.FILE_UPLOAD_HANDLERS = [f"{__name__}.RecordingHandler",
                                     *settings.FILE_UPLOAD_HANDLERS]
    RecordingHandler.files = RecordingHandler.received = 0
    yield temp


@pytest.fixture
def uploader(pinner: Pinner, login: Callable[[Pinner], Client]) -> tuple[Client, int]:
    """A logged-in client of a pinner with a board, and the board's ID."""
    board = new_board(pinner)
    client = login(pinner)
    assert client.get("/pin/new/").status_code == 200  # sets the CSRF cookie
    return client, board.id


def _fields(board_id: int, client: Client) -> dict[str, str]:
    return {"board": str(board_id), "title": "Streamed", "description": "", "link": "",
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value}


def _file_head(name: str) -> bytes:
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"image\"; "
            f"filename=\"{name}\"\r\nContent-Type: image/png\r\n\r\n").encode()


def _streamed_post(client: Client, body: io.RawIOBase) -> tuple[str, dict[str, str], bytes]:
    """POST ``body`` to ``/pin/new/`` chunked, as gunicorn hands it to the application."""
    cookies = "; ".join(f"{name}={morsel.value}" for name, morsel in client.cookies.items())
    environ = {
        "REQUEST_METHOD": "POST", "PATH_INFO": "/pin/new/", "SCRIPT_NAME": "",
        "QUERY_STRING": "", "SERVER_NAME": "testserver", "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "testserver",
        "HTTP_COOKIE": cookies, "HTTP_TRANSFER_ENCODING": "chunked",
        "CONTENT_TYPE": MULTIPART_CONTENT, "wsgi.input": body, "wsgi.input_terminated": True,
        "wsgi.version": (1, 0), "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr,
        "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False,
    }
    answer: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], *_: Any) -> None:
        answer.update(status=status, headers=dict(headers))

    result = application(environ, start_response)
    try:
        content = b"".join(result)
    finally:
        getattr(result, "close", lambda: None)()
    return answer["status"], answer["headers"], content


def test_a_50_mb_upload_with_its_length_is_refused_unread(uploader: tuple[Client, int],
                                                           recording: Path) -> None:
    client, board_id = uploader
    huge = SimpleUploadedFile("huge.png", b"\0" * HUGE, content_type="image/png")
    response = client.post("/pin/new/", {"board": str(board_id), "title": "Huge",
                                         "image": huge})
    assert response.status_code == 413
    assert "larger than the 10 MB image limit" in text(response)
    assert (RecordingHandler.files, RecordingHandler.received) == (0, 0)
    assert list(recording.iterdir()) == []
    assert pins_of_board(board_id, limit=5).items == []


def test_a_50_mb_streamed_upload_is_cut_at_the_limit(uploader: tuple[Client, int],
                                                      recording: Path) -> None:
    client, board_id = uploader
    head = encode_multipart(BOUNDARY, _fields(board_id, client))
    head = head[:head.rindex(f"--{BOUNDARY}--".encode())] + _file_head("huge.png")
    body = StreamedBody(head, HUGE, f"\r\n--{BOUNDARY}--\r\n".encode())
    status, _, content = _streamed_post(client, body)
    assert status.startswith("413")
    assert "larger than the 10 MB image limit" in content.decode()
    assert body.sent == upload_limit() + 1
    assert (RecordingHandler.files, RecordingHandler.received) == (0, 0)
    assert list(recording.iterdir()) == []
    assert pins_of_board(board_id, limit=5).items == []


def test_a_streamed_upload_within_the_limit_is_pinned(uploader: tuple[Client, int]) -> None:
    client, board_id = uploader
    image = png_bytes()
    data = encode_multipart(BOUNDARY, {
        **_fields(board_id, client),
        "image": SimpleUploadedFile("pin.png", image, content_type="image/png")})
    status, headers, _ = _streamed_post(client, StreamedBody(data, 0, b""))
    assert status.startswith("302"), status
    assert (RecordingHandler.files, RecordingHandler.received) == (1, len(image))
    [pin] = pins_of_board(board_id, limit=5).items
    assert headers["Location"] == f"/pin/{pin.id}/" and pin.title == "Streamed"


def test_the_api_answers_an_oversized_upload_in_json(settings: Settings) -> None:
    settings.PINSITE_CONTENT = {**settings.PINSITE_CONTENT, "MAX_IMAGE_BYTES": 1000}
    huge = SimpleUploadedFile("huge.png", b"\0" * (upload_limit() + 1))
    response = Client().post("/api/v1/pins/", {"title": "Huge", "image": huge})
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"
