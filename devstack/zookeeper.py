"""ZooKeeper, standalone, from Debian's jars (no zkServer.sh, no systemd)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from devstack import health
from devstack.process import find_program
from devstack.service import Service, write_if_changed

JAVA_DIR = Path("/usr/share/java")
JARS = ("zookeeper.jar", "zookeeper-jute.jar", "netty-buffer.jar", "netty-codec.jar",
        "netty-common.jar", "netty-handler.jar", "netty-resolver.jar", "netty-transport.jar",
        "netty-transport-native-epoll.jar", "netty-transport-native-unix-common.jar",
        "slf4j-api.jar", "slf4j-log4j12.jar", "log4j-1.2.jar", "metrics-core.jar",
        "snappy-java.jar", "commons-cli.jar")
MAIN_CLASS = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
LOG4J = """\
log4j.rootLogger=${zookeeper.root.logger}
log4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender
log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout
log4j.appender.CONSOLE.layout.ConversionPattern=%d{ISO8601} - %-5p [%t:%C{1}@%L] - %m%n
log4j.appender.ROLLINGFILE=org.apache.log4j.RollingFileAppender
log4j.appender.ROLLINGFILE.File=${zookeeper.log.dir}/zookeeper.log
log4j.appender.ROLLINGFILE.MaxFileSize=10MB
log4j.appender.ROLLINGFILE.MaxBackupIndex=3
log4j.appender.ROLLINGFILE.layout=org.apache.log4j.PatternLayout
log4j.appender.ROLLINGFILE.layout.ConversionPattern=%d{ISO8601} - %-5p [%t:%C{1}@%L] - %m%n
"""


class ZooKeeper(Service):
    """A standalone ZooKeeper server answering four-letter words on its client port."""

    kind: ClassVar[str] = "zookeeper"
    start_timeout: ClassVar[float] = 60.0
    stop_timeout: ClassVar[float] = 20.0

    @property
    def config_file(self) -> Path:
        return self.home / "zoo.cfg"

    @property
    def log4j_file(self) -> Path:
        return self.home / "log4j.properties"

    @property
    def marker(self) -> str:
        return str(self.config_file)

    def prepare(self) -> None:
        super().prepare()
        write_if_changed(self.config_file, self.render_config())
        write_if_changed(self.log4j_file, LOG4J)

    def render_config(self) -> str:
        """The ``zoo.cfg`` of this standalone server."""
        settings = {
            "tickTime": "2000", "dataDir": str(self.data_dir), "clientPort": str(self.port),
            "clientPortAddress": self.host, "maxClientCnxns": "0",
            "4lw.commands.whitelist": "ruok,srvr,stat,mntr", "admin.enableServer": "false",
            "autopurge.snapRetainCount": "3", "autopurge.purgeInterval": "1",
        }
        return "".join(f"{key}={value}\n" for key, value in settings.items())

    def command(self) -> list[str]:
        return [
            find_program("java"), "-Xmx256m", "-Xms64m", "-XX:+UseSerialGC",
            "-Djava.net.preferIPv4Stack=true", "-cp", classpath(),
            "-Dzookeeper.admin.enableServer=false", f"-Dzookeeper.log.dir={self.log_dir}",
            "-Dzookeeper.root.logger=INFO,ROLLINGFILE",
            f"-Dlog4j.configuration=file:{self.log4j_file}", MAIN_CLASS, str(self.config_file),
        ]

    def log_files(self) -> list[Path]:
        return [self.log_dir / "zookeeper.log", self.console_log]

    def probe(self) -> bool:
        return health.zookeeper_ok(self.host, self.port)


def classpath() -> str:
    """Debian's ZooKeeper jar with what it needs to run and to log through log4j 1.2."""
    return ":".join(str(JAVA_DIR / jar) for jar in JARS if (JAVA_DIR / jar).exists())
