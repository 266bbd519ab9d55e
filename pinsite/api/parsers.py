"""Request parsers with size caps, checked on ``Content-Length`` before anything is read.

JSON bodies of this API are small (a board name, a pin's text): at most :data:`JSON_LIMIT`
bytes, nested at most :data:`JSON_MAX_DEPTH` arrays or objects deep (counted on the raw text
before it is decoded, so no body can exhaust the decoder's recursion). Image uploads may be as
large as :func:`pinsite.serving.bodies.upload_limit`, the rule the web UI shares. Bigger
requests get a 413 without being read; deeper ones a 400.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import accumulate
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.utils import json

from pinsite.api.exceptions import PayloadTooLarge
from pinsite.serving.bodies import declared_length, too_large_message, upload_limit

JSON_LIMIT = 64 * 1024
JSON_MAX_DEPTH = 64

_ESCAPE = re.compile(rb"\\.", re.S)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKET = bytes(set(range(256)) - set(b"[]{}"))
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def _check_length(parser_context: Mapping[str, Any] | None, limit: int, message: str) -> None:
    request = (parser_context or {}).get("request")
    if request is not None and declared_length(request.META) > limit:
        raise PayloadTooLarge(message)


def json_depth(raw: bytes) -> int:
    """How deeply ``raw`` nests arrays and objects (brackets inside strings do not count)."""
    unescaped = _ESCAPE.sub(b"", raw)
    brackets = _STRING.sub(b"", unescaped).translate(None, _NOT_BRACKET)
    return max(accumulate(_STEP[byte] for byte in brackets), default=0)


class BoundedJSONParser(JSONParser):
    """JSON bodies up to :data:`JSON_LIMIT` bytes and :data:`JSON_MAX_DEPTH` levels."""

    def parse(self, stream: IO[Any], media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:
        _check_length(parser_context, JSON_LIMIT,
                      f"The JSON body is larger than {JSON_LIMIT // 1024} KiB.")
        raw = stream.read(JSON_LIMIT + 1) if stream is not None else b""
        if len(raw) > JSON_LIMIT:
            raise PayloadTooLarge(f"The JSON body is larger than {JSON_LIMIT // 1024} KiB.")
        if json_depth(raw) > JSON_MAX_DEPTH:
            raise ParseError(f"JSON parse error - nested deeper than {JSON_MAX_DEPTH} levels.")
        encoding = (parser_context or {}).get("encoding") or "utf-8"
        try:
            text = raw.decode(encoding)
            return json.loads(text, parse_constant=json.strict_constant if self.strict else None)
        except (ValueError, RecursionError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc


class ImageUploadParser(MultiPartParser):
    """Multipart forms carrying one image of at most the domain's image size."""

    def parse(self, stream: IO[Any], media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:
        _check_length(parser_context, upload_limit(), too_large_message())
        return super().parse(stream, media_type, parser_context)
