"""The configuration files of one HBase cluster: ``hbase-site.xml`` and ``log4j2.properties``.

A cluster is HBase's standalone mode (the master, one region server and the cluster's own
ZooKeeper in one JVM, storing on the local file system) and a Thrift (v1) gateway in a second
JVM that finds the cluster through that ZooKeeper, as a production gateway does.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

DISABLED = -1


@dataclass(frozen=True)
class ClusterPorts:
    """The ports of one cluster's server JVM (the gateway's own port is its service's)."""

    master: int
    master_ui: int
    regionserver: int
    zookeeper: int

    def all(self) -> list[int]:
        return [self.master, self.master_ui, self.regionserver, self.zookeeper]


def server_site(host: str, ports: ClusterPorts, home: Path) -> dict[str, str]:
    """``hbase-site.xml`` of a cluster's server JVM: standalone, on the local file system."""
    data = home / "data"
    return {
        "hbase.cluster.distributed": "false",
        "hbase.rootdir": (data / "hbase").as_uri(),
        "hbase.tmp.dir": str(home / "tmp"),
        "hbase.zookeeper.property.dataDir": str(data / "zookeeper"),
        # The local file system offers no hsync; a WAL flush still reaches the kernel before a
        # put is acknowledged, so a killed JVM loses nothing acknowledged (docs/hbase.md).
        "hbase.unsafe.stream.capability.enforce": "false",
        **_zookeeper(host, ports),
        "hbase.zookeeper.property.clientPortAddress": zookeeper_bind_address(host),
        "hbase.localcluster.assign.random.ports": "false",
        "hbase.master.port": str(ports.master),
        "hbase.master.info.port": str(ports.master_ui),
        "hbase.master.info.bindAddress": host,
        "hbase.regionserver.port": str(ports.regionserver),
        "hbase.regionserver.info.port": str(DISABLED),
        "hbase.master.hostname": host,
        "hbase.unsafe.regionserver.hostname": host,
        "hbase.master.ipc.address": host,
        "hbase.regionserver.ipc.address": host,
        # One region server: the master need not wait 4.5 s for others to check in.
        "hbase.master.wait.on.regionservers.mintostart": "1",
        "hbase.master.wait.on.regionservers.maxtostart": "1",
        # Sized for a 2-core machine that runs three clusters per profile.
        "hbase.regionserver.handler.count": "16",
        "hbase.regionserver.metahandler.count": "4",
        "hbase.regionserver.replication.handler.count": "1",
        "hbase.master.procedure.threads": "4",
        "hbase.hstore.flusher.count": "1",
        "hbase.hregion.memstore.mslab.enabled": "false",
        "hbase.procedure.remote.dispatcher.delay.msec": "20",
        # Less periodic work while idle: metrics, flush and compaction checks, the balancer,
        # normalizer and janitors of a one-server cluster. (The region server's 3 s report
        # stays: `devstack hbase … major-compact` waits on the compaction time it carries.)
        "hbase.regionserver.metrics.period": "60000",
        "hbase.server.thread.wakefrequency": "30000",
        "hbase.regionserver.compaction.check.period": "60000",
        "hbase.regionserver.flush.check.period": "60000",
        "hbase.balancer.period": "3600000",
        "hbase.normalizer.period": "3600000",
        "hbase.catalogjanitor.interval": "1800000",
        "hbase.master.hbck.chore.interval": "-1",
        "hbase.netty.worker.count": "2",
    }


def zookeeper_bind_address(host: str) -> str:
    """Where the cluster's own ZooKeeper listens: ``host`` if it is a loopback address, else
    every address of the host. Standalone HBase waits for its ZooKeeper on ``localhost``, so a
    cluster bound to another address (a network namespace of the many-hosts test) must also
    listen there."""
    return host if ipaddress.ip_address(host).is_loopback else "0.0.0.0"


def gateway_site(cluster_host: str, ports: ClusterPorts) -> dict[str, str]:
    """``hbase-site.xml`` of a cluster's Thrift gateway: its client of the cluster fails a call
    within 3 s, under the application's 5 s socket timeout, when the region server is gone."""
    return {
        **_zookeeper(cluster_host, ports),
        "hbase.thrift.info.port": str(DISABLED),
        # Pooled application connections may idle for minutes between calls.
        "hbase.thrift.server.socket.read.timeout": "0",
        "hbase.regionserver.thrift.framed": "false",
        "hbase.regionserver.thrift.compact": "false",
        "hbase.client.pause": "50",
        "hbase.client.retries.number": "5",
        "hbase.rpc.timeout": "2000",
        "hbase.client.operation.timeout": "3000",
        "hbase.client.meta.operation.timeout": "3000",
        "zookeeper.recovery.retry": "1",
        "hbase.thrift.connection.cleanup-interval": "60000",
        "hbase.netty.eventloop.rpcclient.thread.count": "2",
    }


def _zookeeper(host: str, ports: ClusterPorts) -> dict[str, str]:
    return {"hbase.zookeeper.quorum": host,
            "hbase.zookeeper.property.clientPort": str(ports.zookeeper)}


def render_site(settings: dict[str, str]) -> str:
    properties = "".join(
        f"  <property><name>{escape(name)}</name><value>{escape(value)}</value></property>\n"
        for name, value in settings.items())
    return f'<?xml version="1.0"?>\n<configuration>\n{properties}</configuration>\n'


def render_log4j2(log_file: Path) -> str:
    """Everything at INFO to a rolling ``log_file``; warnings also to the console log."""
    return f"""\
status = warn
dest = err
name = devstack
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = {log_file}
appender.file.filePattern = {log_file}.%i
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{ISO8601}} %-5p [%t] %c{{2}}: %.1000m%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 10MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 3
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{{ISO8601}} %-5p [%t] %c{{2}}: %.1000m%n
appender.console.filter.threshold.type = ThresholdFilter
appender.console.filter.threshold.level = warn
rootLogger = INFO, file, console
logger.zookeeper.name = org.apache.zookeeper
logger.zookeeper.level = WARN
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = WARN
logger.hbase.name = org.apache.hadoop.hbase
logger.hbase.level = INFO
logger.metrics.name = org.apache.hadoop.metrics2
logger.metrics.level = ERROR
"""
