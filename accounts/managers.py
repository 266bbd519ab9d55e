"""The accounts' manager on pinners, the Django-shaped front over :mod:`accounts.exports`.

``pinner.exports`` is the pinner's data export: ask for one, see the latest, open a ready one
to download. Each method is one call of :mod:`accounts.exports`.

>>> me.exports.request().export.state
'preparing'
>>> me.exports.current().state             # once a queue worker built it
'ready'
>>> me.exports.open(export_id).filename
'pinsite-data-2025-06-10.zip'
"""

from __future__ import annotations

from accounts import exports
from accounts.exports import OpenedExport, Requested
from accounts.models import DataExport
from pins.managers import by_pinner, contribute_to_pinners


class DataExports:
    """``pinner.exports``: the pinner's export of everything pinsite holds about them."""

    def __init__(self, owner_id: int) -> None:
        self.owner_id = owner_id

    def request(self) -> Requested:
        """Ask for an export; the one being prepared already, if there is one."""
        return exports.request_export(self.owner_id)

    def current(self) -> DataExport | None:
        """The latest export, or ``None`` (none asked for, or expired and so deleted)."""
        return exports.current_export(self.owner_id)

    def open(self, export_id: int | str) -> OpenedExport:
        """A ready export of the pinner's, open to download, or
        :class:`~accounts.exceptions.ExportNotFound`."""
        return exports.open_export(self.owner_id, export_id)


contribute_to_pinners("exports", by_pinner(DataExports))
