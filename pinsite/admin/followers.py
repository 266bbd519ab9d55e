"""A pinner's follower state: the size of every graph set, where they live, the edge log
compared with Redis (and a confirmed rebuild from the log), and the head of their feed."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from feed.selectors import hydrate
from feed.storage import FeedRow
from feed.store.pools import CLUSTERS, Cluster
from graph import health, repair, topology
from graph.differences import VerifyReport
from graph.vshards import vshard_of
from pins import selectors as content
from pins.actions.pinners import delete_account_for_staff
from pins.domain import Pin, User, timestamp_text
from pinsite.admin.pages import attempt, confirmed_action, pinner_of, render_page

SHOWN = 20
SET_NAMES = (
    "users followed explicitly",
    "users followed implicitly (some boards)",
    "explicit followers",
    "implicit followers (some boards)",
    "boards followed explicitly",
    "boards unfollowed (of users followed)",
)


@dataclass(frozen=True)
class SetSize:
    key: str
    what: str
    size: int


@dataclass(frozen=True)
class BoardSets:
    board_id: int
    name: str
    explicit_followers: int
    unfollowers: int
    overlap: int
    followers: int


@dataclass(frozen=True)
class FeedCluster:
    cluster: str
    entries: int | None
    writes: int | None
    horizon: str | None
    error: str | None


@dataclass
class FollowerState:
    user: User
    vshard: int
    master: str | None
    replica: str | None
    sets: list[SetSize] = field(default_factory=list)
    boards: list[BoardSets] = field(default_factory=list)
    clusters: list[FeedCluster] = field(default_factory=list)
    feed: list[tuple[str, Pin]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def user_sets(user_id: int) -> list[SetSize]:
    return [SetSize(name, what, size) for (name, size), what
            in zip(health.user_set_sizes(user_id).items(), SET_NAMES, strict=True)]


def board_sets(user: User) -> list[BoardSets]:
    return [BoardSets(board.id, board.name, *health.board_set_sizes(board.id),
                      board.followers.count())
            for board in user.boards.page(limit=100)]


def feed_cluster(user: User, cluster: Cluster) -> FeedCluster:
    row, error = attempt(lambda: user.feed.head(cluster))
    if row is None:
        return FeedCluster(cluster, None, None, None, error)
    return FeedCluster(cluster, len(row.entries), row.writes, _horizon(row), None)


def feed_pins(user: User) -> list[tuple[str, Pin]]:
    """The newest entries of the feed (speculative read), with their pins."""
    entries = user.feed.head().entries[:SHOWN]
    pins = {pin.id: pin for pin in hydrate(entries)}
    return [(timestamp_text(entry.created_us), pins[entry.pin_id]) for entry in entries
            if entry.pin_id in pins]


def follower_state_of(user: User) -> FollowerState:
    vshard = vshard_of(user.id)
    current, error = attempt(topology.current_map)
    master = current.master_for(vshard) if current else None
    state = FollowerState(user, vshard, master, current.replica_of(master) if current and
                          master else None, problems=[error] if error else [])
    for name, read in (("sets", lambda: user_sets(user.id)),
                       ("boards", lambda: board_sets(user)),
                       ("feed", lambda: feed_pins(user))):
        value, problem = attempt(read)
        if problem:
            state.problems.append(f"{name}: {problem}")
        else:
            setattr(state, name, value)
    state.clusters = [feed_cluster(user, cluster) for cluster in CLUSTERS]
    return state


def _horizon(row: FeedRow) -> str | None:
    return None if row.horizon is None else row.horizon.hex()


def find_pinner(request: HttpRequest) -> HttpResponse:
    """A form for a user ID or username; goes to that pinner's state."""
    return find_pinner_page(request, "Follower state", "admin:operations-pinner")


def find_pinner_page(request: HttpRequest, title: str, target: str) -> HttpResponse:
    """A form for a user ID or username (submitted to this page); goes to the ``target`` page
    of that pinner."""
    query = request.GET.get("q", "").strip()
    error = None
    if query:
        user_id, error = attempt(lambda: content.resolve_user(query))
        if user_id is not None:
            return redirect(target, user_id=str(user_id))
    return render_page(request, "pinners.html", title, {"query": query, "error": error,
                                                       "finder": request.path})


def follower_state(request: HttpRequest, user_id: str) -> HttpResponse:
    """Every set's size, placement, the feed head, and on request the log comparison."""
    user, error = attempt(lambda: User.objects.get(user_id))
    if user is None:
        return render_page(request, "pinners.html", "Follower state",
                           {"query": user_id, "error": error})
    verified: VerifyReport | None = None
    verify_error = None
    if request.GET.get("verify"):
        verified, verify_error = attempt(lambda: repair.verify_user(user.id))
    return render_page(request, "follower_state.html", f"Follower state of {user.username}",
                       {"state": follower_state_of(user), "verified": verified,
                        "verify_error": verify_error, "shown": SHOWN,
                        "checked_at": datetime.now().astimezone()})


def rebuild(request: HttpRequest, user_id: str) -> HttpResponse:
    """Confirm, then restore the pinner's graph keys from the edge log."""
    user = pinner_of(user_id)
    details = [f"Rewrites every key of {user.username} ({user.id}) and of their boards that "
               "differs from the edge log, and fixes their entries in the keys of whoever they "
               "follow. Keys that already match are left alone.",
               "Run it when the pinner is quiet: the log is read once, at the start."]
    return confirmed_action(request, title=f"Rebuild the follower graph of {user.username}",
                            details=details, perform=lambda: _rebuilt(user.id),
                            done="admin:operations-pinner", user_id=str(user.id))


def _rebuilt(user_id: int) -> str:
    report = repair.rebuild_user(user_id)
    return (f"{report.verified.scope}: {len(report.verified.differences)} differences found, "
            f"{report.keys_rewritten} keys rewritten, {report.members_fixed} entries fixed, "
            f"{report.overlaps_recounted} overlaps recounted.")


def delete_account(request: HttpRequest, user_id: str) -> HttpResponse:
    """Confirm, then delete the pinner's account, as the pinner could (the same action)."""
    user = pinner_of(user_id)
    details = [f"Signs {user.username} ({user.id}) out everywhere and disables the account at "
               "once, then deletes in the background their boards, pins and images, their "
               "follows both ways and their feeds, and finally the account: the username is "
               "free again. Repins others made of their pins stay.",
               "The queues page shows the deletion's events and messages."]
    return confirmed_action(request, title=f"Delete the account of {user.username}",
                            details=details, perform=lambda: _deletion_requested(user),
                            done="admin:operations-pinners")


def _deletion_requested(user: User) -> str:
    """A staff deletion, unlike a pinner's own, is recorded in the operator audit log."""
    delete_account_for_staff(user.id, user.username)
    return f"Deleting the account {user.id}: queued."
