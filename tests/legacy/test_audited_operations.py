"""A legacy import run is recorded in the operator audit log once, with its command line (the
source's password masked), the site it read (no credentials) and each pass's report."""

from __future__ import annotations

from django.utils import timezone

from legacy.source import key
from tests.auditlog.helpers import result_of, the_entry
from tests.legacy.test_import import Legacy, _import, legacy  # noqa: F401
from toolkit import acting


def test_an_import_run_is_recorded_once_with_its_passes(legacy: Legacy) -> None:  # noqa: F811
    since = timezone.now()
    _import("legacy", legacy.url, "--inline", "--until-converged")
    entry = the_entry("legacy.import", key(legacy.url), since)
    assert (entry.outcome, entry.actor_kind, entry.actor) == ("ok", "command", acting.os_user())
    assert entry.actor_detail == (
        f"manage.py import legacy mysql://root:***@{legacy.host}:{legacy.port}/{legacy.name} "
        "--inline --until-converged --quiet")
    assert entry.arguments == {"batch_size": 200, "inline": True, "until_converged": True}
    passes = result_of(entry)["passes"]
    assert len(passes) >= 2 and passes[0]["copied"]["users"] == 12
    assert passes[-1]["copied"] == {kind: 0 for kind in passes[0]["copied"]}
