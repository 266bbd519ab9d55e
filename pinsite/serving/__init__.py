"""How the site is served: the production server's configuration (gunicorn), the metrics and
health endpoints a load balancer and Prometheus read, and the request metrics middleware."""
