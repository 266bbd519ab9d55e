"""The legacy-ID → pinsite-ID map in plain SQL, on the stack's MariaDB: claims, records,
refusals and a site key with characters SQL and parameter formatting treat specially."""

from __future__ import annotations

import uuid

from legacy import idmap
from legacy.idmap import Record


def _site() -> str:
    return f"10.0.0.9:3306/it's_100%_{uuid.uuid4().hex[:8]}"


def test_a_claim_takes_only_rows_nobody_claimed_before() -> None:
    site = _site()
    assert idmap.claim(site, "pins", [1, 2]) == {1, 2}
    assert idmap.claim(site, "pins", [2, 3]) == {3}
    assert idmap.claim(site, "boards", [2]) == {2}  # another kind: another row
    assert idmap.records(site, "pins", [1, 2, 3, 4]).keys() == {1, 2, 3}
    assert idmap.copied(site, "pins", [1, 2, 3]) == {}  # claimed, not made


def test_copied_and_refused_rows_are_recorded_and_updated() -> None:
    site = _site()
    idmap.claim(site, "boards", [7, 8])
    idmap.write(site, "boards", [(7, 123, "a" * 40, ""), (8, 456, "b" * 40, "")], idmap.COPIED)
    idmap.write(site, "boards", [(8, None, "c" * 40, "no 'name' %s here")], idmap.REFUSED)
    assert idmap.records(site, "boards", [7, 8]) == {
        7: Record(123, "a" * 40, ""), 8: Record(456, "c" * 40, "no 'name' %s here")}
    assert idmap.copied(site, "boards", [7, 8, 9]) == {7: 123, 8: 456}
    assert idmap.records(_site(), "boards", [7]) == {}  # another site
    assert idmap.records(site, "boards", []) == {}
