"""Tools every app's commands and benchmarks share: subcommands, JSON output, progress bars,
latency percentiles and rates. The bottom layer: it imports no pinsite app."""
