"""What a data export's zip holds, entry by entry, for a pinner with boards, pins with images,
a repin, follows both ways, an unfollowed board and interests (built on the real stack by the
export actor's action; the queue's part is in ``test_export_lifecycle.py``)."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings

from accounts.records import README
from tests.accounts.helpers import (
    Everything,
    entries,
    new_pinner,
    pinner_with_everything,
    zip_of,
)


@dataclass(frozen=True)
class Exported:
    account: Everything
    archive: zipfile.ZipFile
    media: Path


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    """One pinner with everything, and the zip of their export (made once for the module)."""
    root = tmp_path_factory.mktemp("export")
    accounts = {**settings.PINSITE_ACCOUNTS, "EXPORT_ROOT": str(root / "exports")}
    with override_settings(MEDIA_ROOT=root / "media", PINSITE_ACCOUNTS=accounts):
        account = pinner_with_everything()
        return Exported(account, zip_of(account.pinner.user_id), root / "media")


def _ids(records: list[dict[str, object]], key: str = "id") -> list[str]:
    return [str(record[key]) for record in records]


def test_the_zip_holds_exactly_the_described_files(exported: Exported) -> None:
    images = {f"images/{pin.id}{Path(pin.image).suffix}" for pin in exported.account.pins}
    assert set(exported.archive.namelist()) == {
        "README.txt", "profile.json", "boards.json", "pins.json", "following.json",
        "followers.json", "boards_followed.json", "boards_unfollowed.json", "interests.json",
        *images}
    assert exported.archive.testzip() is None


def test_the_readme_describes_every_file(exported: Exported) -> None:
    readme = exported.archive.read("README.txt").decode()
    assert readme == README
    for name in exported.archive.namelist():
        if name.endswith(".json"):
            assert f"\n{name}\n" in readme, name
    assert "\nimages/<pin id>.<ext>\n" in readme


def test_the_profile_holds_the_account(exported: Exported) -> None:
    pinner = exported.account.pinner
    profile = entries(exported.archive, "profile.json")
    assert profile["id"] == str(pinner.user_id) and profile["username"] == pinner.username
    assert profile["display_name"] == "Ada Lovelace"
    assert profile["email"] == "ada@example.com"
    assert profile["created"] and profile["signed_up"] and profile["exported"]


def test_the_boards_are_listed_newest_first(exported: Exported) -> None:
    boards = entries(exported.archive, "boards.json")
    assert _ids(boards) == [str(board.id) for board in exported.account.boards]
    tarts = boards[1]
    assert (tarts["name"], tarts["description"], tarts["interest"]) == \
        ("Tarts", "Savoury and sweet.", "food-and-drink")
    assert tarts["created"] == exported.account.boards[1].created.isoformat()


def test_each_pin_names_its_board_text_time_and_image(exported: Exported) -> None:
    pins = entries(exported.archive, "pins.json")
    saved, lake, quiche = exported.account.pins
    assert _ids(pins) == [str(saved.id), str(lake.id), str(quiche.id)]
    record = pins[2]
    assert record == {
        "id": str(quiche.id), "board_id": str(quiche.board_id), "board": "Tarts",
        "title": "Leek quiche", "description": "Crisp pastry.",
        "link": "https://example.com/quiche", "created": quiche.created.isoformat(),
        "interest": "food-and-drink", "repin_of": None, "width": 41, "height": 29,
        "image": f"images/{quiche.id}.png"}
    assert pins[1]["board"] == "Trips" and pins[1]["image"] == f"images/{lake.id}.jpg"
    assert pins[0]["repin_of"] == str(saved.source_pin_id)
    assert pins[0]["title"] == "Saved from Idol"


def test_the_images_are_the_original_bytes_stored_as_they_are(exported: Exported) -> None:
    for record in entries(exported.archive, "pins.json"):
        pin_id = int(record["id"])
        info = exported.archive.getinfo(record["image"])
        assert info.compress_type == zipfile.ZIP_STORED
        data = exported.archive.read(record["image"])
        assert data == exported.account.uploads[pin_id]
        original = next(pin for pin in exported.account.pins if pin.id == pin_id).image
        assert data == (exported.media / original).read_bytes()


def test_following_lists_whole_pinners_and_those_followed_through_a_board(
        exported: Exported) -> None:
    account = exported.account
    assert account.idol is not None and account.crafter is not None
    following = {record["username"]: record for record in
                 entries(exported.archive, "following.json")}
    assert set(following) == {account.idol.username, account.crafter.username}
    assert following[account.idol.username]["explicit"] is True
    assert following[account.idol.username]["user_id"] == str(account.idol.user_id)
    assert following[account.crafter.username]["explicit"] is False
    assert all(record["since"] for record in following.values())


def test_followers_list_who_follows_the_pinner_or_one_of_their_boards(
        exported: Exported) -> None:
    account = exported.account
    assert account.fan is not None and account.board_fan is not None
    followers = {record["username"]: record["explicit"] for record in
                 entries(exported.archive, "followers.json")}
    assert followers == {account.fan.username: True, account.board_fan.username: False}


def test_boards_followed_one_by_one_and_unfollowed_are_listed(exported: Exported) -> None:
    account = exported.account
    assert account.followed_board is not None and account.unfollowed_board is not None
    assert account.crafter is not None and account.idol is not None
    [followed] = entries(exported.archive, "boards_followed.json")
    assert followed["board_id"] == str(account.followed_board.id)
    assert (followed["board"], followed["owner_id"], followed["owner"]) == \
        ("Crafts", str(account.crafter.user_id), account.crafter.username)
    [unfollowed] = entries(exported.archive, "boards_unfollowed.json")
    assert unfollowed["board_id"] == str(account.unfollowed_board.id)
    assert (unfollowed["board"], unfollowed["owner"]) == ("Other", account.idol.username)


def test_the_interests_followed_are_listed(exported: Exported) -> None:
    assert entries(exported.archive, "interests.json") == [
        {"slug": "art", "name": "Art"}, {"slug": "travel", "name": "Travel"}]


def test_a_pinner_with_nothing_gets_empty_lists() -> None:
    archive = zip_of(new_pinner().user_id)
    for name in ("boards.json", "pins.json", "following.json", "followers.json",
                 "boards_followed.json", "boards_unfollowed.json", "interests.json"):
        assert entries(archive, name) == [], name
    assert not [name for name in archive.namelist() if name.startswith("images/")]
