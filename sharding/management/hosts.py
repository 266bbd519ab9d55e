"""``hosts add|remove|show``, the registry subcommand that ``manage.py shards`` (MySQL shard
hosts) and ``manage.py graph`` (Redis instances) share; each says how to reach a host of its
kind and which hosts its map names. Adding and removing a host (refusals too) are recorded in
the operator audit log.

>>> add_hosts_subcommand(self, subparsers, parent)       # in add_subcommands
>>> run_hosts_subcommand(self, HostKind(...), **options)  # in handle_hosts
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.management.base import CommandError, CommandParser

from auditlog.operations import operation
from coordination import registry
from toolkit.commands import SubcommandCommand

AREAS = {"mysql": "shards", "redis": "graph"}
"""How the operator audit log names each kind's hosts: ``shards.hosts.add``,
``graph.hosts.remove``."""


@dataclass(frozen=True)
class HostKind:
    """What the subcommand needs to know of one kind of host."""

    kind: str                                    # the registry's kind: "mysql" or "redis"
    configured: Callable[[], dict[str, registry.Address]]
    roles: Callable[[], dict[str, str]]          # name → its role in the map (names in use)
    unreachable: Callable[[registry.Address], str | None]  # why it cannot be reached, or None
    map_name: str                                # "shard map", "vshard map"


def add_hosts_subcommand(command: SubcommandCommand, subparsers: Any,
                         parent: CommandParser) -> None:
    hosts = command.add_subparser(subparsers, parent, "hosts",
                                  "register hosts in ZooKeeper, remove them, list them")
    actions = hosts.add_subparsers(dest="hosts_action", required=True,
                                   parser_class=type(parent), metavar="ACTION")
    add = command.add_subparser(actions, parent, "add",
                                "register NAME at HOST:PORT (it must answer)", json_output=True)
    add.add_argument("name", metavar="NAME")
    add.add_argument("address", metavar="HOST:PORT")
    remove = command.add_subparser(actions, parent, "remove",
                                   "unregister NAME (no map may name it)", json_output=True)
    remove.add_argument("name", metavar="NAME")
    command.add_subparser(actions, parent, "show", "the registered hosts and their roles",
                          json_output=True)


def run_hosts_subcommand(command: SubcommandCommand, kind: HostKind, hosts_action: str,
                         json: bool = False, **options: Any) -> None:
    if hosts_action == "add":
        if not registry.NAME.fullmatch(options["name"]):
            raise CommandError(f"{options['name']!r} is not a host name (lowercase letters, "
                               "digits and _, starting with a letter)")
        address = _address(options["address"])
        with operation(f"{AREAS[kind.kind]}.hosts.add", options["name"],
                       {"address": f"{address[0]}:{address[1]}"}):
            why = kind.unreachable(address)
            if why is not None:
                raise CommandError(f"{options['name']} at {options['address']} does not "
                                   f"answer ({why}); nothing was registered")
            registry.add(kind.kind, options["name"], address)
        _done(command, json, f"registered {options['name']} at {address[0]}:{address[1]}",
              {"name": options["name"], "address": f"{address[0]}:{address[1]}"})
    elif hosts_action == "remove":
        name = options["name"]
        with operation(f"{AREAS[kind.kind]}.hosts.remove", name):
            role = kind.roles().get(name)
            if role is not None:
                raise CommandError(f"{name} is a {role} in the {kind.map_name}: move its "
                                   "ranges away (or detach it) first")
            registry.remove(kind.kind, name)
        _done(command, json, f"removed {name}", {"name": name})
    else:
        _show(command, kind, json)


def _show(command: SubcommandCommand, kind: HostKind, json: bool) -> None:
    registered, configured, roles = (registry.registered(kind.kind), kind.configured(),
                                     kind.roles())
    rows = [{"name": name, "address": f"{address[0]}:{address[1]}",
             "role": roles.get(name), "configured": name in configured}
            for name, address in sorted(registered.items())]
    if json:
        command.print_json(rows)
        return
    if not rows:
        command.stdout.write(f"no {kind.kind} hosts registered yet (the init command seeds "
                             "them from the configuration)")
    command.stdout.write(f"{'name':<14} {'address':<22} {'role':<9} seeded from configuration")
    for row in rows:
        command.stdout.write(f"{row['name']:<14} {row['address']:<22} {row['role'] or '-':<9} "
                             f"{'yes' if row['configured'] else 'no'}")


def _done(command: SubcommandCommand, json: bool, text: str, value: dict[str, Any]) -> None:
    if json:
        command.print_json(value)
    else:
        command.stdout.write(text)


def _address(text: str) -> registry.Address:
    try:
        return registry.parse_address(text)
    except registry.RegistryError as exc:
        raise CommandError(str(exc)) from exc
