"""URL configuration: the admin, the web UI and (later) the REST API."""

from django.conf import settings
from django.contrib import admin
from django.urls import path, re_path
from django.views.static import serve

from pinsite import views

urlpatterns = [
    path("", views.home, name="home"),
    path("admin/", admin.site.urls),
]

if settings.PINSITE_SERVE_MEDIA:
    urlpatterns += [
        re_path(r"^media/(?P<path>.*)$", serve, {"document_root": settings.MEDIA_ROOT}),
    ]
