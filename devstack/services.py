"""The one place that defines the local stack: which services, kinds, roles and ports.

Adding a service is one entry here (and, for a new kind, one small
:class:`~devstack.service.Service` subclass with its hooks).
"""

from __future__ import annotations

import json
import re

from devstack.errors import DevstackError
from devstack.hbase.config import ClusterPorts
from devstack.hbase.service import HBaseServer, HBaseThrift
from devstack.mariadb import MariaDB
from devstack.mysql_client import ADMIN_PASSWORD, ADMIN_USER, APP_PASSWORD, APP_USER
from devstack.profile import Profile
from devstack.rabbitmq import PASSWORD as AMQP_PASSWORD
from devstack.rabbitmq import USER as AMQP_USER
from devstack.rabbitmq import RabbitMQ
from devstack.redis import Redis
from devstack.sentinel import Sentinel
from devstack.service import MASTER, REPLICA, Service
from devstack.zookeeper import ZooKeeper

# (name, port offset) of single servers; (master, offset, replica, offset) of pairs.
MYSQL_SINGLE = ("mysql000", 306)
MYSQL_PAIRS = (("mysql001a", 311, "mysql001b", 312), ("mysql002a", 321, "mysql002b", 322))
REDIS_CACHE = ("redis000", 379)
REDIS_PAIRS = (("redis001a", 381, "redis001b", 382), ("redis002a", 391, "redis002b", 392))
SENTINELS = (("sentinel1", 401), ("sentinel2", 402), ("sentinel3", 403))
ZOOKEEPER_OFFSET = 181
AMQP_OFFSET, DIST_OFFSET, EPMD_OFFSET = 672, 673, 369
SERVING_PROFILE = "dev"
"""The stack that serves for hours (``make run``, the benches): its HBase JVMs keep HotSpot's
C2 compiler (:data:`devstack.hbase.service.QUICK_JIT`)."""
HBASE_CLUSTERS = (("hbase1", 90, "primary"), ("hbase2", 91, "standby"), ("hbase3", 92, "pools"))
"""(gateway, Thrift port offset, role) of each HBase cluster; its server JVM, ``<gateway>-server``,
takes offsets 1N0 to 1N3 (hbase1: 110 master, 111 master web UI, 112 region server, 113
ZooKeeper)."""
DJANGO_DATABASE = "pinsite"
EXTRA_PAIRS_FILE = "pairs.json"
EXTRA_PAIR = {"mysql": re.compile(r"mysql00([3-9])"), "redis": re.compile(r"redis00([3-9])")}
"""Pairs added on demand (``add-pair``): mysql003…mysql009 at offsets 7N1 and 7N2 (mysql003:
731, 732), redis003…redis009 at 5N1 and 5N2 (redis003: 531, 532)."""


def build_services(profile: Profile) -> dict[str, Service]:
    """All services of ``profile`` by name, masters before their replicas."""
    services: list[Service] = [_mysql_single(profile)]
    for domain, pair in enumerate(MYSQL_PAIRS, start=1):
        services += _mysql_pair(profile, pair, domain)
    services.append(Redis(REDIS_CACHE[0], profile.port(REDIS_CACHE[1]),
                          profile.var_dir / REDIS_CACHE[0], host=profile.host(REDIS_CACHE[0])))
    for domain, pair in enumerate(extra_pairs(profile, "mysql"), start=len(MYSQL_PAIRS) + 1):
        services += _mysql_pair(profile, pair, domain)
    pairs = [_redis_pair(profile, pair) for pair in (*REDIS_PAIRS,
                                                     *extra_pairs(profile, "redis"))]
    for pair_services in pairs:
        services += pair_services
    groups = [(sentinel_group(master.name), (master, replica)) for master, replica in pairs]
    services += [Sentinel(name, profile.port(offset), profile.var_dir / name, groups=groups,
                          host=profile.host(name)) for name, offset in SENTINELS]
    services += [
        ZooKeeper("zookeeper", profile.port(ZOOKEEPER_OFFSET), profile.var_dir / "zookeeper",
                  host=profile.host("zookeeper")),
        RabbitMQ("rabbitmq", profile.port(AMQP_OFFSET), profile.var_dir / "rabbitmq",
                 nodename=f"pinsite-{profile.name}@localhost",
                 dist_port=profile.port(DIST_OFFSET), epmd_port=profile.port(EPMD_OFFSET),
                 host=profile.host("rabbitmq")),
    ]
    for number, (name, offset, role) in enumerate(HBASE_CLUSTERS, start=1):
        services += _hbase_cluster(profile, name, offset, role, number)
    return {service.name: service for service in services}


def _mysql_single(profile: Profile) -> MariaDB:
    name, offset = MYSQL_SINGLE
    return MariaDB(name, profile.port(offset), profile.var_dir / name, server_id=offset,
                   database=DJANGO_DATABASE, host=profile.host(name))


def _mysql_pair(profile: Profile, pair: tuple[str, int, str, int], domain: int) -> list[Service]:
    master_name, master_offset, replica_name, replica_offset = pair
    master = MariaDB(master_name, profile.port(master_offset), profile.var_dir / master_name,
                     role=MASTER, server_id=master_offset, gtid_domain_id=domain,
                     host=profile.host(master_name))
    replica = MariaDB(replica_name, profile.port(replica_offset), profile.var_dir / replica_name,
                      role=REPLICA, master=master, server_id=replica_offset,
                      gtid_domain_id=domain, host=profile.host(replica_name))
    return [master, replica]


def _hbase_cluster(profile: Profile, name: str, offset: int, role: str,
                   number: int) -> list[Service]:
    server_name = f"{name}-server"
    base = 100 + 10 * number
    ports = ClusterPorts(*(profile.port(base + n) for n in range(4)))
    server = HBaseServer(server_name, ports, profile.var_dir / server_name, role=role,
                         host=profile.host(server_name))
    gateway = HBaseThrift(name, profile.port(offset), profile.var_dir / name, cluster=server,
                          role=role, host=profile.host(name))
    for jvm in (server, gateway):
        jvm.quick_jit = profile.name != SERVING_PROFILE
    return [server, gateway]


def extra_pairs(profile: Profile, kind: str) -> list[tuple[str, int, str, int]]:
    """The pairs of ``kind`` added on demand to ``profile`` (``var/<profile>/pairs.json``)."""
    try:
        names = json.loads((profile.var_dir / EXTRA_PAIRS_FILE).read_text()).get(kind, [])
    except (OSError, ValueError):
        return []
    return [extra_pair(kind, name) for name in names]


def extra_pair(kind: str, name: str) -> tuple[str, int, str, int]:
    """``(master, offset, replica, offset)`` of the added pair ``name`` (``mysql003``)."""
    pattern = EXTRA_PAIR.get(kind)
    found = pattern.fullmatch(name) if pattern else None
    if found is None:
        raise DevstackError(f"a {kind} pair to add is named "
                            f"{'mysql003' if kind == 'mysql' else 'redis003'} … "
                            f"{'mysql009' if kind == 'mysql' else 'redis009'}, not {name!r}")
    base = (700 if kind == "mysql" else 500) + 10 * int(found.group(1))
    return f"{name}a", base + 1, f"{name}b", base + 2


def pair_partner(profile: Profile, name: str) -> str | None:
    """The other server of the MariaDB or Redis pair ``name`` belongs to (None: no pair)."""
    pairs = (*MYSQL_PAIRS, *REDIS_PAIRS, *extra_pairs(profile, "mysql"),
             *extra_pairs(profile, "redis"))
    for first, _, second, _ in pairs:
        if name in (first, second):
            return second if name == first else first
    return None


def record_extra_pair(profile: Profile, kind: str, name: str) -> bool:
    """Add ``name`` to the profile's added pairs; False when it was there already."""
    extra_pair(kind, name)
    path = profile.var_dir / EXTRA_PAIRS_FILE
    try:
        recorded = json.loads(path.read_text())
    except (OSError, ValueError):
        recorded = {}
    names = recorded.setdefault(kind, [])
    if name in names:
        return False
    names.append(name)
    profile.var_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")
    return True


def sentinel_group(master_name: str) -> str:
    """The Sentinel group of a graph pair: its master's name without the last letter
    (``redis001a`` → ``redis001``)."""
    return master_name[:-1]


def _redis_pair(profile: Profile, pair: tuple[str, int, str, int]) -> tuple[Redis, Redis]:
    master_name, master_offset, replica_name, replica_offset = pair
    master = Redis(master_name, profile.port(master_offset), profile.var_dir / master_name,
                   role=MASTER, persistent=True, host=profile.host(master_name))
    replica = Redis(replica_name, profile.port(replica_offset), profile.var_dir / replica_name,
                    role=REPLICA, master=master, persistent=True, host=profile.host(replica_name))
    return master, replica


def settings_env(profile: Profile, services: dict[str, Service]) -> dict[str, str]:
    """The environment variables the Django settings read, for this stack."""
    def address(name: str) -> str:
        return f"{services[name].host}:{services[name].port}"

    def hosts(pairs: tuple[tuple[str, int, str, int], ...]) -> str:
        return ",".join(f"{name}={address(name)}" for pair in pairs for name in (pair[0], pair[2]))

    def pairing(pairs: tuple[tuple[str, int, str, int], ...]) -> str:
        return ",".join(f"{pair[0]}:{pair[2]}" for pair in pairs)

    return {
        "PINSITE_PROFILE": profile.name,
        "PINSITE_VAR": str(profile.var_dir),
        "PINSITE_DB_DEFAULT": address(MYSQL_SINGLE[0]),
        "PINSITE_MYSQL_USER": APP_USER,
        "PINSITE_MYSQL_PASSWORD": APP_PASSWORD,
        "PINSITE_MYSQL_ADMIN_USER": ADMIN_USER,
        "PINSITE_MYSQL_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "PINSITE_SHARD_HOSTS": hosts(MYSQL_PAIRS),
        "PINSITE_SHARD_PAIRS": pairing(MYSQL_PAIRS),
        "PINSITE_REDIS_CACHE": f"redis://{address(REDIS_CACHE[0])}",
        "PINSITE_REDIS_GRAPH_HOSTS": hosts(REDIS_PAIRS),
        "PINSITE_REDIS_GRAPH_PAIRS": pairing(REDIS_PAIRS),
        "PINSITE_REDIS_SENTINELS": ",".join(address(name) for name, _ in SENTINELS),
        "PINSITE_ZK_HOSTS": address("zookeeper"),
        "PINSITE_AMQP_URL": f"amqp://{AMQP_USER}:{AMQP_PASSWORD}@{address('rabbitmq')}/%2F",
        "PINSITE_HBASE_PRIMARY": address(HBASE_CLUSTERS[0][0]),
        "PINSITE_HBASE_STANDBY": address(HBASE_CLUSTERS[1][0]),
        "PINSITE_HBASE_POOLS": address(HBASE_CLUSTERS[2][0]),
    }
