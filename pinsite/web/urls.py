"""Routes of the web UI.

Pinners live under ``/u/<username>/`` so that no username can shadow a page of the site.
"""

from django.urls import path

from pinsite.web import accounts, boards, exports, home, interests, pins, profiles

urlpatterns = [
    path("", home.home, name="home"),
    path("following/", home.following, name="following"),
    path("signup/", accounts.signup, name="signup"),
    path("login/", accounts.login_view, name="login"),
    path("logout/", accounts.logout_view, name="logout"),
    path("account/", accounts.account, name="account"),
    path("account/export/", exports.request_export, name="account-export"),
    path("account/export/<int:export_id>/", exports.download_export,
         name="account-export-download"),
    path("account/delete/", accounts.delete_account, name="account-delete"),
    path("u/<str:username>/", profiles.boards, name="profile"),
    path("u/<str:username>/pins/", profiles.pins, name="profile-pins"),
    path("u/<str:username>/followers/", profiles.followers, name="profile-followers"),
    path("u/<str:username>/following/", profiles.following, name="profile-following"),
    path("u/<str:username>/follow/", profiles.follow, name="profile-follow"),
    path("interests/", interests.index, name="interests"),
    path("interests/<slug:slug>/", interests.detail, name="interest"),
    path("interests/<slug:slug>/follow/", interests.follow, name="interest-follow"),
    path("board/new/", boards.create, name="board-create"),
    path("board/<int:board_id>/", boards.detail, name="board"),
    path("board/<int:board_id>/followers/", boards.followers, name="board-followers"),
    path("board/<int:board_id>/follow/", boards.follow, name="board-follow"),
    path("board/<int:board_id>/edit/", boards.edit, name="board-edit"),
    path("board/<int:board_id>/delete/", boards.delete, name="board-delete"),
    path("pin/new/", pins.create, name="pin-create"),
    path("pin/<int:pin_id>/", pins.detail, name="pin"),
    path("pin/<int:pin_id>/repin/", pins.repin, name="pin-repin"),
    path("pin/<int:pin_id>/delete/", pins.delete, name="pin-delete"),
    path("pin/<int:pin_id>/why/", home.why, name="pin-why"),
]
