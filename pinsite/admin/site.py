"""Adding the operators' pages to Django's admin site.

The project keeps Django's default site (``admin.site``, mounted at ``/admin/``); :func:`install`
gives it the pages of :data:`PAGES` under ``/admin/operations/`` and an index that links them.
Every page goes through ``site.admin_view``: staff only (others get the login page), CSRF on
posts, never cached. Actions that change something take a superuser. The login page's POSTs
are credential attempts, limited as the web UI's (:func:`pinsite.serving.attempts.
credential_limited`); a store it cannot do without (the attempt limiter's cache, Django's
MySQL) is the 503 page, as in the web UI (:mod:`pinsite.errors`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.admin import AdminSite
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, path

from pinsite.admin import audits, explain, followers, lookup, queues, shards, smartfeed, vshards
from pinsite.serving.attempts import credential_limited
from pinsite.web.errors import domain_errors

View = Callable[..., HttpResponse]

PAGES: list[tuple[str, View, str]] = [
    ("shards/", shards.shard_map, "shards"),
    ("shards/<str:master>/promote/", shards.promote, "shards-promote"),
    ("vshards/", vshards.vshard_map, "vshards"),
    ("vshards/<str:instance>/promote/", vshards.promote, "vshards-promote"),
    ("lookup/", lookup.lookup, "lookup"),
    ("pinners/", followers.find_pinner, "pinners"),
    ("pinners/<str:user_id>/", followers.follower_state, "pinner"),
    ("pinners/<str:user_id>/rebuild/", followers.rebuild, "pinner-rebuild"),
    ("pinners/<str:user_id>/delete/", followers.delete_account, "pinner-delete"),
    ("pinners/<str:user_id>/explain/", explain.explain, "pinner-explain"),
    ("pinners/<str:user_id>/smartfeed/", smartfeed.pinner, "smartfeed-pinner"),
    ("pinners/<str:user_id>/smartfeed/rebuild/", smartfeed.rebuild, "smartfeed-rebuild"),
    ("smartfeed/", smartfeed.health_page, "smartfeed"),
    ("smartfeed/pinners/", smartfeed.find_pinner, "smartfeed-pinners"),
    ("queues/", queues.queues, "queues"),
    ("audit/", audits.audits, "audit"),
]


def install(site: AdminSite) -> None:
    """Add the operators' pages to ``site`` and link them from its index."""
    site.index_template = "admin/pinsite/index.html"
    site.login = domain_errors(credential_limited(site.login))  # type: ignore[method-assign]
    builtin = site.get_urls

    def get_urls() -> list[Any]:
        return [*operator_urls(site), *builtin()]

    site.get_urls = get_urls  # type: ignore[method-assign]


def operator_urls(site: AdminSite) -> list[URLPattern]:
    return [path(f"operations/{route}", site.admin_view(_with_site(site, view)),
                 name=f"operations-{name}") for route, view, name in PAGES]


def _with_site(site: AdminSite, view: View) -> View:
    """``view`` with ``request.admin_site`` set, for rendering inside the admin."""
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        request.admin_site = site  # type: ignore[attr-defined]
        return view(request, *args, **kwargs)
    return wrapped
