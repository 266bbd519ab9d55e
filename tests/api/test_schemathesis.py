"""The API against its own OpenAPI schema: schemathesis generates valid and invalid requests
for every operation and checks every response (status, content type, body schema, no 5xx).

Schema-valid values are sometimes aimed at real objects, so that valid requests also reach
the success paths: path and body IDs at the caller's own board and pin (or, for follows, at
another pinner's), uploads at a real PNG. Three rules OpenAPI cannot express are kept out of
valid requests: an ID must be one an object of its type can have (other digits are rightly a
400; the valid IDs not aimed at an object become well-formed IDs of their type that no object
has, a 404), a ``cursor`` must be one the API issued (a random string of the cursor alphabet
is rightly a 400), and a password must not be a common one (``00000000`` is). Invalid values
are always sent as generated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.core.parameters import ParameterLocation

from pins.types import BOARD, PIN, USER
from pinsite.wsgi import application
from sharding.ids import MAX_LOCAL, ObjectType, compose
from tests.api.helpers import PASSWORD, Caller, new_board, new_pin
from tests.pins.helpers import image_bytes

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
pytestmark = pytest.mark.filterwarnings(  # raised by schemathesis's own strategies
    "ignore::hypothesis.errors.HypothesisDeprecationWarning")


KINDS = {"user_id": USER, "board_id": BOARD, "pin_id": PIN, "users": USER, "boards": BOARD}


@dataclass(frozen=True)
class World:
    """The authenticated caller's objects and another pinner's, to aim requests at."""

    caller: Caller
    own: dict[str, str]
    others: dict[str, str]


@pytest.fixture
def world(alice: Caller, bob: Caller) -> World:
    mine, theirs = new_board(alice), new_board(bob)
    own = {"user_id": alice.id, "board_id": str(mine.id),
           "pin_id": str(new_pin(alice, mine).id)}
    others = {"user_id": bob.id, "board_id": str(theirs.id),
              "pin_id": str(new_pin(bob, theirs).id)}
    return World(alice, own, others)


def _positive(case: schemathesis.Case, location: ParameterLocation) -> bool:
    return case.meta is not None and not case.meta.is_negative_at(location)


def _aim(case: schemathesis.Case, world: World) -> None:
    """In the valid parts of ``case``: aim IDs at real objects or make them well-formed IDs
    of their type, drop the cursor, use an uncommon password and a real image (see the
    module's docstring)."""
    targets = world.others if case.path.endswith("/follow/") else world.own
    if _positive(case, ParameterLocation.PATH):
        for name, value in (case.path_parameters or {}).items():
            if name in KINDS:
                case.path_parameters[name] = (targets[name] if int(value) % 2 == 0
                                              else _well_formed(value, KINDS[name]))
    if _positive(case, ParameterLocation.QUERY) and case.query:
        case.query.pop("cursor", None)
        pin = case.query.get("pin")
        if isinstance(pin, str) and pin.isdigit():
            case.query["pin"] = (targets["pin_id"] if int(pin) % 2 == 0
                                 else _well_formed(pin, PIN))
        for name in ("users", "boards"):
            if isinstance(case.query.get(name), str) and case.query[name]:
                case.query[name] = ",".join(_well_formed(value, KINDS[name])
                                            for value in case.query[name].split(","))
    if _positive(case, ParameterLocation.BODY) and isinstance(case.body, dict):
        body = cast(dict[str, Any], case.body)
        if isinstance(body.get("password"), str):
            body["password"] = PASSWORD
        if isinstance(body.get("image"), bytes | str):
            body["image"] = image_bytes()
        if isinstance(body.get("board_id"), str):
            body["board_id"] = (world.own["board_id"] if int(body["board_id"]) % 2 == 0
                                else _well_formed(body["board_id"], BOARD))


def _well_formed(digits: str, kind: ObjectType) -> str:
    """A well-formed ID of ``kind`` for digits the schema allowed (no object has it): any
    other is a 400, which schema-valid input must not get."""
    return str(compose(0, kind.type_id, MAX_LOCAL - int(digits) % 1000))


@schema.parametrize()
# 12 generated requests per operation (besides schemathesis's own boundary cases) keep the
# suite in its time budget; each run draws new ones.
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case: schemathesis.Case, world: World) -> None:
    _aim(case, world)
    case.call_and_validate(headers={"Authorization": f"Token {world.caller.token}"})


