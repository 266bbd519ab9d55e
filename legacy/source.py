"""The legacy database: a classic one-database site's tables, read in batches by ID.

The expected tables (``docs/operations.md``, "Importing a legacy site"), with foreign keys:

=================  ===========================================================
``users``          ``id``, ``username``, ``display_name``
``boards``         ``id``, ``user_id`` → users, ``name``, ``description``
``pins``           ``id``, ``board_id`` → boards, ``title``, ``description``, ``link``
``user_follows``   ``id``, ``follower_id`` → users, ``followee_id`` → users
``board_follows``  ``id``, ``user_id`` → users, ``board_id`` → boards
=================  ===========================================================

A source is named by a URL, ``mysql://USER:PASSWORD@HOST:PORT/DATABASE``.

>>> rows(connect(url), "boards", 1, 500)[0]
{'id': 1, 'user_id': 7, 'name': 'Recipes', 'description': ''}
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import MySQLdb
import MySQLdb.cursors

from legacy.errors import LegacyError


@dataclass(frozen=True)
class Kind:
    """One legacy table: its columns (``id`` first) and its references, ``(kind, column)``."""

    name: str
    columns: tuple[str, ...]
    refers: tuple[tuple[str, str], ...] = ()


KINDS = (
    Kind("users", ("id", "username", "display_name")),
    Kind("boards", ("id", "user_id", "name", "description"), (("users", "user_id"),)),
    Kind("pins", ("id", "board_id", "title", "description", "link"), (("boards", "board_id"),)),
    Kind("user_follows", ("id", "follower_id", "followee_id"),
         (("users", "follower_id"), ("users", "followee_id"))),
    Kind("board_follows", ("id", "user_id", "board_id"),
         (("users", "user_id"), ("boards", "board_id"))),
)
"""In the order a pass copies them: every kind after those it refers to."""
BY_NAME = {kind.name: kind for kind in KINDS}
SCHEMA = """
CREATE TABLE users (id BIGINT PRIMARY KEY AUTO_INCREMENT, username VARCHAR(150) UNIQUE NOT NULL,
                    display_name VARCHAR(100) NOT NULL DEFAULT '');
CREATE TABLE boards (id BIGINT PRIMARY KEY AUTO_INCREMENT, user_id BIGINT NOT NULL,
                     name VARCHAR(100) NOT NULL, description TEXT NOT NULL,
                     FOREIGN KEY (user_id) REFERENCES users(id));
CREATE TABLE pins (id BIGINT PRIMARY KEY AUTO_INCREMENT, board_id BIGINT NOT NULL,
                   title VARCHAR(100) NOT NULL, description TEXT NOT NULL,
                   link VARCHAR(500) NOT NULL DEFAULT '',
                   FOREIGN KEY (board_id) REFERENCES boards(id));
CREATE TABLE user_follows (id BIGINT PRIMARY KEY AUTO_INCREMENT, follower_id BIGINT NOT NULL,
                           followee_id BIGINT NOT NULL,
                           FOREIGN KEY (follower_id) REFERENCES users(id),
                           FOREIGN KEY (followee_id) REFERENCES users(id));
CREATE TABLE board_follows (id BIGINT PRIMARY KEY AUTO_INCREMENT, user_id BIGINT NOT NULL,
                            board_id BIGINT NOT NULL, FOREIGN KEY (user_id) REFERENCES users(id),
                            FOREIGN KEY (board_id) REFERENCES boards(id));
"""
"""The expected tables as MariaDB DDL (a site can offer them as views, too); the tests and the
bench build their legacy sites with it."""
Row = dict[str, Any]


def key(url: str) -> str:
    """What names a legacy site in the ID map: ``HOST:PORT/DATABASE`` (no credentials)."""
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port or 3306}/{parts.path.strip('/')}"


def connect(url: str) -> Any:
    """A connection to the legacy database named by ``url``."""
    parts = urlsplit(url)
    if parts.scheme != "mysql" or not parts.hostname or not parts.path.strip("/"):
        raise LegacyError(f"expected mysql://USER:PASSWORD@HOST:PORT/DATABASE, got {url!r}")
    try:
        return MySQLdb.connect(host=parts.hostname, port=parts.port or 3306,
                               user=unquote(parts.username or ""),
                               password=unquote(parts.password or ""),
                               database=parts.path.strip("/"), charset="utf8mb4",
                               connect_timeout=5, autocommit=True,
                               cursorclass=MySQLdb.cursors.DictCursor)
    except MySQLdb.Error as exc:
        raise LegacyError(f"cannot reach the legacy database: {exc}") from exc


def id_bounds(connection: Any, kind: str) -> tuple[int, int] | None:
    """The lowest and highest ID of ``kind``'s table (None when it is empty)."""
    found = _query(connection, f"SELECT MIN(id) AS low, MAX(id) AS high FROM {_table(kind)}")
    low, high = found[0]["low"], found[0]["high"]
    return None if low is None else (int(low), int(high))


def count(connection: Any, kind: str) -> int:
    return int(_query(connection, f"SELECT COUNT(*) AS n FROM {_table(kind)}")[0]["n"])


def rows(connection: Any, kind: str, first_id: int, last_id: int) -> list[Row]:
    """``kind``'s rows with IDs ``first_id..last_id``, by ID."""
    columns = ", ".join(BY_NAME[kind].columns)
    return _query(connection, f"SELECT {columns} FROM {_table(kind)} WHERE id BETWEEN %s AND %s "
                              "ORDER BY id", [first_id, last_id])


def fingerprint(kind: str, row: Row) -> str:
    """What a row says, as a digest: a copy is current while its fingerprint is. A user
    without a display name shows their username, in pinsite as here."""
    if kind == "users" and not row.get("display_name"):
        row = {**row, "display_name": row["username"]}
    values = [str(row[column] if row[column] is not None else "")
              for column in BY_NAME[kind].columns[1:]]
    return hashlib.sha1("\x1f".join(values).encode()).hexdigest()


def _table(kind: str) -> str:
    if kind not in BY_NAME:
        raise LegacyError(f"unknown legacy table {kind!r}")
    return f"`{kind}`"


def _query(connection: Any, sql: str, args: list[Any] | None = None) -> list[Row]:
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, args)
            return list(cursor.fetchall())
    except MySQLdb.Error as exc:
        raise LegacyError(f"the legacy database failed: {exc}") from exc
