from django.urls import path

from benchmarks.plain.views import FeedView, healthz

urlpatterns = [
    path("api/v1/me/feed/", FeedView.as_view()),
    path("healthz", healthz),
]
