"""The API's JSON parser, with a size and a nesting cap.

JSON bodies of this API are small (a board name, a pin's text): at most :data:`JSON_LIMIT`
bytes, nested at most :data:`JSON_MAX_DEPTH` arrays or objects deep (counted on the raw text
before it is decoded, so no body can exhaust the decoder's recursion). A bigger body gets a
413, a deeper one a 400. Image uploads are plain multipart forms: no body over
:func:`pinsite.serving.bodies.upload_limit` reaches a parser (:class:`~pinsite.serving.bodies.
BodyLimit` answers it first).
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from itertools import accumulate
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from pinsite.api.exceptions import PayloadTooLarge

JSON_LIMIT = 64 * 1024
JSON_MAX_DEPTH = 64

_ESCAPE = re.compile(rb"\\.", re.S)
_STRING = re.compile(rb'"[^"]*"')
_NOT_BRACKET = bytes(set(range(256)) - set(b"[]{}"))
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def json_depth(raw: bytes) -> int:
    """How deeply ``raw`` nests arrays and objects (brackets inside strings do not count)."""
    unescaped = _ESCAPE.sub(b"", raw)
    brackets = _STRING.sub(b"", unescaped).translate(None, _NOT_BRACKET)
    return max(accumulate(_STEP[byte] for byte in brackets), default=0)


class BoundedJSONParser(JSONParser):
    """JSON bodies up to :data:`JSON_LIMIT` bytes and :data:`JSON_MAX_DEPTH` levels."""

    def parse(self, stream: IO[Any], media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:
        raw = stream.read(JSON_LIMIT + 1)
        if len(raw) > JSON_LIMIT:
            raise PayloadTooLarge(f"The JSON body is larger than {JSON_LIMIT // 1024} KiB.")
        if json_depth(raw) > JSON_MAX_DEPTH:
            raise ParseError(f"JSON parse error - nested deeper than {JSON_MAX_DEPTH} levels.")
        return super().parse(io.BytesIO(raw), media_type, parser_context)
