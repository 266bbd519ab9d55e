"""Image validation, thumbnails and demo pictures (Pillow and local storage only)."""

from __future__ import annotations

from io import BytesIO

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image
from pytest_django import Settings

from pins.exceptions import InvalidContent
from pins.images import (
    generate_demo_image,
    prepare_image,
    store_copies,
    store_image,
    validate_image,
)
from tests.pins.helpers import image_bytes


def _content(settings: Settings, **changes: int) -> None:
    settings.PINSITE_CONTENT = {**settings.PINSITE_CONTENT, **changes}


@pytest.mark.parametrize("image_format", ["JPEG", "PNG", "GIF", "WEBP"])
def test_each_allowed_format_validates_with_its_dimensions(image_format: str) -> None:
    checked = validate_image(image_bytes(64, 48, image_format))
    assert (checked.format, checked.width, checked.height) == (image_format, 64, 48)


def test_an_uploaded_file_object_validates_like_bytes() -> None:
    upload = ContentFile(image_bytes(10, 20), name="upload.png")
    assert validate_image(upload).height == 20


def test_bytes_that_are_no_image_are_rejected() -> None:
    with pytest.raises(InvalidContent, match="not a JPEG, PNG, GIF or WebP") as caught:
        validate_image(b"<html>definitely not a picture</html>")
    assert caught.value.field == "image"


def test_an_image_in_another_format_is_rejected() -> None:
    with pytest.raises(InvalidContent, match="not a JPEG, PNG, GIF or WebP"):
        validate_image(image_bytes(10, 10, "BMP"))


def test_an_empty_file_is_rejected() -> None:
    with pytest.raises(InvalidContent, match="empty"):
        validate_image(b"")


def test_a_truncated_image_is_rejected() -> None:
    data = image_bytes(300, 200, "JPEG")
    with pytest.raises(InvalidContent, match="damaged or truncated"):
        validate_image(data[: len(data) // 2])


def test_a_file_over_the_byte_cap_is_rejected(settings: Settings) -> None:
    _content(settings, MAX_IMAGE_BYTES=1024 * 1024)
    with pytest.raises(InvalidContent, match="larger than 1 MB"):
        validate_image(b"\x89PNG" + b"\0" * (1024 * 1024))


def test_an_image_over_the_pixel_cap_is_rejected(settings: Settings) -> None:
    _content(settings, MAX_IMAGE_PIXELS=1000)
    with pytest.raises(InvalidContent, match=r"more than 0\.001 million pixels"):
        validate_image(image_bytes(50, 50))


def test_a_decompression_bomb_is_rejected_from_its_header() -> None:
    bomb = BytesIO()
    Image.new("1", (8000, 8000)).save(bomb, "PNG")
    assert len(bomb.getvalue()) < 100_000
    with pytest.raises(InvalidContent, match="million pixels"):
        validate_image(bomb.getvalue())


def test_stored_image_keeps_the_original_and_a_thumbnail_of_the_configured_width() -> None:
    stored = store_image(7, image_bytes(944, 400, "JPEG"))
    assert stored.image.startswith("pins/00007/") and stored.image.endswith(".jpg")
    assert (stored.width, stored.height) == (944, 400)
    with default_storage.open(stored.thumbnail) as thumb, Image.open(thumb) as picture:
        assert (picture.format, picture.size) == ("JPEG", (236, 100))


def test_a_narrow_image_is_not_enlarged_for_its_thumbnail() -> None:
    stored = store_image(7, image_bytes(100, 80))
    with default_storage.open(stored.thumbnail) as thumb, Image.open(thumb) as picture:
        assert picture.size == (100, 80)


def test_a_transparent_image_gets_a_webp_thumbnail() -> None:
    stored = store_image(7, image_bytes(400, 400, "PNG", mode="RGBA"))
    with default_storage.open(stored.thumbnail) as thumb, Image.open(thumb) as picture:
        assert (picture.format, picture.mode) == ("WEBP", "RGBA")


def test_copies_of_one_picture_are_files_of_their_own_in_one_folder() -> None:
    prepared = prepare_image(image_bytes(400, 300))
    copies = store_copies(9, prepared, 3)
    names = [name for copy in copies for name in (copy.image, copy.thumbnail)]
    assert len(set(names)) == 6
    assert {name.rsplit("/", 1)[0] for name in names} == {copies[0].image.rsplit("/", 1)[0]}
    assert copies[0].image.startswith("pins/00009/")
    for copy in copies:
        with default_storage.open(copy.image) as original:
            assert original.read() == prepared.data
    default_storage.delete(copies[0].image)  # a pin deleted releases its own files only
    assert all(default_storage.exists(copy.image) for copy in copies[1:])


def test_a_copy_that_fails_takes_the_copies_saved_before_it_away(
        monkeypatch: pytest.MonkeyPatch) -> None:
    saved: list[str] = []
    save_new = default_storage.save_new  # type: ignore[attr-defined]  # PictureStorage's

    def third_fails(name: str, data: bytes) -> str:
        if len(saved) == 4:
            raise OSError("disk full")
        saved.append(save_new(name, data))
        return saved[-1]

    monkeypatch.setattr(default_storage, "save_new", third_fails)
    with pytest.raises(OSError, match="disk full"):
        store_copies(9, prepare_image(image_bytes(40, 30)), 3)
    assert len(saved) == 4 and not any(default_storage.exists(name) for name in saved)


def test_a_rejected_upload_stores_nothing() -> None:
    with pytest.raises(InvalidContent):
        store_image(7, b"not an image")
    assert not default_storage.exists("pins/00007")


def test_demo_images_are_deterministic_per_seed() -> None:
    assert generate_demo_image(5, 120, 90) == generate_demo_image(5, 120, 90)
    assert generate_demo_image(5, 120, 90) != generate_demo_image(6, 120, 90)


def test_a_demo_image_is_a_valid_jpeg_of_the_requested_size() -> None:
    checked = validate_image(generate_demo_image(1, 300, 450))
    assert (checked.format, checked.width, checked.height) == ("JPEG", 300, 450)


def test_demo_image_sizes_are_bounded() -> None:
    with pytest.raises(ValueError, match="demo image sides"):
        generate_demo_image(1, 0, 10)
