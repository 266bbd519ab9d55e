"""Django settings for pinsite.

All addresses and secrets come from environment variables (``docs/configuration.md``); the
defaults point at the local development stack (``python -m devstack env`` prints them).
Subsystem settings live in one namespaced dict each (``PINSITE_SHARDING``, ``PINSITE_CONTENT``),
read lazily by the subsystem's ``conf`` module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pinsite import credentials, env

BASE_DIR = Path(__file__).resolve().parent.parent
BASE = env.port_base()
LOCAL = env.LOCAL
PROFILE = env.text("PINSITE_PROFILE", "dev")
VAR_DIR = Path(env.text("PINSITE_VAR", str(BASE_DIR / "var" / PROFILE)))


def _credential(variable: str) -> str:
    """The variable, or the development stack's value (which production refuses)."""
    return env.text(variable, credentials.DEVELOPMENT[variable])


SECRET_KEY = _credential("PINSITE_SECRET_KEY")
DEBUG = env.flag("PINSITE_DEBUG", False)
ALLOWED_HOSTS = env.text("PINSITE_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",")

INSTALLED_APPS = [
    "pinsite.apps.PinsiteConfig",  # first: its ready() installs the queue broker, which actors
    "django.contrib.admin",        # declared in later apps' ready() (admin discovery) bind to
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "auditlog",
    "sharding",
    "events",
    "pins",
    "graph",
    "feed",
    "feed.smart",
    "accounts",
    "legacy",
    "benchmarks",  # manage.py bench; no app imports it
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "pinsite.serving.metrics.RequestMetrics",
    "pinsite.serving.bodies.BodyLimit",  # before anything reads a body (sessions, CSRF)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "pinsite.urls"
WSGI_APPLICATION = "pinsite.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- MySQL: Django's own tables on "default", one alias per physical shard host -------------

MYSQL_USER = _credential("PINSITE_MYSQL_USER")
MYSQL_PASSWORD = _credential("PINSITE_MYSQL_PASSWORD")
# A stopped or cut-off MySQL host fails the statement waiting on it within these (seconds),
# and the server rolls back the transaction when the connection closes: no request holds a
# thread until the host comes back (docs/configuration.md).
MYSQL_OPTIONS: dict[str, Any] = {
    "charset": "utf8mb4",
    "connect_timeout": env.number("PINSITE_MYSQL_CONNECT_TIMEOUT", 2),
    "read_timeout": env.number("PINSITE_MYSQL_READ_TIMEOUT", 5),
    "write_timeout": env.number("PINSITE_MYSQL_WRITE_TIMEOUT", 5),
}
# MariaDB's own limit on one statement's run time (max_statement_time), 0 for none.
MYSQL_STATEMENT_TIMEOUT = env.number("PINSITE_MYSQL_STATEMENT_TIMEOUT", 0)
if MYSQL_STATEMENT_TIMEOUT:
    MYSQL_OPTIONS["init_command"] = f"SET SESSION max_statement_time = {MYSQL_STATEMENT_TIMEOUT}"


def _mysql(host: str, port: int, name: str = "") -> dict[str, Any]:
    return {
        "ENGINE": "sharding.mysql",
        "NAME": name,
        "USER": MYSQL_USER,
        "PASSWORD": MYSQL_PASSWORD,
        "HOST": host,
        "PORT": str(port),
        "CONN_MAX_AGE": env.number("PINSITE_MYSQL_CONN_MAX_AGE", 60),
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": dict(MYSQL_OPTIONS),
        "TEST": {"MIGRATE": False},
    }


SHARD_HOSTS = env.named_addresses(
    env.text(
        "PINSITE_SHARD_HOSTS",
        f"mysql001a={LOCAL}:{BASE + 311},mysql001b={LOCAL}:{BASE + 312},"
        f"mysql002a={LOCAL}:{BASE + 321},mysql002b={LOCAL}:{BASE + 322}",
    )
)
DATABASES: dict[str, dict[str, Any]] = {
    "default": _mysql(*env.address(env.text("PINSITE_DB_DEFAULT", f"{LOCAL}:{BASE + 306}")),
                      name=env.text("PINSITE_DB_NAME", "pinsite")),
    **{alias: _mysql(host, port) for alias, (host, port) in SHARD_HOSTS.items()},
}
DATABASES["default"]["TEST"] = {"NAME": DATABASES["default"]["NAME"]}
DATABASE_ROUTERS = ["sharding.router.ShardRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Coordination: ZooKeeper holds the maps, the host registry and elections ----------------

PINSITE_COORDINATION = {
    "ZK_HOSTS": env.text("PINSITE_ZK_HOSTS", f"{LOCAL}:{BASE + 181}"),
    "ZK_ROOT": env.text("PINSITE_ZK_ROOT", "/pinsite"),
    # the last-known-good copy of every watched document (shardmap.json, vshardmap.json, …)
    "CACHE_DIR": str(VAR_DIR),
}

PINSITE_SHARDING = {
    "SHARD_COUNT": env.number("PINSITE_SHARD_COUNT", 512),
    "INITIAL_PAIRS": env.pairs(
        env.text("PINSITE_SHARD_PAIRS", "mysql001a:mysql001b,mysql002a:mysql002b")
    ),
    "ADMIN_USER": _credential("PINSITE_MYSQL_ADMIN_USER"),
    "ADMIN_PASSWORD": _credential("PINSITE_MYSQL_ADMIN_PASSWORD"),
    "REPL_USER": _credential("PINSITE_MYSQL_REPL_USER"),
    "REPL_PASSWORD": _credential("PINSITE_MYSQL_REPL_PASSWORD"),
}

# --- Follower graph: Redis masters (with replicas) holding 8,192 virtual shards -------------

PINSITE_GRAPH = {
    "REDIS_HOSTS": env.named_addresses(
        env.text(
            "PINSITE_REDIS_GRAPH_HOSTS",
            f"redis001a={LOCAL}:{BASE + 381},redis001b={LOCAL}:{BASE + 382},"
            f"redis002a={LOCAL}:{BASE + 391},redis002b={LOCAL}:{BASE + 392}",
        )
    ),
    "INITIAL_PAIRS": env.pairs(
        env.text("PINSITE_REDIS_GRAPH_PAIRS", "redis001a:redis001b,redis002a:redis002b")
    ),
    "VSHARD_COUNT": 8192,
    # Redis Sentinels watching the pairs (empty: promotions are made by `graph promote` alone)
    "SENTINELS": env.addresses(
        env.text("PINSITE_REDIS_SENTINELS",
                 f"{LOCAL}:{BASE + 401},{LOCAL}:{BASE + 402},{LOCAL}:{BASE + 403}")
    ),
}

# --- Following feed: HBase Thrift servers of the primary and the standby cluster ---------

PINSITE_FEED = {
    "PRIMARY": env.address(env.text("PINSITE_HBASE_PRIMARY", f"{LOCAL}:{BASE + 90}")),
    "STANDBY": env.address(env.text("PINSITE_HBASE_STANDBY", f"{LOCAL}:{BASE + 91}")),
    # The smart feed's pools live on a cluster of their own (feed/smart).
    "POOLS": env.address(env.text("PINSITE_HBASE_POOLS", f"{LOCAL}:{BASE + 92}")),
    "TABLE_PREFIX": env.text("PINSITE_HBASE_TABLE_PREFIX", "pinsite"),
    # Tuning (PINSITE_FEED_CAP, ...): only the variables that are set; see feed/conf.py.
    **env.numbers("PINSITE_FEED_", ["CAP", "SLACK", "BACKFILL_PINS", "FANOUT_CHUNK",
                                    "PULL_ABOVE", "COUNT_DELAY_MS", "SPECULATIVE_CUTOFF_MS",
                                    "PAGE_SIZE", "MAX_PAGE", "AUDIT_WINDOW_SECONDS",
                                    "AUDIT_LAG_FACTOR", "AUDIT_SAMPLE", "AUDIT_EVERY_SECONDS",
                                    "AUDIT_KEEP_HOURS"]),
}

# --- Smart home feed (PINSITE_SMARTFEED_BUDGET_MS, ...; see feed/smart/conf.py) ----------

PINSITE_SMARTFEED = env.numbers("PINSITE_SMARTFEED_", [
    "BUDGET_MS", "FIRST_BUDGET_MS", "VISIT_LINGER_MS", "POOL_CAP", "POOL_SLACK", "CHUNK_MIN",
    "CHUNK_MAX", "HOME_CAP", "HALF_LIFE_HOURS"])

# --- Domain events: the outbox relay (PINSITE_EVENTS_RELAY_BATCH, ...; see events/conf.py) -

PINSITE_EVENTS = env.numbers("PINSITE_EVENTS_", [
    "RELAY_BATCH", "RELAY_POLL_MS", "RELAY_GRACE_MS", "RETENTION_HOURS", "PUBLISH_BATCH",
    "PUBLISH_LINGER_MS", "MARK_INTERVAL_MS",
    "HOLD_BEFORE_PUBLISH_MS", "HOLD_BEFORE_MARK_MS"])

# --- Caches: objects and lists in separate pools (separate connection pools, separate DBs) ---

REDIS_CACHE = env.text("PINSITE_REDIS_CACHE", f"redis://{LOCAL}:{BASE + 379}")


def _cache(db: int, prefix: str, ignore_errors: bool = True, timeout: float = 2,
           **pool: Any) -> dict[str, Any]:
    return {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": env.redis_location(REDIS_CACHE, db),
        "KEY_PREFIX": prefix,
        "TIMEOUT": 24 * 3600,
        "OPTIONS": {
            "CLIENT_CLASS": "django_redis.client.DefaultClient",
            "SOCKET_CONNECT_TIMEOUT": timeout,
            "SOCKET_TIMEOUT": timeout,
            "IGNORE_EXCEPTIONS": ignore_errors,
            "CONNECTION_POOL_KWARGS": pool,
        },
    }


CACHES = {
    "default": _cache(0, "pinsite"),
    "objects": _cache(1, "obj"),
    "lists": _cache(2, "list"),
    # Credential attempt counters: errors raise, so the limits fail closed (pinsite.serving).
    "throttles": _cache(0, "throttle", ignore_errors=False),
    # The feeds' observations (feed.store.observations): its raw client runs Lua scripts on
    # strings, with short timeouts, and the callers decide what a failure means.
    "observations": _cache(env.number("PINSITE_FEED_OBSERVE_DB", 3), "obs", ignore_errors=False,
                           timeout=0.5, decode_responses=True),
}
DJANGO_REDIS_IGNORE_EXCEPTIONS = True
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# --- Queue ----------------------------------------------------------------------------------

AMQP_URL = env.text("PINSITE_AMQP_URL",
                    f"amqp://{credentials.AMQP_USER}:{credentials.AMQP_PASSWORD}"
                    f"@{LOCAL}:{BASE + 672}/%2F")

# --- Content --------------------------------------------------------------------------------

MEDIA_ROOT = Path(env.text("PINSITE_MEDIA_ROOT", str(VAR_DIR / "media")))
MEDIA_URL = "/media/"
PINSITE_SERVE_MEDIA = env.flag("PINSITE_SERVE_MEDIA", True)
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "pinsite" / "static"]
# WhiteNoise serves what ``collectstatic`` gathered (``runsite`` runs it), compressed, from
# every web worker; production settings add hashed names and far-future cache headers.
STORAGES = {
    "default": {"BACKEND": "pins.storage.PictureStorage"},  # the file system's, cheaper URLs
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# Request bodies have one limit, pinsite.serving.bodies.upload_limit() (the image limit plus
# the form's allowance, enforced before anything reads a body); Django's own is turned off.
DATA_UPLOAD_MAX_MEMORY_SIZE = None

PINSITE_CONTENT = {
    "MAX_IMAGE_BYTES": env.number("PINSITE_MAX_IMAGE_BYTES", 10 * 1024 * 1024),
    "MAX_IMAGE_PIXELS": 40_000_000,
    "THUMBNAIL_WIDTH": 236,
    "PAGE_SIZE": 50,
}

# --- Accounts: data exports (PINSITE_EXPORT_KEEP_DAYS, ...; see accounts/conf.py) ---------

PINSITE_ACCOUNTS = {
    # Private (never under MEDIA_ROOT, which is served), and shared by the web processes and
    # the queue workers, as MEDIA_ROOT is.
    "EXPORT_ROOT": env.text("PINSITE_EXPORT_ROOT", str(VAR_DIR / "exports")),
    **env.numbers("PINSITE_", ["EXPORT_KEEP_DAYS", "EXPORT_ATTEMPTS", "EXPORT_SWEEP_SECONDS",
                               "EXPORT_STALE_HOURS"]),
}

# --- Serving: the client address behind reverse proxies, who may read /metrics and /readyz
# (docs/deployment.md). Only the variables that are set; see pinsite/serving/conf.py.


def _serving() -> dict[str, Any]:
    found: dict[str, Any] = env.numbers("PINSITE_", ["TRUSTED_PROXIES"])
    if allow := env.text("PINSITE_STATUS_ALLOW", ""):
        found["STATUS_ALLOW"] = allow.split(",")
    if token := env.text("PINSITE_STATUS_TOKEN", env.text("PINSITE_METRICS_TOKEN", "")):
        found["STATUS_TOKEN"] = token
    if seconds := env.text("PINSITE_READY_CACHE_SECONDS", ""):
        found["READY_CACHE_SECONDS"] = float(seconds)
    return found


PINSITE_SERVING = _serving()

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "pinsite.api.authentication.PinnerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["pinsite.api.permissions.ReadOnlyOrPinner"],
    "DEFAULT_THROTTLE_CLASSES": ["pinsite.api.throttles.WriteThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "writes": env.text("PINSITE_API_WRITE_RATE", "120/minute"),
        "credentials": env.text("PINSITE_API_CREDENTIAL_RATE", "20/minute"),
    },
    "DEFAULT_PARSER_CLASSES": ["pinsite.api.parsers.BoundedJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["pinsite.api.renderers.FastJSONRenderer"],
    "EXCEPTION_HANDLER": "pinsite.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "pinsite.api.schema.PinsiteAutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "pinsite API",
    "DESCRIPTION": "Pinners, boards, pins, the follower graph and the following feed. "
                   "64-bit IDs are strings; lists are cursor-paginated; errors are JSON "
                   "`{code, detail[, fields]}`. See docs/api.md.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "pinsite.api.schema.document_conventions",
    ],
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# One line per event: pinsite's and kazoo's loggers write once and do not propagate (a queue
# worker's root logger has a handler of its own, which would print every line twice).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"line": {"format": "%(asctime)s %(levelname)s %(name)s [%(process)d] "
                                      "%(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line",
                             "filters": ["outages"]}},
    "filters": {"outages": {"()": "toolkit.logs.OutageLines"},
                "answered": {"()": "toolkit.logs.AnsweredOutages"}},
    "loggers": {
        # A queue message, a page or an API call that fails because a store is down: one
        # line, not a traceback; Django's own line for the 503 is left out.
        "dramatiq.worker.WorkerThread": {"filters": ["outages"]},
        "django.request": {"filters": ["answered"]},
        "pinsite": {"handlers": ["console"], "level": env.text("PINSITE_LOG_LEVEL", "INFO"),
                    "propagate": False},
        "kazoo": {"handlers": ["console"], "level": "WARNING", "propagate": False},
        # RabbitMQ's client logs every connection step at INFO: six lines a connection.
        "pika": {"level": "WARNING"},
    },
}
