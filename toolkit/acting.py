"""Who is acting: the operator, command line or orchestrator on whose behalf this thread runs.

Each way in sets it once, for the work it starts: the admin's operator views for the signed-in
operator, :class:`toolkit.commands.SubcommandCommand` for a ``manage.py`` command (the OS user
and the command line), the orchestrator for each of its rounds. Code that records what it did
(the operator audit log, :mod:`auditlog`) reads :func:`current`; work with no way in set (a
Python shell, a queue worker) acts as this process. A queued job carries the actor of whoever
queued it (:meth:`Actor.to_json`, then :func:`carried` in the worker).

>>> with acting_as(command_line(["manage.py", "shards", "promote", "mysql001a"])):
...     current().kind
'command'
"""

from __future__ import annotations

import getpass
import os
import re
import shlex
import socket
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.http import HttpRequest

SECRET_IN_URL = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://[^:/@\s]*:)[^@\s]*@", re.I)


@dataclass(frozen=True)
class Actor:
    """``kind`` (``admin``, ``command``, ``orchestrator`` or ``process``), ``name`` (an
    admin's username, an OS user, an orchestrator's ``host:pid``) and ``detail`` (the
    request or the command line)."""

    kind: str
    name: str
    detail: str = ""

    def to_json(self) -> dict[str, str]:
        return asdict(self)

    @staticmethod
    def from_json(value: dict[str, str]) -> Actor:
        return Actor(str(value["kind"]), str(value["name"]), str(value.get("detail", "")))

    def __str__(self) -> str:
        return f"{self.kind} {self.name}"


_actor: ContextVar[Actor | None] = ContextVar("pinsite_actor", default=None)


def current() -> Actor:
    """The actor set for this context, else this process (:func:`this_process`)."""
    return _actor.get() or this_process()


@contextmanager
def acting_as(actor: Actor) -> Iterator[Actor]:
    """Work inside the block is done on behalf of ``actor``."""
    token = _actor.set(actor)
    try:
        yield actor
    finally:
        _actor.reset(token)


@contextmanager
def carried(value: dict[str, str] | None) -> Iterator[Actor]:
    """Act as the actor a queued message carries (:meth:`Actor.to_json`), if it carries one."""
    if value is None:
        yield current()
        return
    with acting_as(Actor.from_json(value)) as actor:
        yield actor


def admin(username: str, detail: str = "") -> Actor:
    """A signed-in operator of the Django admin."""
    return Actor("admin", username, detail)


def operator_of(request: HttpRequest) -> Actor:
    """The operator signed in to the admin who sent ``request``, with the request itself:
    ``POST /admin/operations/shards/mysql001a/promote/ from 10.0.0.7``."""
    address = request.META.get("REMOTE_ADDR") or "?"
    return admin(request.user.get_username(), f"{request.method} {request.path} from {address}")


def command_line(argv: Sequence[str]) -> Actor:
    """The OS user running ``manage.py`` with ``argv`` (passwords in URLs masked)."""
    words = [os.path.basename(argv[0]), *argv[1:]] if argv else []
    return Actor("command", os_user(), without_secrets(shlex.join(words)))


def orchestrator(identifier: str) -> Actor:
    """The leading orchestrator, ``host:pid``."""
    return Actor("orchestrator", identifier, "leader")


def this_process() -> Actor:
    """Work with no way in set: the OS user and this process's command line."""
    return Actor("process", os_user(), without_secrets(shlex.join(sys.argv)))


def process_name() -> str:
    """``host:pid`` of this process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name and no password database entry
        return str(os.getuid())


def without_secrets(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@`` masked."""
    return SECRET_IN_URL.sub(r"\g<scheme>***@", text)
