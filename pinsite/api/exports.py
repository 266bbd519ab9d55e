"""The requesting pinner's data export (``/me/export/``): ask for one zip of everything
pinsite holds about you, see whether it is ready, download it (``docs/api.md``).

>>> client.post("/api/v1/me/export/").status_code          # queued
202
>>> client.get("/api/v1/me/export/").json()["download_url"]  # once ready
'http://testserver/api/v1/me/export/17/download/'
"""

from __future__ import annotations

from typing import Any

from django.http import FileResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import DataExport
from pinsite.api.base import PinsiteView
from pinsite.api.fields import ObjectIdField
from pinsite.api.permissions import IsPinner

DETAILS: dict[str, str] = {
    DataExport.State.PREPARING: "Your data export is being prepared; ask again in a while.",
    DataExport.State.READY: "Your data export is ready: download it from download_url "
                            "before it expires.",
    DataExport.State.FAILED: "Your data export could not be prepared; POST again to retry.",
}


class ExportSerializer(serializers.Serializer[Any]):
    """A data export and where to download it."""

    id = ObjectIdField(read_only=True, help_text="The export's ID, as a decimal string.")
    state = serializers.ChoiceField(choices=DataExport.State.values, read_only=True)
    requested = serializers.DateTimeField(read_only=True)
    finished = serializers.DateTimeField(read_only=True, allow_null=True,
                                         help_text="When it became ready, or failed.")
    expires = serializers.DateTimeField(
        read_only=True, allow_null=True,
        help_text="When the zip and this record are deleted (null while preparing).")
    size = serializers.IntegerField(read_only=True, allow_null=True,
                                    help_text="Bytes of the zip, once ready.")
    download_url = serializers.SerializerMethodField(
        help_text="Where to download the zip (with your credentials), once ready; else null.")
    detail = serializers.SerializerMethodField()

    def get_download_url(self, export: DataExport) -> str | None:
        if export.state != DataExport.State.READY:
            return None
        return str(self.context["request"].build_absolute_uri(
            reverse("api-export-download", args=[export.pk])))

    def get_detail(self, export: DataExport) -> str:
        return DETAILS[export.state]


class ExportView(PinsiteView):
    """Your data export: one zip of your profile, boards, pins with their original images,
    follows both ways and interests, prepared in the background and kept for a limited
    time."""

    permission_classes = [IsPinner]

    @extend_schema(responses={200: ExportSerializer}, summary="Your latest data export")
    def get(self, request: Request) -> Response:
        """The state of your latest data export, with `download_url` once it is ready. A 404
        when you have none: never asked for, or expired and so deleted."""
        export = self.pinner().exports.current()
        if export is None:
            raise NotFound("You have no data export; POST to /api/v1/me/export/ to ask for "
                           "one.")
        return self.render(ExportSerializer, export)

    @extend_schema(request=None, responses={202: ExportSerializer},
                   summary="Ask for an export of your data")
    def post(self, request: Request) -> Response:
        """Queues an export of everything pinsite holds about you. While one is being
        prepared, asking again answers that one (202, the same `id`); once it is ready or
        failed, asking again replaces it with a new one (the old zip is deleted)."""
        requested = self.pinner().exports.request()
        location = request.build_absolute_uri(reverse("api-export"))
        return self.render(ExportSerializer, requested.export, status=202,
                           headers={"Location": location})


class IgnoreAccept(BaseContentNegotiation):
    """The view's first renderer whatever the client accepts: a download is a zip, and its
    errors are JSON, even for ``Accept: application/zip``."""

    def select_parser(self, request: Request, parsers: list[Any]) -> Any:
        return parsers[0]

    def select_renderer(self, request: Request, renderers: list[BaseRenderer],
                        format_suffix: str | None = None) -> tuple[BaseRenderer, str]:
        return renderers[0], str(renderers[0].media_type)


class ExportDownloadView(PinsiteView):
    """The zip of one of your data exports."""

    permission_classes = [IsPinner]
    content_negotiation_class = IgnoreAccept

    @extend_schema(
        parameters=[OpenApiParameter("export_id", str, OpenApiParameter.PATH,
                                     description="The export's `id` (`GET /me/export/`).")],
        responses={(200, "application/zip"): OpenApiResponse(
            OpenApiTypes.BINARY, description="The zip, as an attachment.")},
        summary="Download a data export")
    def get(self, request: Request, export_id: str) -> FileResponse:
        """Streams the zip of a ready export of yours. A 404 for any other: someone else's,
        one not ready, and one that expired (and so was deleted)."""
        opened = self.pinner().exports.open(export_id)
        return FileResponse(opened.file, as_attachment=True, filename=opened.filename,
                            content_type="application/zip")
