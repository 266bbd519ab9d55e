"""Django's MySQL backend, with transactions and health checks that cost fewer round trips.

Django starts a transaction by turning autocommit off (``SET autocommit=0``) and ends it by
turning it on again (``SET autocommit=1``): two statements around every transaction, on top
of its own ``COMMIT``. This backend keeps the server's autocommit on and starts a transaction
with ``BEGIN`` instead, which ``COMMIT`` or ``ROLLBACK`` end; turning autocommit back on is
then a no-op. A short transaction (a follow's edge-log write: two inserts and a select) pays
one statement less.

With ``CONN_HEALTH_CHECKS`` Django pings every persistent connection before its first query
in each request: a round trip per host per request. Here a connection that passed a check
(or was opened) within the last ``HEALTH_CHECK_SECONDS`` is taken as healthy without a ping;
one that died in that second fails its query, and the sharding layer drops it (the next use
reconnects).

Statements whose answer is not needed at once (``BEGIN``, a named lock taken before a
transaction's first statement, its release) are sent without waiting for it
(:meth:`DatabaseWrapper.send_unanswered`, :mod:`sharding.mysql.pipeline`): the server runs
them at once, in order, and their answers are read, and checked, with the connection's next
statement (which is sent first), or before its commit, rollback or check. A statement whose
answer is needed later in the transaction (a follow's edge insert: was the edge new?) is sent
the same way, its answer kept in a :class:`pipeline.Answer`. A follow of a user waits twice
(its select, its commit) where it would wait six times. An error in such a statement is raised
by that next use. Everything else is Django's backend.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from django.db import DatabaseError
from django.db.backends.mysql import base

from sharding.mysql import pipeline

HEALTH_CHECK_SECONDS = 1.0


class DatabaseWrapper(base.DatabaseWrapper):
    # Whether the server session is in autocommit mode (mysqlclient opens it with autocommit
    # off; Django turns it on right after connecting).
    _server_autocommit = False

    # When this connection last passed a health check (or was opened).
    _checked_at = 0.0
    health_check_done: bool

    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        params["cursorclass"] = pipeline.PipelinedCursor
        return params

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        self._server_autocommit = False
        self._checked_at = time.monotonic()
        return connection

    def send_unanswered(self, sql: str, check: pipeline.Check | None = None,
                        params: Sequence[Any] = (), after: pipeline.Answer | None = None,
                        ) -> None:
        """Send ``sql`` without waiting for its answer, which is read (and given to ``check``)
        before the connection's next statement, commit, rollback or check (see
        :func:`pipeline.send` for ``params`` and ``after``)."""
        self.ensure_connection()
        with self.wrap_database_errors:
            pipeline.send(self.connection, sql, check, params, after)

    def read_answers(self) -> None:
        """Read the answers of statements sent by :meth:`send_unanswered`."""
        if self.connection is not None:
            with self.wrap_database_errors:
                pipeline.settle(self.connection)

    def commit(self) -> None:
        self.read_answers()
        super().commit()

    def rollback(self) -> None:
        with suppress(DatabaseError):  # the rollback below reports a dead connection
            self.read_answers()
        super().rollback()

    def is_usable(self) -> bool:
        try:
            self.read_answers()
        except DatabaseError:
            return False
        return bool(super().is_usable())

    def close_if_health_check_failed(self) -> None:
        if self.connection is not None and not self.health_check_done and \
                time.monotonic() - self._checked_at < HEALTH_CHECK_SECONDS:
            self.health_check_done = True
            return
        super().close_if_health_check_failed()
        if self.connection is not None:
            self._checked_at = time.monotonic()

    def _set_autocommit(self, autocommit: bool) -> None:
        if autocommit and self._server_autocommit:
            return  # a BEGIN ... COMMIT transaction left the session in autocommit already
        self.read_answers()
        with self.wrap_database_errors:
            self.connection.autocommit(autocommit)
        self._server_autocommit = autocommit

    def _start_transaction_under_autocommit(self) -> None:
        """Called by ``atomic`` to open a transaction: ``BEGIN``, leaving autocommit on."""
        if not self._server_autocommit:
            self._set_autocommit(False)
            return
        self.send_unanswered("BEGIN")
