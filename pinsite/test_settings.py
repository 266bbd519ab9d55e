"""Settings for the test suite: the ``test`` profile of the local stack and a small shard layout."""

import os

os.environ.setdefault("PINSITE_PROFILE", "test")
os.environ.setdefault("PINSITE_SHARD_COUNT", "64")
os.environ.setdefault("PINSITE_MYSQL_CONN_MAX_AGE", "0")

from pinsite.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {"writes": "100000/minute", "credentials": "100000/minute"},
}

# WhiteNoise serves STATIC_ROOT (``runsite`` collects it there); the test client's requests go
# through WhiteNoise too, which warns on every run if the folder does not exist.
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405
