"""The picture storage: Django's file system storage, its URLs and new files made cheaply,
with the same outcome as Django's own ways."""

from __future__ import annotations

import random
from pathlib import Path

from django.core.files.storage import FileSystemStorage

from pins.storage import PictureStorage

ALPHABET = "ab9_.-/%#?é~ "


def _storages(root: Path) -> tuple[PictureStorage, FileSystemStorage]:
    return (PictureStorage(location=root, base_url="/media/"),
            FileSystemStorage(location=root, base_url="/media/"))


def test_urls_are_djangos_for_any_name(tmp_path: Path) -> None:
    ours, django = _storages(tmp_path)
    rng = random.Random(25)
    names = ["pins/00042/ab/ab12.jpg", "a/.hidden", "./x", "x//y", "é.png", "a b.gif"] + [
        "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    for name in names:
        assert ours.url(name) == django.url(name), name


def test_a_new_file_is_written_under_its_name(tmp_path: Path) -> None:
    ours, _ = _storages(tmp_path)
    name = ours.save_new("pins/00007/5f/5f0c.jpg", b"picture")
    assert name == "pins/00007/5f/5f0c.jpg"
    assert (tmp_path / name).read_bytes() == b"picture"


def test_a_taken_name_gets_a_free_one_as_django_finds_it(tmp_path: Path) -> None:
    ours, _ = _storages(tmp_path)
    first = ours.save_new("pins/00007/5f/5f0c.jpg", b"first")
    second = ours.save_new("pins/00007/5f/5f0c.jpg", b"second")
    assert second != first and second.startswith("pins/00007/5f/5f0c_")
    assert (tmp_path / first).read_bytes() == b"first"
    assert (tmp_path / second).read_bytes() == b"second"


def test_a_name_that_is_not_plain_is_saved_as_django_saves_it(tmp_path: Path) -> None:
    ours, _ = _storages(tmp_path)
    name = ours.save_new("pins/a b?.jpg", b"odd")
    assert (tmp_path / name).read_bytes() == b"odd"
    assert ours.exists(name)
