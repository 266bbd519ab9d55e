"""The pinner's data export on the account page: ask for one (POST), download a ready one.

The page itself (``/account/``, :func:`pinsite.web.accounts.account`) shows the export's
state and the download link; a download of anything but a ready export of one's own (someone
else's, an expired one) is the 404 page.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET, require_POST

from pinsite.web.acting import require_pinner
from pinsite.web.errors import domain_errors


@require_POST
@login_required
@domain_errors
def request_export(request: HttpRequest) -> HttpResponse:
    """Queue an export of everything pinsite holds about the pinner (or keep the one being
    prepared), then back to the account page, which shows its state."""
    requested = require_pinner(request).exports.request()
    if requested.created:
        messages.success(request, "Your data export is being prepared. Come back to this "
                                  "page in a little while to download it.")
    else:
        messages.info(request, "Your data export is already being prepared.")
    return redirect("account")


@require_GET
@login_required
@domain_errors
def download_export(request: HttpRequest, export_id: int) -> FileResponse:
    """The zip of one of the pinner's ready exports, streamed as an attachment."""
    opened = require_pinner(request).exports.open(export_id)
    return FileResponse(opened.file, as_attachment=True, filename=opened.filename,
                        content_type="application/zip")
