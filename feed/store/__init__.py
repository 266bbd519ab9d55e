"""The feed's HBase store wrapper: the only package that imports ``happybase``.

``pools`` owns one connection pool per cluster per process (created lazily, after fork) and
turns driver errors into :mod:`feed.exceptions`; ``tables`` creates the table; ``cells`` reads
and writes rows of bytes. Everything above it speaks :mod:`feed.schema` entries.
"""
