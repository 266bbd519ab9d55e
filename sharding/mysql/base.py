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
reconnects). Everything else is Django's backend.
"""

from __future__ import annotations

import time
from typing import Any

from django.db.backends.mysql import base

HEALTH_CHECK_SECONDS = 1.0


class DatabaseWrapper(base.DatabaseWrapper):
    # Whether the server session is in autocommit mode (mysqlclient opens it with autocommit
    # off; Django turns it on right after connecting).
    _server_autocommit = False

    # When this connection last passed a health check (or was opened).
    _checked_at = 0.0
    health_check_done: bool

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        self._server_autocommit = False
        self._checked_at = time.monotonic()
        return connection

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
        with self.wrap_database_errors:
            self.connection.autocommit(autocommit)
        self._server_autocommit = autocommit

    def _start_transaction_under_autocommit(self) -> None:
        """Called by ``atomic`` to open a transaction: ``BEGIN``, leaving autocommit on."""
        if not self._server_autocommit:
            self._set_autocommit(False)
            return
        with self.wrap_database_errors, self.connection.cursor() as cursor:
            cursor.execute("BEGIN")
