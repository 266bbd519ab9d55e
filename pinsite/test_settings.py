"""Settings for the test suite: the ``test`` profile of the local stack and a small shard layout."""

import os

os.environ.setdefault("PINSITE_PROFILE", "test")
os.environ.setdefault("PINSITE_SHARD_COUNT", "64")
os.environ.setdefault("PINSITE_MYSQL_CONN_MAX_AGE", "0")
# The home feed's generator budget (100 ms in production): the suite's visits are about which
# pins a chunk shows, and on two busy cores a chunk's HBase scans can pass 100 ms. The
# budget's own tests set 100 ms again (tests/smartfeed/test_service.py).
os.environ.setdefault("PINSITE_SMARTFEED_BUDGET_MS", "2000")

from pinsite.settings import *  # noqa: F403

# A RabbitMQ virtual host per test session, created and deleted by ``tests/conftest.py``:
# sessions sharing one stack never consume each other's messages. The processes a session
# starts inherit its name through the environment.
AMQP_VHOST_PREFIX = "pinsite-tests-"
AMQP_VHOST = os.environ.setdefault("PINSITE_TEST_AMQP_VHOST", f"{AMQP_VHOST_PREFIX}{os.getpid()}")
AMQP_URL = f"{AMQP_URL.rsplit('/', 1)[0]}/{AMQP_VHOST}"  # noqa: F405

# The feed auditor's rounds in the test worker are off (its tests turn them on): a round audits
# pinners drawn at random, among them the scale tests' pinners with thousands of follows.
PINSITE_FEED = {**PINSITE_FEED, "AUDIT_EVERY_SECONDS": 0}  # noqa: F405

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {"writes": "100000/minute", "credentials": "100000/minute"},
}

# WhiteNoise serves STATIC_ROOT (``runsite`` collects it there); the test client's requests go
# through WhiteNoise too, which warns on every run if the folder does not exist.
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405
