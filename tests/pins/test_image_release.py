"""Image files go when no pin shares them any more; repins share their source's files."""

from __future__ import annotations

from pathlib import Path

import dramatiq
from django.conf import settings

from pins.actions import delete_pin, repin
from pins.actions.pins import release_image
from pins.events import IMAGE_RELEASED, PIN_DELETED
from pins.selectors import get_pin
from pins.types import IMAGE_HAS_PINS
from sharding import mappings, objects
from tests.events.helpers import recorded
from tests.pins.helpers import new_board, new_pin, new_pinner
from tests.polling import wait_until


def _files(pin_id: int) -> list[Path]:
    pin = get_pin(pin_id)
    return [Path(settings.MEDIA_ROOT) / pin.image, Path(settings.MEDIA_ROOT) / pin.thumbnail]


def _sharing(image_pin: int) -> list[int]:
    return [entry.to_id for entry in mappings.iterate(IMAGE_HAS_PINS, image_pin)]


def test_a_deleted_pins_files_go_once_no_repin_shares_them(worker: dramatiq.Worker) -> None:
    alice, bob, carol = new_pinner(), new_pinner(), new_pinner()
    original = new_pin(alice.user_id, new_board(alice.user_id).id)
    files = _files(original.id)
    copy = repin(bob.user_id, original.id, new_board(bob.user_id).id)
    copy_of_copy = repin(carol.user_id, copy.id, new_board(carol.user_id).id)

    delete_pin(alice.user_id, original.id)
    delete_pin(bob.user_id, copy.id)
    assert wait_until(lambda: _sharing(original.id) == [copy_of_copy.id])  # both released
    assert all(path.exists() for path in files)  # carol's repin still shows them

    delete_pin(carol.user_id, copy_of_copy.id)
    assert wait_until(lambda: not any(path.exists() for path in files), timeout=30)


def test_releasing_an_image_twice_is_harmless() -> None:
    owner = new_pinner()
    pin = new_pin(owner.user_id, new_board(owner.user_id).id)
    files = _files(pin.id)
    data = objects.get(pin.id)
    assert data is not None
    objects.delete(pin.id)
    assert release_image(pin.id, data["image"], data["thumbnail"])
    assert release_image(pin.id, data["image"], data["thumbnail"])
    assert not any(path.exists() for path in files)


def test_files_of_pins_made_before_images_were_tracked_are_kept(
        worker: dramatiq.Worker) -> None:
    owner = new_pinner()
    pin = new_pin(owner.user_id, new_board(owner.user_id).id)
    files = _files(pin.id)
    data = objects.get(pin.id)
    assert data is not None
    data.pop("image_of")
    objects.update(pin.id, data)
    with recorded(PIN_DELETED) as deleted, recorded(IMAGE_RELEASED) as released:
        delete_pin(owner.user_id, pin.id)
    assert [payload["pin_id"] for payload in deleted] == [pin.id]  # the deletion was announced
    assert released == []  # in the same commit, no release of its files
    assert objects.get(pin.id) is None
    assert all(path.exists() for path in files)
