"""What every app shares below the domain: the task queue (Dramatiq on RabbitMQ), and the
tools of the commands and benchmarks (subcommands, JSON output, progress bars, latency
percentiles and rates). The bottom layer: it imports no pinsite app."""
