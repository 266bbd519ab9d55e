"""Rebuild a MariaDB replica from scratch from a (new) master, e.g. after a failover.

The old data is wiped, a fresh instance is installed, the master's consistent dump (with its
GTID position) is loaded without binary logging, and replication starts at that GTID.
"""

from __future__ import annotations

import shutil
import subprocess

from devstack.errors import CommandFailed
from devstack.mariadb import MariaDB, change_master_sql
from devstack.process import find_program
from devstack.service import REPLICA

DUMP_OPTIONS = ("--all-databases", "--gtid", "--master-data=1", "--single-transaction",
                "--routines", "--events", "--triggers", "--flush-privileges",
                "--ignore-table=mysql.gtid_slave_pos")


def reclone(replica: MariaDB, master: MariaDB) -> None:
    """Make ``replica`` a fresh, replicating copy of the running ``master``."""
    replica.stop()
    replica.role, replica.master = REPLICA, master
    replica.gtid_domain_id = master.gtid_domain_id
    replica.install_marker.unlink(missing_ok=True)
    shutil.rmtree(replica.data_dir, ignore_errors=True)
    replica.ensure_running()
    replica.sql(replica.users_sql())
    copy_data(master, replica)
    replica.sql(change_master_sql(master) + "; START SLAVE")
    replica.mark_bootstrapped()
    replica.wait_replicating()


def copy_data(master: MariaDB, replica: MariaDB) -> None:
    """Pipe ``mariadb-dump`` of ``master`` into ``replica`` with ``sql_log_bin=0``."""
    log_path = replica.log_dir / "reclone.log"
    dump_argv = [find_program("mariadb-dump"), "--no-defaults", *master.admin_login().args(),
                 *DUMP_OPTIONS]
    load_argv = [find_program("mariadb"), "--no-defaults", *replica.root_login().args(),
                 "--init-command=SET SESSION sql_log_bin=0"]
    with open(log_path, "wb") as log:
        dump = subprocess.Popen(dump_argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=log, env=master.admin_login().environ())
        load = subprocess.run(load_argv, stdin=dump.stdout, stdout=log, stderr=log,
                              env=replica.root_login().environ(), check=False)
        if dump.stdout is not None:
            dump.stdout.close()
        dump_code = dump.wait()
    if dump_code != 0 or load.returncode != 0:
        raise CommandFailed(f"reclone of {replica.name} from {master.name} failed "
                            f"(dump {dump_code}, load {load.returncode}); see {log_path}")
