"""Durable domain events: a transactional outbox on every shard host and the relay that
publishes it to the queue.

An action records its events in the transaction of the change they announce
(:func:`events.record.record`); right after the commit the same process publishes them (the
fast path); whatever that misses (the broker was down, the process died) the relay publishes
from the outbox. Subscribers turn an event into queue messages (:mod:`events.registry`).
"""
