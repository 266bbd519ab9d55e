"""A subset of HBase's filter language for scans (``TScan.filterString``).

Supported, combined with ``AND`` and parentheses: ``PrefixFilter('p')``, ``PageFilter(n)``,
``KeyOnlyFilter()``, ``FirstKeyOnlyFilter()``, ``ColumnPrefixFilter('p')``,
``MultipleColumnPrefixFilter('a', 'b')``, ``ColumnRangeFilter('min', true, 'max', false)`` and
``ColumnPaginationFilter(limit, offset)``. As in HBase's ``FilterList(MUST_PASS_ALL)``, column
filters run in order and each one sees only the columns the previous ones kept. Anything else
(``OR``, ``SKIP``, ``WHILE``, value comparisons) is refused with a clear error rather than
ignored, so that code relying on it fails in development as it would misbehave in production.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from devstack.hbase.errors import HBaseError
from devstack.hbase.row import ColumnCells

TOKEN = re.compile(r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>-?\d+)|(?P<word>[A-Za-z]\w*)"
                   r"|(?P<punct>[(),])|(?P<compare>[<>!]?=|[<>]))")
Arg = bytes | int | bool | str
ColumnStage = Callable[[list[ColumnCells]], list[ColumnCells]]


class FilterError(HBaseError):
    """The filter string is malformed or uses what the development server does not support."""


@dataclass
class RowFilter:
    """What a parsed filter string does to a scan."""

    row_prefixes: list[bytes] = field(default_factory=list)
    column_stages: list[ColumnStage] = field(default_factory=list)
    key_only: bool = False
    page_size: int | None = None

    def accepts_row(self, key: bytes) -> bool:
        return all(key.startswith(prefix) for prefix in self.row_prefixes)

    def columns(self, found: list[ColumnCells]) -> list[ColumnCells]:
        for stage in self.column_stages:
            found = stage(found)
        if self.key_only:
            found = [(name, [(cell[0], b"") for cell in cells]) for name, cells in found]
        return found


def parse_filter(text: str) -> RowFilter:
    """Parse a filter string into a :class:`RowFilter`."""
    tokens = _tokenize(text)
    result = RowFilter()
    position = _parse_and(tokens, 0, result)
    if position != len(tokens):
        raise FilterError(f"unexpected {tokens[position][1]!r} in filter {text!r}")
    return result


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = TOKEN.match(text, position)
        if match is None or match.lastgroup is None:
            raise FilterError(f"cannot parse filter {text!r} at character {position}")
        tokens.append((match.lastgroup, match.group(match.lastgroup)))
        position = match.end()
    return tokens


def _parse_and(tokens: list[tuple[str, str]], position: int, result: RowFilter) -> int:
    position = _parse_term(tokens, position, result)
    while position < len(tokens) and tokens[position][0] == "word":
        operator = tokens[position][1].upper()
        if operator != "AND":
            raise FilterError(f"filter operator {operator} is not supported by the HBase "
                              "development server (only AND)")
        position = _parse_term(tokens, position + 1, result)
    return position


def _parse_term(tokens: list[tuple[str, str]], position: int, result: RowFilter) -> int:
    kind, text = tokens[position] if position < len(tokens) else ("end", "")
    if text == "(":
        position = _parse_and(tokens, position + 1, result)
        return _expect(tokens, position, ")")
    if kind != "word":
        raise FilterError(f"expected a filter name, got {text or 'the end'!r}")
    position = _expect(tokens, position + 1, "(")
    args: list[Arg] = []
    while position < len(tokens) and tokens[position][1] != ")":
        args.append(_argument(tokens[position]))
        position += 1
        if position < len(tokens) and tokens[position][1] == ",":
            position += 1
    _add_filter(result, text, args)
    return _expect(tokens, position, ")")


def _expect(tokens: list[tuple[str, str]], position: int, text: str) -> int:
    if position >= len(tokens) or tokens[position][1] != text:
        raise FilterError(f"expected {text!r} in filter")
    return position + 1


def _argument(token: tuple[str, str]) -> Arg:
    kind, text = token
    if kind == "string":
        return text[1:-1].replace("''", "'").encode("latin-1")
    if kind == "number":
        return int(text)
    if kind == "word" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if kind == "compare":
        return text
    raise FilterError(f"unexpected filter argument {text!r}")


def _add_filter(result: RowFilter, name: str, args: list[Arg]) -> None:
    if name == "PrefixFilter":
        result.row_prefixes.append(_bytes(args, 0))
    elif name == "PageFilter":
        result.page_size = _int(args, 0)
    elif name == "KeyOnlyFilter":
        result.key_only = True
    elif name == "FirstKeyOnlyFilter":
        result.column_stages.append(lambda found: found[:1])
    elif name in COLUMN_FILTERS:
        result.column_stages.append(COLUMN_FILTERS[name](args))
    else:
        raise FilterError(f"{name} is not supported by the HBase development server (supported: "
                          f"{', '.join(SUPPORTED)})")


def _column_prefix(args: list[Arg]) -> ColumnStage:
    prefixes = tuple(_bytes(args, index) for index in range(len(args)))
    return lambda found: [item for item in found if _qualifier(item).startswith(prefixes)]


def _column_range(args: list[Arg]) -> ColumnStage:
    low, low_inclusive = _bytes(args, 0), _bool(args, 1)
    high, high_inclusive = _bytes(args, 2), _bool(args, 3)

    def keep(qualifier: bytes) -> bool:
        above = not low or qualifier > low or (low_inclusive and qualifier == low)
        below = not high or qualifier < high or (high_inclusive and qualifier == high)
        return above and below

    return lambda found: [item for item in found if keep(_qualifier(item))]


def _column_pagination(args: list[Arg]) -> ColumnStage:
    limit, offset = _int(args, 0), _int(args, 1)
    return lambda found: found[offset:offset + limit]


def _qualifier(item: ColumnCells) -> bytes:
    return item[0].partition(b":")[2]


def _bytes(args: list[Arg], index: int) -> bytes:
    value = args[index] if index < len(args) else None
    if not isinstance(value, bytes):
        raise FilterError(f"filter argument {index + 1} must be a quoted string")
    return value


def _bool(args: list[Arg], index: int) -> bool:
    value = args[index] if index < len(args) else None
    if not isinstance(value, bool):
        raise FilterError(f"filter argument {index + 1} must be true or false")
    return value


def _int(args: list[Arg], index: int) -> int:
    value = args[index] if index < len(args) else None
    if not isinstance(value, int) or isinstance(value, bool):
        raise FilterError(f"filter argument {index + 1} must be a number")
    return value


COLUMN_FILTERS: dict[str, Callable[[list[Arg]], ColumnStage]] = {
    "ColumnPrefixFilter": _column_prefix,
    "MultipleColumnPrefixFilter": _column_prefix,
    "ColumnRangeFilter": _column_range,
    "ColumnPaginationFilter": _column_pagination,
}
SUPPORTED = ("PrefixFilter", "PageFilter", "KeyOnlyFilter", "FirstKeyOnlyFilter",
             *COLUMN_FILTERS)
