"""Routes of the web UI."""

from django.urls import path

from pinsite import views

urlpatterns = [path("", views.home, name="home")]
