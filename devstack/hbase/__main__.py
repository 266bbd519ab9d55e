"""``python -m devstack.hbase --port 9090 --data DIR``: run the HBase Thrift development server."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from devstack.hbase.errors import StorageError
from devstack.hbase.server import ServerConfig, run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m devstack.hbase",
                                     description="HBase Thrift1 development server (happybase's "
                                                 "Hbase.thrift, binary protocol, buffered).")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=9090, help="TCP port (default 9090)")
    parser.add_argument("--data", type=Path, required=True,
                        help="folder for the snapshot and the write-ahead log")
    parser.add_argument("--fsync", choices=("always", "never"), default="always",
                        help="fsync the log before acknowledging each call (default), or leave "
                             "it to the OS: a killed server loses nothing either way, a "
                             "crashed machine may lose recent writes with 'never'")
    parser.add_argument("--snapshot-interval", type=float, default=300.0, metavar="SECONDS",
                        help="snapshot this often when something was written (default 300)")
    parser.add_argument("--snapshot-log-mb", type=float, default=64.0, metavar="MB",
                        help="snapshot when the log has grown this much (default 64)")
    parser.add_argument("--log-level", default="INFO", help="logging level (default INFO)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = ServerConfig(host=args.host, port=args.port, data=args.data,
                          sync=args.fsync == "always", snapshot_interval=args.snapshot_interval,
                          snapshot_log_bytes=int(args.snapshot_log_mb * (1 << 20)))
    try:
        run(config)
    except (StorageError, OSError) as error:
        logging.getLogger("devstack.hbase").error("cannot serve: %s", error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
