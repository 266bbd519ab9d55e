"""Statements sent ahead of their answers on one MySQLdb connection.

MySQL answers a connection's statements in the order they were sent, so a client may send a
statement before it reads the answers to earlier ones. :func:`send` sends one and notes that
its answer is owed; :func:`settle` reads every owed answer (running each one's check on it).
The connections' cursors (:class:`PipelinedCursor`) send their statement first and settle
what is owed before reading their own answer: a ``BEGIN`` or a lock sent ahead then costs no
wait of its own.

An owed answer that is an error, or that its check rejects, is raised once every answer
owed, including the cursor's own, has been read (the connection stays usable); the statements
sent after it have run all the same, which is why a lock sent ahead is only safe before
statements of a transaction that the error then rolls back.

>>> send(connection, "SELECT GET_LOCK('x', 5)", check=granted)
>>> cursor.execute("INSERT ...")   # the lock's answer is read, and checked, here

An :class:`Answer` given as the check keeps what its statement answered (its rows, and how
many rows it changed), for a statement whose answer is needed later in the same transaction:

>>> added = Answer()
>>> send(connection, "INSERT IGNORE ...", check=added)
>>> cursor.execute("SELECT ...")   # one wait for both
>>> added.changed
1
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Any

from MySQLdb import OperationalError
from MySQLdb.cursors import Cursor

Check = Callable[[Any], None]
"""Called with an owed answer's result (``None`` for a statement without rows)."""

_UNREAD = object()


class Answer:
    """What one statement sent ahead answered, once the connection read it: ``rows`` (empty
    for a statement without rows) and ``changed``, the rows it inserted, updated or deleted.
    Reading either before the answer arrived is an error: read it with the connection's next
    statement, or :func:`settle`, first."""

    def __init__(self) -> None:
        self._rows: Any = _UNREAD
        self._changed = 0

    def __call__(self, result: Any) -> None:
        self._rows = () if result is None else result.fetch_row(0)

    def note_changed(self, count: int) -> None:
        self._changed = count

    @property
    def rows(self) -> tuple[tuple[Any, ...], ...]:
        self._require_read()
        return tuple(self._rows)

    @property
    def changed(self) -> int:
        self._require_read()
        return self._changed

    def _require_read(self) -> None:
        if self._rows is _UNREAD:
            raise RuntimeError("the statement's answer has not been read yet")


class AnswerRejected(OperationalError):
    """An owed answer failed its check (a lock not granted, say)."""


def send(connection: Any, sql: str, check: Check | None = None,
         params: Sequence[Any] = (), after: Answer | None = None) -> None:
    """Send ``sql`` on the MySQLdb ``connection`` without reading its answer, with ``params``
    quoted into its ``%s`` as a cursor quotes them. With ``after``, the statement must come
    right after the one whose answer that is, still owed (it reads ``ROW_COUNT()``, say)."""
    checks = owed(connection)
    if after is not None and (not checks or checks[-1] is not after):
        raise RuntimeError("the statement must follow, unread, the one it depends on")
    query = sql.encode()
    if params:
        query = query % tuple(connection.literal(value) for value in params)
    connection.send_query(query)
    checks.append(check)


def owed(connection: Any) -> list[Check | None]:
    """The checks of the answers ``connection`` still owes, oldest first."""
    found: list[Check | None] | None = getattr(connection, "pinsite_owed", None)
    if found is None:
        found = connection.pinsite_owed = []
    return found


def settle(connection: Any) -> None:
    """Read every answer ``connection`` owes; raise the first error among them."""
    checks = owed(connection)
    if not checks:
        return
    pending, checks[:] = list(checks), []
    first: Exception | None = None
    for check in pending:
        try:
            connection.read_query_result()
            result = connection.store_result()
            if isinstance(check, Answer):
                check.note_changed(connection.affected_rows())
            if check is not None:
                check(result)
        except Exception as exc:  # read the rest first: the connection stays in step
            first = first or exc
    if first is not None:
        raise first


class PipelinedCursor(Cursor):
    """A cursor that sends its statement before it settles the connection's owed answers."""

    def _query(self, q: bytes) -> Any:
        db = self._get_db()
        if not owed(db):
            return super()._query(q)
        self._result = None
        self.warning_count = 0
        self.rowcount = None
        self.lastrowid = None
        db.send_query(q)
        try:
            settle(db)
        except Exception:
            with suppress(Exception):  # its own answer is owed as well; the first error wins
                db.read_query_result()
                db.store_result()
            raise
        db.read_query_result()
        self._do_get_result(db)
        self._post_get_result()
        self._executed = q
        return self.rowcount
