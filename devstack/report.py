"""Human-readable output: the status table and failure reports."""

from __future__ import annotations

from typing import Any

from devstack.errors import StartError

COLUMNS = ("SERVICE", "KIND", "ROLE", "PORT", "PID", "HEALTHY", "REPLICATION")


def status_table(rows: list[dict[str, Any]]) -> str:
    """Format ``Stack.status()`` rows as an aligned text table."""
    cells = [COLUMNS] + [
        (row["name"], row["kind"], row["role"], str(row["port"]), str(row["pid"] or "-"),
         "yes" if row["healthy"] else "no", replication_text(row))
        for row in rows
    ]
    widths = [max(len(line[index]) for line in cells) for index in range(len(COLUMNS))]
    return "\n".join(_row(line, widths) for line in cells)


def _row(cells: tuple[str, ...], widths: list[int]) -> str:
    return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()


def replication_text(row: dict[str, Any]) -> str:
    """A short summary of a replica's state (``-`` for non-replicas)."""
    state = row.get("replication")
    if row["role"] == "fenced":
        return "old master, writes refused: `reclone` makes it a replica"
    if row["role"] != "replica" or not row["healthy"]:
        return "-"
    if not state:
        return "unknown"
    if "error" in state:
        return f"error: {state['error']}"
    if "io_running" in state:
        text = (f"io={state['io_running']} sql={state['sql_running']} "
                f"behind={_or_dash(state['seconds_behind_master'])}")
        return text + (f" error={state['last_error']}" if state["last_error"] else "")
    if "master_link_status" in state:
        return f"link={state['master_link_status']} lag={_or_dash(state['lag'])}s"
    return "not configured"


def failure_text(error: BaseException) -> str:
    """The one-line message of a failure, followed by its log tail if it has one."""
    if isinstance(error, StartError) and error.log_tail:
        return f"{error}\n{error.log_tail}"
    return str(error)


def _or_dash(value: object) -> str:
    return "-" if value is None else str(value)
