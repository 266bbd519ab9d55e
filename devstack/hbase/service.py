"""The two devstack services of one Apache HBase cluster.

* :class:`HBaseServer` (``hbase1-server``): HBase's standalone mode, the master, one region
  server and the cluster's own ZooKeeper in one JVM, storing under ``data/``.
* :class:`HBaseThrift` (``hbase1``): the Thrift (v1) gateway the application speaks to, in a
  JVM of its own that finds the cluster through its ZooKeeper; it is healthy when a real
  ``getTableNames`` call succeeds, which needs an initialised master.

Killing the cluster's processes is killing both; killing only ``hbase1-server`` is losing
the region server behind a gateway that stays up.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from devstack import health
from devstack.hbase import probe, runtime
from devstack.hbase.config import (
    ClusterPorts,
    gateway_site,
    render_log4j2,
    render_site,
    server_site,
)
from devstack.service import SINGLE, Service, write_if_changed

# What HBase's own start script adds on Java 11 and later (bin/hbase, add_jdk11_jvm_flags).
JDK11_FLAGS = [
    "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
    "--add-modules", "jdk.unsupported",
    *[flag for package in ("java.io", "java.nio", "sun.nio.ch", "java.lang", "jdk.internal.ref",
                           "java.lang.reflect", "java.util", "java.util.concurrent")
      for flag in ("--add-opens", f"java.base/{package}=ALL-UNNAMED")],
    *[flag for export in ("java.base/jdk.internal.misc", "java.security.jgss/sun.security.krb5",
                          "java.base/sun.net.dns", "java.base/sun.net.util")
      for flag in ("--add-exports", f"{export}=ALL-UNNAMED")],
]
# The C1 compiler only, for stacks that live minutes (the test stack): on two cores shared by
# six HBase JVMs, C2's compiler threads took about half of a young JVM's CPU, more than its
# faster code gave back. Without them the test stack's three clusters start in 31 s instead of
# 52 s (55 CPU-seconds instead of 91), and the suite's HBase scenarios run in 175 s instead of
# 240 s (docs/hbase.md, "Sized and measured"). A stack that serves for hours (``dev``) keeps
# C2: once warm, a feed row read costs its cluster a third of the CPU (docs/decisions.md).
QUICK_JIT = ["-XX:TieredStopAtLevel=1"]
MASTER_CLASS = "org.apache.hadoop.hbase.master.HMaster"
THRIFT_CLASS = "org.apache.hadoop.hbase.thrift.ThriftServer"


class _HBaseJVM(Service):
    """A JVM of HBase's, configured from ``conf/`` in its home."""

    heap: ClassVar[list[str]] = []
    quick_jit = True
    """C1 only (:data:`QUICK_JIT`); False for a stack that serves for hours."""

    @property
    def conf_dir(self) -> Path:
        return self.home / "conf"

    @property
    def marker(self) -> str:
        return f"-Dpinsite.devstack.home={self.home}"

    @property
    def log_file(self) -> Path:
        return self.log_dir / f"{self.kind}.log"

    def site(self) -> dict[str, str]:
        raise NotImplementedError

    def prepare(self) -> None:
        super().prepare()
        write_if_changed(self.conf_dir / "hbase-site.xml", render_site(self.site()))
        write_if_changed(self.conf_dir / "log4j2.properties", render_log4j2(self.log_file))

    def main(self) -> list[str]:
        """The main class and its arguments."""
        raise NotImplementedError

    def before_start(self) -> None:
        """Fetch HBase on first use; refuse to start without a Java it supports."""
        try:
            runtime.classpath()
            runtime.java()
        except runtime.HBaseRuntimeError as error:
            raise self.failure(str(error), logs=[]) from error

    def command(self) -> list[str]:
        return [
            runtime.java(), self.marker, *self.heap, "-XX:+UseSerialGC",
            *(QUICK_JIT if self.quick_jit else []),
            "-XX:PerfDataSamplingInterval=1000",
            "-XX:OnOutOfMemoryError=kill -9 %p", "-Djava.net.preferIPv4Stack=true",
            *JDK11_FLAGS,
            "-Djava.util.logging.config.class="
            "org.apache.hadoop.hbase.logging.JulToSlf4jInitializer",
            f"-Dlog4j2.configurationFile={self.conf_dir / 'log4j2.properties'}",
            f"-Dhbase.log.dir={self.log_dir}", f"-Dhbase.home.dir={self.home}",
            "-cp", f"{self.conf_dir}:{runtime.classpath()}", *self.main(),
        ]

    def log_files(self) -> list[Path]:
        return [self.log_file, self.console_log]


class HBaseServer(_HBaseJVM):
    """The cluster: master, region server and ZooKeeper of HBase's standalone mode."""

    kind: ClassVar[str] = "hbase-server"
    start_timeout: ClassVar[float] = 180.0
    # A clean stop closes the regions, flushing their memstores.
    stop_timeout: ClassVar[float] = 90.0
    heap: ClassVar[list[str]] = ["-Xms256m", "-Xmx768m", "-XX:MaxDirectMemorySize=256m"]

    def __init__(self, name: str, ports: ClusterPorts, home: Path, *, role: str = SINGLE,
                 host: str = "127.0.0.1") -> None:
        super().__init__(name, ports.zookeeper, home, role=role, host=host)
        self.ports = ports

    def main(self) -> list[str]:
        return [MASTER_CLASS, "start"]

    def site(self) -> dict[str, str]:
        return server_site(self.host, self.ports, self.home)

    def listen_addresses(self) -> list[tuple[str, int]]:
        return [(self.host, port) for port in self.ports.all()]

    def probe(self) -> bool:
        """The cluster's ZooKeeper answers and its region server listens (the gateway's
        probe is the one that proves the master initialised)."""
        return (health.zookeeper_ok(self.host, self.ports.zookeeper)
                and health.port_open(self.host, self.ports.regionserver))


class HBaseThrift(_HBaseJVM):
    """The cluster's Thrift (v1) gateway: thread-pool server, buffered transport, binary
    protocol, which is what happybase speaks by default."""

    kind: ClassVar[str] = "hbase"
    start_timeout: ClassVar[float] = 180.0
    stop_timeout: ClassVar[float] = 30.0
    heap: ClassVar[list[str]] = ["-Xms64m", "-Xmx256m"]

    def __init__(self, name: str, port: int, home: Path, *, cluster: HBaseServer,
                 role: str = SINGLE, host: str = "127.0.0.1") -> None:
        super().__init__(name, port, home, role=role, host=host)
        self.cluster = cluster

    @property
    def depends_on(self) -> list[Service]:
        return [self.cluster]

    def main(self) -> list[str]:
        return [THRIFT_CLASS, "-threadpool", "-b", self.host, "-p", str(self.port), "start"]

    def site(self) -> dict[str, str]:
        return gateway_site(self.cluster.host, self.cluster.ports)

    def probe(self) -> bool:
        return probe.cluster_serving(self.host, self.port)
