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

Statements whose answer is only an acknowledgement (``BEGIN``, releasing a named lock) are
sent without waiting for it (:meth:`DatabaseWrapper.send_unanswered`): the server runs them
at once, and the acknowledgement is read before the connection's next statement, commit,
rollback or check, by when it has long arrived. A follow pays two waits less. An error in
such a statement is raised by that next use. Everything else is Django's backend.
"""

from __future__ import annotations

import time
from contextlib import suppress
from typing import Any

from django.db import DatabaseError
from django.db.backends.mysql import base

HEALTH_CHECK_SECONDS = 1.0


class DatabaseWrapper(base.DatabaseWrapper):
    # Whether the server session is in autocommit mode (mysqlclient opens it with autocommit
    # off; Django turns it on right after connecting).
    _server_autocommit = False

    # When this connection last passed a health check (or was opened).
    _checked_at = 0.0
    health_check_done: bool

    # Statements sent whose acknowledgements are not read yet.
    _unanswered = 0

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        self._server_autocommit = False
        self._checked_at = time.monotonic()
        self._unanswered = 0
        return connection

    def send_unanswered(self, sql: str) -> None:
        """Send ``sql``, a statement that returns no rows, without waiting for its answer."""
        self.ensure_connection()
        self.read_answers()
        with self.wrap_database_errors:
            self.connection.send_query(sql.encode())
        self._unanswered += 1

    def read_answers(self) -> None:
        """Read the acknowledgements of statements sent by :meth:`send_unanswered`."""
        while self._unanswered:
            self._unanswered -= 1
            with self.wrap_database_errors:
                self.connection.read_query_result()

    def create_cursor(self, name: Any = None) -> Any:
        self.read_answers()
        return super().create_cursor(name)

    def commit(self) -> None:
        self.read_answers()
        super().commit()

    def rollback(self) -> None:
        if self.connection is not None and self._unanswered:
            with suppress(DatabaseError):  # the rollback below reports a dead connection
                self.read_answers()
        super().rollback()

    def is_usable(self) -> bool:
        try:
            self.read_answers()
        except DatabaseError:
            return False
        return bool(super().is_usable())

    def close(self) -> None:
        self._unanswered = 0
        super().close()

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
