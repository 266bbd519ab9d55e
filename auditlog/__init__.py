"""The operator audit log: every operation that changes the system's shape or contents from
outside a pinner's own actions (promotions, splits, moves, hosts, ranges, rebuilds, imports,
staff deletions), with who, when, what, the target, the arguments, the outcome and how long
it took (``docs/operations.md``, "The operator audit log")."""
