"""The Redis store of the graph: the only package that talks to redis-py.

``connections`` keeps one pool per instance per process, ``errors`` turns driver errors into
:mod:`graph.exceptions`, ``scripts`` holds the Lua updates, ``writes`` applies them to a
vshard's master (with retries, map refresh and dual writes during a move), ``reads`` answers
queries, and ``admin`` serves the operations (verify, rebuild, move, promote, bench).
"""
