"""Request parsers with size caps, checked on ``Content-Length`` before anything is read.

JSON bodies of this API are small (a board name, a pin's text); image uploads may be as large
as the content domain allows (``PINSITE_CONTENT["MAX_IMAGE_BYTES"]``) plus room for the form's
text fields. Bigger requests get a 413 without being read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from rest_framework.parsers import JSONParser, MultiPartParser

from pins.conf import content_settings
from pinsite.api.exceptions import PayloadTooLarge

JSON_LIMIT = 64 * 1024
FORM_ALLOWANCE = 256 * 1024


def _check_length(parser_context: Mapping[str, Any] | None, limit: int, message: str) -> None:
    request = (parser_context or {}).get("request")
    raw = request.META.get("CONTENT_LENGTH") if request is not None else None
    try:
        length = int(raw or 0)
    except ValueError:
        length = 0
    if length > limit:
        raise PayloadTooLarge(message)


class BoundedJSONParser(JSONParser):
    """JSON bodies up to :data:`JSON_LIMIT` bytes."""

    def parse(self, stream: IO[Any], media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:
        _check_length(parser_context, JSON_LIMIT,
                      f"The JSON body is larger than {JSON_LIMIT // 1024} KiB.")
        return super().parse(stream, media_type, parser_context)


class ImageUploadParser(MultiPartParser):
    """Multipart forms carrying one image of at most the domain's image size."""

    def parse(self, stream: IO[Any], media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:
        image_limit = int(content_settings.MAX_IMAGE_BYTES)
        _check_length(parser_context, image_limit + FORM_ALLOWANCE,
                      f"The upload is larger than the {image_limit / 2**20:g} MB image limit.")
        return super().parse(stream, media_type, parser_context)
