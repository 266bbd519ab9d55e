"""The benchmarks: each component's figures beside the raw ceiling of the store underneath,
measured in the same run (``manage.py bench NAME``).

The top layer: a bench drives the apps' actions and the raw drivers it measures against, and
may start servers of its own with ``devstack``; no app imports this package. One module per
bench (:data:`benchmarks.suite.BENCHES`), each declaring ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(..., progress)``; the modules they share are
:mod:`benchmarks.measure` (percentiles, rates, ratios, a quiet machine),
:mod:`benchmarks.feed_scratch` and the throwaway-pair helpers of
:mod:`benchmarks.failover_mysql`.
"""
