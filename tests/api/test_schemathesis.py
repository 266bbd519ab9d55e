"""The API against its own OpenAPI schema: schemathesis generates valid and invalid requests
for every operation and checks every response (status, content type, body schema, no 5xx).

Schema-valid values are sometimes aimed at real objects, so that valid requests also reach
the success paths: path and body IDs at the caller's own board and pin (or, for follows, at
another pinner's), uploads at a real PNG. Two rules OpenAPI cannot express are kept out of
valid requests: a ``cursor`` must be one the API issued (a random string of the cursor
alphabet is rightly a 400), and a password must not be a common one (``00000000`` is). Invalid
values are always sent as generated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.core.parameters import ParameterLocation

from pinsite.wsgi import application
from tests.api.helpers import PASSWORD, Caller, new_board, new_pin
from tests.pins.helpers import image_bytes

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
pytestmark = pytest.mark.filterwarnings(  # raised by schemathesis's own strategies
    "ignore::hypothesis.errors.HypothesisDeprecationWarning")


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
    """In the valid parts of ``case``: aim IDs at real objects, drop the cursor, use an
    uncommon password and a real image (see the module's docstring)."""
    targets = world.others if case.path.endswith("/follow/") else world.own
    if _positive(case, ParameterLocation.PATH):
        for name, value in (case.path_parameters or {}).items():
            if name in targets and int(value) % 2 == 0:
                case.path_parameters[name] = targets[name]
    if _positive(case, ParameterLocation.QUERY) and case.query:
        case.query.pop("cursor", None)
    if _positive(case, ParameterLocation.BODY) and isinstance(case.body, dict):
        body = cast(dict[str, Any], case.body)
        if isinstance(body.get("password"), str):
            body["password"] = PASSWORD
        if isinstance(body.get("image"), bytes | str):
            body["image"] = image_bytes()
        if isinstance(body.get("board_id"), str) and int(body["board_id"]) % 2 == 0:
            body["board_id"] = world.own["board_id"]


@schema.parametrize()
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case: schemathesis.Case, world: World) -> None:
    _aim(case, world)
    case.call_and_validate(headers={"Authorization": f"Token {world.caller.token}"})


