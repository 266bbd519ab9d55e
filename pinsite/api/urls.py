"""Routes of the REST API under ``/api/v1/`` (``docs/api.md``). Every path ends with a slash;
any other path under ``/api/v1/`` is a JSON 404."""

from django.urls import path, re_path
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from pinsite.api import accounts, boards, exports, feed, graph, interests, pins, users
from pinsite.api.base import PinsiteView


@extend_schema(exclude=True)
class NoSuchEndpoint(PinsiteView):
    """Every method of an unknown path: a JSON 404 instead of an HTML page."""

    permission_classes = []
    throttle_classes = []

    def dispatch_unknown(self, request: Request, *args: object, **kwargs: object) -> Response:
        raise NotFound("No such API endpoint (API paths end with a slash: see /api/docs/).")

    get = post = put = patch = delete = head = options = dispatch_unknown


urlpatterns = [
    path("", accounts.ApiRootView.as_view(), name="api-root"),
    path("auth/token/", accounts.TokenView.as_view(), name="api-token"),
    path("me/", accounts.MeView.as_view(), name="api-me"),
    path("me/feed/", feed.FeedView.as_view(), name="api-feed"),
    path("me/feed/explain/", feed.ExplainView.as_view(), name="api-feed-explain"),
    path("me/home/", feed.HomeView.as_view(), name="api-home"),
    path("me/follows/", graph.BatchCheckView.as_view(), name="api-follows"),
    path("me/export/", exports.ExportView.as_view(), name="api-export"),
    path("me/export/<str:export_id>/download/", exports.ExportDownloadView.as_view(),
         name="api-export-download"),
    path("users/", accounts.SignUpView.as_view(), name="api-users"),
    path("users/by-username/<str:username>/", users.UserByNameView.as_view(),
         name="api-user-by-name"),
    path("users/<str:user_id>/", users.UserView.as_view(), name="api-user"),
    path("users/<str:user_id>/boards/", users.UserBoardsView.as_view(), name="api-user-boards"),
    path("users/<str:user_id>/pins/", users.UserPinsView.as_view(), name="api-user-pins"),
    path("users/<str:user_id>/followers/", graph.UserFollowersView.as_view(),
         name="api-user-followers"),
    path("users/<str:user_id>/following/", graph.UserFollowingView.as_view(),
         name="api-user-following"),
    path("users/<str:user_id>/follow/", graph.FollowUserView.as_view(), name="api-user-follow"),
    path("interests/", interests.InterestsView.as_view(), name="api-interests"),
    path("interests/<str:slug>/", interests.InterestView.as_view(), name="api-interest"),
    path("interests/<str:slug>/pins/", interests.InterestPinsView.as_view(),
         name="api-interest-pins"),
    path("interests/<str:slug>/follow/", interests.FollowInterestView.as_view(),
         name="api-interest-follow"),
    path("me/interests/", interests.MyInterestsView.as_view(), name="api-my-interests"),
    path("boards/", boards.BoardsView.as_view(), name="api-boards"),
    path("boards/<str:board_id>/", boards.BoardView.as_view(), name="api-board"),
    path("boards/<str:board_id>/pins/", boards.BoardPinsView.as_view(), name="api-board-pins"),
    path("boards/<str:board_id>/followers/", graph.BoardFollowersView.as_view(),
         name="api-board-followers"),
    path("boards/<str:board_id>/follow/", graph.FollowBoardView.as_view(),
         name="api-board-follow"),
    path("pins/", pins.PinsView.as_view(), name="api-pins"),
    path("pins/<str:pin_id>/", pins.PinView.as_view(), name="api-pin"),
    path("pins/<str:pin_id>/repin/", pins.RepinView.as_view(), name="api-pin-repin"),
    path("pins/<str:pin_id>/repins/", pins.PinRepinsView.as_view(), name="api-pin-repins"),
    path("pins/<str:pin_id>/related/", pins.RelatedPinsView.as_view(), name="api-pin-related"),
    re_path(r"^.*$", NoSuchEndpoint.as_view(), name="api-unknown"),
]
