"""Settings of the plain peer: a stock Django + DRF API project on one MySQL database, given
by ``PLAIN_DB_*`` variables (:func:`benchmarks.peer.environment` sets them)."""

from __future__ import annotations

import os

SECRET_KEY = "plain-peer-of-the-bench-only"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "rest_framework",
    "rest_framework.authtoken",
    "benchmarks.plain",
]
# What ``django-admin startproject`` writes.
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
ROOT_URLCONF = "benchmarks.plain.urls"
WSGI_APPLICATION = "benchmarks.plain.wsgi.application"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.mysql",
        "NAME": os.environ.get("PLAIN_DB_NAME", "plain_feed"),
        "USER": os.environ.get("PLAIN_DB_USER", ""),
        "PASSWORD": os.environ.get("PLAIN_DB_PASSWORD", ""),
        "HOST": os.environ.get("PLAIN_DB_HOST", "127.0.0.1"),
        "PORT": os.environ.get("PLAIN_DB_PORT", "3306"),
        "CONN_MAX_AGE": 60,
        "OPTIONS": {"charset": "utf8mb4"},
    },
}
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"
MEDIA_URL = "/media/"
