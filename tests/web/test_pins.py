"""Pin pages: upload (validated, thumbnailed), show, repin, delete."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from pytest_django import Settings

from pins.actions import repin
from pins.exceptions import NotFound
from pins.models import Pinner
from pins.related import record_repin
from pins.selectors import get_pin, pins_of_board
from tests.web.helpers import new_board, new_pin, new_pinner, png_upload, text

Login = Callable[[Pinner], Client]


def pin_form(board_id: int, **fields: object) -> dict[str, object]:
    return {"board": str(board_id), "title": "Leek quiche", "description": "Crisp.",
            "link": "https://example.com/quiche", "image": png_upload(), **fields}


def test_without_a_board_the_pinner_is_sent_to_create_one(pinner: Pinner,
                                                          login: Login) -> None:
    client = login(pinner)
    response = client.get("/pin/new/")
    assert response["Location"] == "/board/new/"
    assert "Create a board first" in text(client.get("/board/new/"))


def test_the_board_in_the_query_is_preselected(pinner: Pinner, login: Login) -> None:
    new_board(pinner, "First")
    board = new_board(pinner, "Second")
    page = text(login(pinner).get(f"/pin/new/?board={board.id}"))
    assert f'<option value="{board.id}" selected>Second</option>' in page


def test_uploading_an_image_creates_a_pin_with_a_thumbnail(pinner: Pinner,
                                                           login: Login) -> None:
    board = new_board(pinner, "Quiche")
    client = login(pinner)
    response = client.post("/pin/new/", pin_form(board.id))
    pin = pins_of_board(board.id).items[0]
    assert response["Location"] == f"/pin/{pin.id}/"
    assert (pin.title, pin.width, pin.height) == ("Leek quiche", 60, 40)
    page = text(client.get(response["Location"]))
    assert pin.image_url in page and "Quiche" in page and "Pinned “Leek quiche”." in page
    assert f'href="/u/{pinner.username}/"' in page


def test_a_file_that_is_not_an_image_is_refused_on_the_form(pinner: Pinner,
                                                            login: Login) -> None:
    board = new_board(pinner)
    fake = SimpleUploadedFile("pin.png", b"not an image at all", content_type="image/png")
    page = text(login(pinner).post("/pin/new/", pin_form(board.id, image=fake)))
    assert "The file is not a JPEG, PNG, GIF or WebP image." in page
    assert pins_of_board(board.id).items == []


def test_an_image_over_the_size_limit_is_refused(pinner: Pinner, login: Login,
                                                 settings: Settings) -> None:
    settings.PINSITE_CONTENT = {**settings.PINSITE_CONTENT, "MAX_IMAGE_BYTES": 100}
    board = new_board(pinner)
    page = text(login(pinner).post("/pin/new/", pin_form(board.id)))
    assert "The image is larger than" in page


def test_missing_fields_and_a_bad_link_show_their_errors(pinner: Pinner,
                                                         login: Login) -> None:
    board = new_board(pinner)
    client = login(pinner)
    page = text(client.post("/pin/new/", {"board": str(board.id), "title": ""}))
    assert len(re.findall("This field is required.", page)) == 2
    page = text(client.post("/pin/new/", pin_form(board.id, link="ftp://example.com/x")))
    assert "is not a valid http or https URL" in page


def test_pinning_to_someone_elses_board_is_refused(pinner: Pinner, other: Pinner,
                                                   login: Login) -> None:
    new_board(pinner)
    foreign = new_board(other)
    page = text(login(pinner).post("/pin/new/", pin_form(foreign.id)))
    assert "Select a valid choice." in page
    assert pins_of_board(foreign.id).items == []


def test_the_pin_page_offers_a_repin_to_the_viewers_boards(pinner: Pinner, other: Pinner,
                                                           login: Login) -> None:
    pin = new_pin(other, new_board(other))
    mine = new_board(pinner, "My saves")
    page = text(login(pinner).get(f"/pin/{pin.id}/"))
    assert f'<option value="{mine.id}">My saves</option>' in page
    assert "Delete pin" not in page


def test_repinning_saves_the_pin_to_the_chosen_board(pinner: Pinner, other: Pinner,
                                                     login: Login) -> None:
    source = new_pin(other, new_board(other), "Asparagus tart")
    mine = new_board(pinner)
    client = login(pinner)
    response = client.post(f"/pin/{source.id}/repin/", {"board": str(mine.id)})
    saved = pins_of_board(mine.id).items[0]
    assert response["Location"] == f"/pin/{saved.id}/"
    assert (saved.source_pin_id, saved.image) == (source.id, source.image)
    page = text(client.get(response["Location"]))
    assert "Repinned from" in page and f'href="/pin/{source.id}/"' in page
    assert "<dt>Repins</dt><dd>1</dd>" in text(client.get(f"/pin/{source.id}/"))


def test_repinning_to_someone_elses_board_is_a_400(pinner: Pinner, other: Pinner,
                                                   login: Login) -> None:
    source = new_pin(other, new_board(other))
    new_board(pinner)
    response = login(pinner).post(f"/pin/{source.id}/repin/", {"board": str(source.board_id)})
    assert response.status_code == 400 and "Choose one of your boards" in text(response)


def test_anonymous_visitors_are_asked_to_log_in_to_repin(other: Pinner,
                                                         client: Client) -> None:
    pin = new_pin(other, new_board(other))
    assert "Log in to repin" in text(client.get(f"/pin/{pin.id}/"))
    assert client.post(f"/pin/{pin.id}/repin/")["Location"].startswith("/login/")


def test_deleting_a_pin_asks_first_then_deletes_it(pinner: Pinner, login: Login) -> None:
    pin = new_pin(pinner, new_board(pinner), "Burnt one")
    client = login(pinner)
    assert "Delete the pin “Burnt one”?" in text(client.get(f"/pin/{pin.id}/delete/"))
    assert get_pin(pin.id) == pin
    response = client.post(f"/pin/{pin.id}/delete/")
    assert response["Location"] == f"/board/{pin.board_id}/"
    try:
        get_pin(pin.id)
    except NotFound:
        pass
    else:
        raise AssertionError("the pin is still there")
    assert client.get(f"/pin/{pin.id}/").status_code == 404


def test_deleting_someone_elses_pin_is_the_403_page(pinner: Pinner, other: Pinner,
                                                    login: Login) -> None:
    pin = new_pin(other, new_board(other))
    client = login(pinner)
    for response in (client.get(f"/pin/{pin.id}/delete/"), client.post(f"/pin/{pin.id}/delete/")):
        assert response.status_code == 403
        assert "Only the pinner who made this pin can delete it." in text(response)
    assert get_pin(pin.id) == pin


def test_deleting_needs_a_login(other: Pinner, client: Client) -> None:
    pin = new_pin(other, new_board(other))
    assert client.post(f"/pin/{pin.id}/delete/")["Location"].startswith("/login/")
    assert get_pin(pin.id) == pin


def test_malformed_and_wrong_type_pin_ids_are_the_400_page(pinner: Pinner,
                                                           login: Login) -> None:
    board = new_board(pinner)
    client = login(pinner)
    for url in ["/pin/1/", f"/pin/{board.id}/", "/pin/123456789012345678901234567890/",
                f"/pin/{board.id}/delete/", f"/pin/{board.id}/repin/"]:
        response = client.post(url) if url.endswith("repin/") else client.get(url)
        assert response.status_code == 400, url
        assert "is not a pin ID" in text(response), url


def test_what_is_no_pin_id_at_all_is_the_404_page(pinner: Pinner, login: Login) -> None:
    response = login(pinner).get("/pin/not-a-number/")
    assert response.status_code == 404 and "Not found" in text(response)


def test_the_pin_page_shows_more_like_this(pinner: Pinner, client: Client) -> None:
    board = new_board(pinner)
    quiche = new_pin(pinner, board, "Quiche")
    other = new_pinner()
    soup = new_pin(other, new_board(other), "Soup")
    record_repin(repin(pinner.user_id, soup.id, board.id).id)
    page = text(client.get(f"/pin/{soup.id}/"))
    assert "<h2>More like this</h2>" in page
    section = page.split("data-related", 1)[1].split("</section>", 1)[0]
    assert f'href="/pin/{quiche.id}/"' in section
