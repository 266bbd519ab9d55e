"""The web UI: Django templates with progressive enhancement."""
