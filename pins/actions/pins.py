"""Pin writes. A pin lives on its board's shard, listed in ``board_has_pins`` and its
pinner's ``user_has_pins``; a repin is also listed in its source's ``pin_has_repins``. A pin
carries the interest its board had when it was made, and is listed under it in the sliced
``interest_has_pin`` (its row on the pin's own shard, :mod:`pins.interest_pins`).

The pin object, the mappings on its own shard and the domain events change in one
transaction; mappings on other shards (a repin's source) are recorded there as events too and
applied after the commit, or queued and retried until they succeed if that shard's host fails
(they are idempotent). Readers skip list entries whose object is gone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from events.mappings import write_after_commit
from events.publisher import publish_soon
from pins import events, interest_pins
from pins.domain import JSONObject, Pin, timestamp_text, timestamp_us
from pins.exceptions import ContentError, NotFound
from pins.images import (
    UPLOADED_HERE,
    ImageInput,
    StoredImage,
    delete_stored_image,
    image_pin,
    prepare_image,
    store_copies,
    store_image,
)
from pins.lookup import edit, load
from pins.permissions import owned_board, owned_pin
from pins.types import BOARD, BOARD_HAS_PINS, IMAGE_HAS_PINS, PIN, PIN_HAS_REPINS, USER_HAS_PINS
from pins.validation import clean_description, clean_link, clean_title
from sharding import mappings, objects
from sharding.hosts import atomic, atomic_on_host, by_host
from sharding.ids import shard_of, type_of
from sharding.mappings import MappingTable
from toolkit.clock import now_us

logger = logging.getLogger("pinsite.pins")

BOARD_DELETE_CHUNK = 500
SHARED_WITH_SOURCE = ("description", "link", "image", "thumbnail", "width", "height")

Edge = tuple[MappingTable, int, int]


@dataclass(frozen=True)
class NewPin:
    """One pin of :func:`create_pins`, made on ``board_id`` by the board's owner."""

    board_id: int
    title: str
    description: str = ""
    link: str = ""


def create_pin(pinner_id: int, board_id: int, title: str, description: str, link: str,
               image_file: ImageInput) -> Pin:
    """Pin an uploaded image to one of the pinner's own boards."""
    board_id, board = owned_board(pinner_id, board_id)
    text = _text(title, description, link, board)
    stored = store_image(shard_of(board_id), image_file)
    try:
        return _insert_pin(pinner_id, board_id,
                           {**text, **_image_fields(stored), "image_of": UPLOADED_HERE}, None)
    except BaseException:
        delete_stored_image(stored)
        raise


def create_pins(new: Sequence[NewPin], image_file: ImageInput) -> list[Pin | ContentError]:
    """Make many pins at once (an import), each on its board by the board's owner and each
    with its own files of one picture, validated and thumbnailed once. The boards are read in
    one query per host, and the pins of the shards of one host are written in one transaction
    there (objects, mappings, events), whose events go to the publisher thread once it
    commits, as the graph's writes hand theirs. Returns, in order, each pin or the
    :class:`ContentError` that refused it; a host that fails raises, and the pins of hosts
    written before it stay made."""
    prepared = prepare_image(image_file)
    boards = {board_id: data for board_id, data in
              objects.get_many(spec.board_id for spec in new).items()
              if type_of(board_id) is BOARD}
    results: list[Pin | ContentError | None] = [None] * len(new)
    by_shard: dict[int, list[tuple[int, JSONObject]]] = {}  # shard → (index, cleaned text)
    for index, spec in enumerate(new):
        board = boards.get(spec.board_id)
        if board is None:
            results[index] = NotFound(f"No {BOARD.name} {spec.board_id}.")
            continue
        try:
            text = _text(spec.title, spec.description, spec.link, board)
        except ContentError as exc:
            results[index] = exc
            continue
        by_shard.setdefault(shard_of(spec.board_id), []).append((index, text))
    for shards in by_host(by_shard).values():
        stored: dict[int, list[StoredImage]] = {}
        try:
            for shard in shards:
                stored[shard] = store_copies(shard, prepared, len(by_shard[shard]))
            for shard in shards:
                for index, _ in by_shard[shard]:
                    _prepare_interest(boards[new[index].board_id], shard)
            created: list[tuple[int, JSONObject]] = []
            made = {shard: [(index, *_pin_data(
                int(boards[new[index].board_id]["owner_id"]), new[index].board_id,
                {**text, **_image_fields(files), "image_of": UPLOADED_HERE}, None))
                for (index, text), files in zip(by_shard[shard], stored[shard], strict=True)]
                for shard in shards}
            with atomic_on_host(shards):
                ids = objects.create_on_host(PIN, {shard: [data for _, data, _ in made[shard]]
                                                   for shard in shards})
                for shard in shards:
                    _list_pins(shard, ids[shard], [(data, at) for _, data, at in made[shard]],
                               created)
                    for (index, data, _), pin_id in zip(made[shard], ids[shard], strict=True):
                        results[index] = Pin.from_json(pin_id, data)
                handed = events.pins_created(created, publish_on_commit=False)
        except BaseException:
            for files in stored.values():
                for one in files:
                    delete_stored_image(one)
            raise
        publish_soon(handed)
    return [result for result in results if result is not None]


def _text(title: str, description: str, link: str, board: JSONObject) -> JSONObject:
    return {"title": clean_title(title), "description": clean_description(description),
            "link": clean_link(link), "interest": board.get("interest")}


def repin(pinner_id: int, source_pin_id: int, board_id: int, title: str | None = None) -> Pin:
    """Save someone's (or one's own) pin to one of the pinner's boards; the repin shares the
    source's image, description and link, and records ``source_pin_id``."""
    source_id, source = load(source_pin_id, PIN)
    board_id, board = owned_board(pinner_id, board_id)
    fields = {key: source[key] for key in SHARED_WITH_SOURCE}
    fields["interest"] = board.get("interest")
    fields["title"] = source["title"] if title is None else clean_title(title)
    fields["image_of"] = image_pin(source_id, source)
    return _insert_pin(pinner_id, board_id, fields, source_id)


def update_pin(actor_id: int, pin_id: int, *, title: str | None = None,
               description: str | None = None, link: str | None = None) -> Pin:
    """Change a pin's title, description or link (its pinner only); ``None`` keeps a field."""
    pin_id, data = owned_pin(actor_id, pin_id)
    return Pin.from_json(pin_id, edit(pin_id, PIN, data, {
        "title": (title, clean_title), "description": (description, clean_description),
        "link": (link, clean_link)}))


def delete_pin(actor_id: int, pin_id: int) -> None:
    """Delete a pin and its mappings (its pinner only). A repin's source is untouched; the
    repins of a deleted pin stay, with their ``source_pin_id`` pointing at a missing pin."""
    pin_id, data = owned_pin(actor_id, pin_id)
    _delete_pins(shard_of(pin_id), {pin_id: data})


def delete_pins_of_board(board_id: int, owner_id: int) -> int:
    """Delete every pin of a board, one transaction per chunk; returns how many existed."""
    deleted, batch = 0, []
    for entry in mappings.iterate(BOARD_HAS_PINS, board_id, chunk=BOARD_DELETE_CHUNK):
        batch.append(entry.to_id)
        if len(batch) == BOARD_DELETE_CHUNK:
            deleted += _delete_batch(board_id, owner_id, batch)
            batch = []
    return deleted + (_delete_batch(board_id, owner_id, batch) if batch else 0)


def delete_pins_of_user(user_id: int) -> int:
    """Delete every pin still listed as the user's (account deletion, after their boards)."""
    listed = [entry.to_id for entry in mappings.iterate(USER_HAS_PINS, user_id)]
    deleted = 0
    for start in range(0, len(listed), BOARD_DELETE_CHUNK):
        by_shard: dict[int, dict[int, JSONObject]] = {}
        for pin_id, data in objects.get_many(listed[start:start + BOARD_DELETE_CHUNK]).items():
            by_shard.setdefault(shard_of(pin_id), {})[pin_id] = data
        deleted += sum(_delete_pins(shard, pins) for shard, pins in by_shard.items())
    mappings.clear(USER_HAS_PINS, user_id)
    return deleted


def release_image(image_pin_id: int, image: str, thumbnail: str) -> bool:
    """Delete an image's files once no existing pin shares them (its ``image_has_pins`` list
    holds only pins that are gone, which are dropped from it); True if the files went.
    Idempotent: the files of a released image are simply not found again."""
    sharing = [entry.to_id for entry in mappings.iterate(IMAGE_HAS_PINS, image_pin_id)]
    alive = objects.get_many(sharing) if sharing else {}
    for pin_id in sharing:
        if pin_id not in alive:
            mappings.remove(IMAGE_HAS_PINS, image_pin_id, pin_id)
    if alive:
        return False
    delete_stored_image(StoredImage(image, thumbnail, 0, 0))
    return True


def _image_fields(stored: StoredImage) -> JSONObject:
    return {"image": stored.image, "thumbnail": stored.thumbnail, "width": stored.width,
            "height": stored.height}


def _insert_pin(pinner_id: int, board_id: int, fields: JSONObject,
                source_pin_id: int | None) -> Pin:
    data, created_us = _pin_data(pinner_id, board_id, fields, source_pin_id)
    shard = shard_of(board_id)
    _prepare_interest(data, shard)
    with atomic(shard):
        pin_id = _write_pin(shard, data, created_us)
    return Pin.from_json(pin_id, data)


def _pin_data(pinner_id: int, board_id: int, fields: JSONObject,
              source_pin_id: int | None) -> tuple[JSONObject, int]:
    """A new pin's JSON, and its creation time in microseconds."""
    created_us = now_us()
    return {**fields, "board_id": board_id, "pinner_id": pinner_id,
            "created": timestamp_text(created_us), "source_pin_id": source_pin_id}, created_us


def _prepare_interest(data: JSONObject, shard: int) -> None:
    """Make the interest's slice table ready for a pin of ``data`` (a pin's or its board's
    JSON) on ``shard``, before the pin's transaction."""
    topic = interest_pins.listed_interest(data)
    if topic is not None:
        interest_pins.prepare(topic, shard)


def _write_pin(shard: int, data: JSONObject, created_us: int) -> int:
    """The pin object, its mappings and events, in the open transaction on ``shard``."""
    created: list[tuple[int, JSONObject]] = []
    pin_id = _write_pins(shard, [(data, created_us)], created)[0]
    events.pins_created(created)
    return pin_id


def _write_pins(shard: int, pins: list[tuple[JSONObject, int]],
                created: list[tuple[int, JSONObject]]) -> list[int]:
    """Pin objects of ``shard`` (JSON, creation time) with their mappings, in the open
    transaction there: one multi-row insert for the objects and one for each mapping table on
    the shard. Returns their IDs, in order, and adds each one's ``pin_created`` to
    ``created`` (``(shard, payload)``), for the caller to record."""
    pin_ids = objects.create_many(PIN, shard, [data for data, _ in pins])
    _list_pins(shard, pin_ids, pins, created)
    return pin_ids


def _list_pins(shard: int, pin_ids: list[int], pins: list[tuple[JSONObject, int]],
               created: list[tuple[int, JSONObject]]) -> None:
    """The mappings of pins just made on ``shard`` (see :func:`_write_pins`)."""
    local: dict[MappingTable, list[tuple[int, int, int]]] = {}
    for pin_id, (data, created_us) in zip(pin_ids, pins, strict=True):
        here, remote = _split_by_shard(shard, _edges(pin_id, data))
        for table, from_id, to_id in here:
            local.setdefault(table, []).append((from_id, to_id, created_us))
        topic = interest_pins.listed_interest(data)
        if topic is not None:
            interest_pins.add(topic, pin_id, created_us)
        for table, from_id, to_id in remote:
            write_after_commit(shard, "add", table, from_id, to_id, sequence=created_us)
        created.append((shard, events.pin_created(pin_id, int(data["board_id"]),
                                                  int(data["pinner_id"]), created_us,
                                                  data["source_pin_id"])))
    for table, edges in local.items():
        mappings.add_many(table, edges)


def _delete_batch(board_id: int, owner_id: int, pin_ids: list[int]) -> int:
    found = objects.get_many(pin_ids)
    stub = {"board_id": board_id, "pinner_id": owner_id}
    return _delete_pins(shard_of(board_id), {pin_id: found.get(pin_id, stub)
                                             for pin_id in pin_ids})


def _delete_pins(shard: int, pins: dict[int, JSONObject]) -> int:
    """Delete pins of one shard with their mappings; list entries whose pin is already gone
    are removed too. Returns how many pin objects existed."""
    deleted = 0
    with atomic(shard):
        for pin_id, data in pins.items():
            local, remote = _split_by_shard(shard, _edges(pin_id, data))
            for edge in local:
                mappings.remove(*edge)
            topic = interest_pins.listed_interest(data)
            if topic is not None:
                interest_pins.remove(topic, pin_id)
            for table, from_id, to_id in remote:
                write_after_commit(shard, "remove", table, from_id, to_id)
            _forget_repins(pin_id)
            if objects.delete(pin_id):
                deleted += 1
                events.pin_deleted(shard, pin_id, int(data["board_id"]),
                                   int(data["pinner_id"]), _created_us(data))
                _release_image(shard, pin_id, data)
    return deleted


def _release_image(shard: int, pin_id: int, data: JSONObject) -> None:
    uploaded_by = image_pin(pin_id, data)
    if uploaded_by is not None:
        events.image_released(shard, uploaded_by, str(data["image"]), str(data["thumbnail"]))


def _forget_repins(pin_id: int) -> None:
    mappings.clear(PIN_HAS_REPINS, pin_id)


def _created_us(data: JSONObject) -> int | None:
    created = data.get("created")
    return timestamp_us(created) if isinstance(created, str) else None


def _edges(pin_id: int, data: JSONObject) -> list[Edge]:
    edges = [(BOARD_HAS_PINS, int(data["board_id"]), pin_id),
             (USER_HAS_PINS, int(data["pinner_id"]), pin_id)]
    if data.get("source_pin_id") is not None:
        edges.append((PIN_HAS_REPINS, int(data["source_pin_id"]), pin_id))
    uploaded_by = image_pin(pin_id, data)
    if uploaded_by is not None:
        edges.append((IMAGE_HAS_PINS, uploaded_by, pin_id))
    return edges


def _split_by_shard(shard: int, edges: list[Edge]) -> tuple[list[Edge], list[Edge]]:
    local = [edge for edge in edges if shard_of(edge[1]) == shard]
    return local, [edge for edge in edges if shard_of(edge[1]) != shard]

