"""Pin images: validate an upload with Pillow, store the original and a thumbnail.

>>> stored = store_image(shard=3429, upload=request.FILES["image"])
>>> stored.image, stored.thumbnail, stored.width, stored.height
('pins/03429/5f/5f0c….jpg', 'pins/03429/5f/5f0c…_236.jpg', 1200, 800)

Files go to Django's default storage under ``pins/<shard>/``; names are random, so a failed
write can remove its own files without touching anyone else's. Images are immutable and shared
by repins, so deleting a pin leaves its files in place.
"""

from __future__ import annotations

import colorsys
import random
import secrets
import warnings
from dataclasses import dataclass, field
from io import BytesIO
from typing import IO, Any

from django.core.files.base import ContentFile, File
from django.core.files.storage import default_storage
from PIL import Image, ImageDraw, ImageOps, UnidentifiedImageError

from pins.conf import content_settings
from pins.exceptions import InvalidContent

ALLOWED_FORMATS = ("JPEG", "PNG", "GIF", "WEBP")
EXTENSIONS = {"JPEG": "jpg", "PNG": "png", "GIF": "gif", "WEBP": "webp"}
MAX_DEMO_SIDE = 4000
UPLOADED_HERE = 0
"""``image_of`` of a pin that uploaded its own image (a repin names the uploading pin)."""

ImageInput = bytes | File | IO[bytes]


@dataclass(frozen=True)
class ValidatedImage:
    """An upload that passed every check: its bytes, format and (upright) dimensions."""

    data: bytes
    format: str
    width: int
    height: int
    picture: Image.Image = field(repr=False, compare=False)


@dataclass(frozen=True)
class StoredImage:
    """Storage paths of an original and its thumbnail, and the original's dimensions."""

    image: str
    thumbnail: str
    width: int
    height: int


def validate_image(upload: ImageInput) -> ValidatedImage:
    """Check size, format, pixel count and integrity; raise :class:`InvalidContent` if bad."""
    data = _read_capped(upload, content_settings.number("MAX_IMAGE_BYTES"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            picture = _open_verified(data)
        except InvalidContent:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise _too_many_pixels() from exc
        except UnidentifiedImageError as exc:
            raise InvalidContent("The file is not a JPEG, PNG, GIF or WebP image.",
                                 field="image") from exc
        except (OSError, SyntaxError, ValueError, EOFError, IndexError) as exc:
            raise InvalidContent("The image is damaged or truncated.", field="image") from exc
    upright = ImageOps.exif_transpose(picture)
    return ValidatedImage(data=data, format=str(picture.format), width=upright.width,
                          height=upright.height, picture=upright)


def _read_capped(upload: ImageInput, limit: int) -> bytes:
    if isinstance(upload, bytes):
        data = upload
    else:
        if hasattr(upload, "seek"):
            upload.seek(0)
        data = upload.read(limit + 1)
    if len(data) > limit:
        raise InvalidContent(f"The image is larger than {limit // (1024 * 1024)} MB.",
                             field="image")
    if not data:
        raise InvalidContent("The image file is empty.", field="image")
    return data


def _open_verified(data: bytes) -> Image.Image:
    """Read the header (pixel cap), ``verify()`` the file, then reopen and decode it."""
    probe = Image.open(BytesIO(data), formats=ALLOWED_FORMATS)
    if probe.width * probe.height > content_settings.number("MAX_IMAGE_PIXELS"):
        raise _too_many_pixels()
    probe.verify()
    picture = Image.open(BytesIO(data), formats=ALLOWED_FORMATS)
    picture.load()
    return picture


def _too_many_pixels() -> InvalidContent:
    limit = content_settings.number("MAX_IMAGE_PIXELS")
    return InvalidContent(f"The image has more than {limit / 1_000_000:g} million pixels.",
                          field="image")


def make_thumbnail(picture: Image.Image, width: int) -> tuple[bytes, str]:
    """A thumbnail ``width`` wide (never enlarged), aspect kept: JPEG, or WebP when the
    image has transparency. Returns the bytes and the file extension."""
    transparent = picture.mode in ("RGBA", "LA", "PA") or "transparency" in picture.info
    frame = picture.convert("RGBA" if transparent else "RGB")
    if frame.width > width:
        height = max(1, round(frame.height * width / frame.width))
        frame = frame.resize((width, height), Image.Resampling.LANCZOS)
    out = BytesIO()
    if transparent:
        frame.save(out, "WEBP", quality=80, method=4)
        return out.getvalue(), "webp"
    frame.save(out, "JPEG", quality=85, optimize=True, progressive=True)
    return out.getvalue(), "jpg"


@dataclass(frozen=True)
class PreparedImage:
    """An upload validated and thumbnailed once, to be stored any number of times (a bulk
    import gives every pin its own files of one picture, encoded once)."""

    data: bytes
    extension: str
    width: int
    height: int
    thumbnail: bytes
    thumbnail_name: str  # the suffix after the token: ``_236.jpg``


def prepare_image(upload: ImageInput) -> PreparedImage:
    """Validate ``upload`` and make its thumbnail (see :func:`store_image`)."""
    checked = validate_image(upload)
    width = content_settings.number("THUMBNAIL_WIDTH")
    thumb_data, thumb_ext = make_thumbnail(checked.picture, width)
    return PreparedImage(checked.data, EXTENSIONS[checked.format], checked.width,
                         checked.height, thumb_data, f"_{width}.{thumb_ext}")


def store_image(shard: int, upload: ImageInput) -> StoredImage:
    """Validate ``upload`` and save it and its thumbnail under ``pins/<shard>/``."""
    return store_copies(shard, prepare_image(upload), 1)[0]


def store_copies(shard: int, prepared: PreparedImage, count: int) -> list[StoredImage]:
    """``count`` copies of a prepared picture and its thumbnail under ``pins/<shard>/``, each
    under a name of its own in one folder (the folder a random name's first two digits pick,
    as for one picture): a bulk write makes a folder a shard at most, not one a pin. If a
    copy fails, those saved are removed."""
    folder_digits = secrets.token_hex(1)
    folder = f"pins/{shard:05d}/{folder_digits}"
    stored: list[StoredImage] = []
    try:
        for _ in range(count):
            token = folder_digits + secrets.token_hex(15)
            original = _save_new(f"{folder}/{token}.{prepared.extension}", prepared.data)
            try:
                thumbnail = _save_new(f"{folder}/{token}{prepared.thumbnail_name}",
                                      prepared.thumbnail)
            except Exception:
                default_storage.delete(original)
                raise
            stored.append(StoredImage(original, thumbnail, prepared.width, prepared.height))
    except Exception:
        for copy in stored:
            delete_stored_image(copy)
        raise
    return stored


def _save_new(name: str, data: bytes) -> str:
    """A new file in the default storage (its cheaper way when it has one)."""
    save_new = getattr(default_storage, "save_new", None)
    return str(save_new(name, data)) if save_new else default_storage.save(name, ContentFile(data))


def delete_stored_image(stored: StoredImage) -> None:
    """Remove both files (undoing :func:`store_image` when the pin could not be saved)."""
    for name in (stored.image, stored.thumbnail):
        default_storage.delete(name)


def image_pin(pin_id: int, data: dict[str, Any]) -> int | None:
    """The pin that uploaded this pin's image (its ``image_has_pins`` list tracks who shares
    the files); ``None`` for pins made before images were tracked, whose files are kept."""
    image_of = data.get("image_of")
    if image_of == UPLOADED_HERE:
        return pin_id
    return None if image_of is None else int(image_of)


def generate_demo_image(seed: int, width: int, height: int) -> bytes:
    """A deterministic, colourful JPEG (gradient and shapes) drawn locally from ``seed``."""
    if not (1 <= width <= MAX_DEMO_SIDE and 1 <= height <= MAX_DEMO_SIDE):
        raise ValueError(f"demo image sides must be 1..{MAX_DEMO_SIDE}, got {width}x{height}")
    rng = random.Random(seed)
    hue = rng.random()
    picture = Image.new("RGB", (width, height))
    draw = ImageDraw.Draw(picture)
    _draw_gradient(draw, width, height, _colour(hue, 0.35, 0.95), _colour(hue + 0.1, 0.6, 0.7))
    for _ in range(rng.randint(6, 14)):
        _draw_shape(draw, rng, width, height, hue)
    out = BytesIO()
    picture.save(out, "JPEG", quality=85)
    return out.getvalue()


def _colour(hue: float, saturation: float, value: float) -> tuple[int, int, int]:
    red, green, blue = colorsys.hsv_to_rgb(hue % 1.0, saturation, value)
    return round(red * 255), round(green * 255), round(blue * 255)


def _draw_gradient(draw: ImageDraw.ImageDraw, width: int, height: int,
                   top: tuple[int, int, int], bottom: tuple[int, int, int]) -> None:
    for y in range(height):
        t = y / max(1, height - 1)
        colour = tuple(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True))
        draw.line([(0, y), (width, y)], fill=colour)


def _draw_shape(draw: ImageDraw.ImageDraw, rng: random.Random, width: int, height: int,
                hue: float) -> None:
    size = rng.uniform(0.1, 0.5) * min(width, height)
    x, y = rng.uniform(-size / 2, width), rng.uniform(-size / 2, height)
    box = (x, y, x + size, y + size * rng.uniform(0.6, 1.4))
    colour = _colour(hue + rng.uniform(-0.25, 0.25), rng.uniform(0.4, 0.9), rng.uniform(0.5, 1))
    kind = rng.choice(("ellipse", "rectangle", "triangle"))
    if kind == "ellipse":
        draw.ellipse(box, fill=colour)
    elif kind == "rectangle":
        draw.rounded_rectangle(box, radius=size / 8, fill=colour)
    else:
        draw.polygon([(box[0], box[3]), ((box[0] + box[2]) / 2, box[1]), (box[2], box[3])],
                     fill=colour)
