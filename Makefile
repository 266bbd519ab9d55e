# pinsite: `make run` serves the site on its local stack; `make test` runs the whole suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
MANAGE := $(PY) manage.py
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test stop setup bytecode stack test-stack lint bench-shards
# Our own packages, compiled ahead: with PYTHONDONTWRITEBYTECODE set (as on our machines) every
# manage.py, worker and test subprocess would otherwise compile them again (0.5 s of CPU each).
SOURCES := accounts auditlog benchmarks coordination devstack events feed graph legacy pins pinsite sharding toolkit \
	tests manage.py

$(STAMP): pyproject.toml
	$(PYTHON) -m devstack packages
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

bytecode: setup
	$(PY) -m compileall -q $(SOURCES)

stack: bytecode
	$(PYTHON) -m devstack --profile dev up
	PINSITE_PROFILE=dev $(MANAGE) migrate --noinput
	PINSITE_PROFILE=dev $(MANAGE) shards init
	PINSITE_PROFILE=dev $(MANAGE) graph init
	PINSITE_PROFILE=dev $(MANAGE) feed init
	PINSITE_PROFILE=dev $(MANAGE) smartfeed init
	PINSITE_PROFILE=dev $(MANAGE) seed_demo --if-empty
	PINSITE_PROFILE=dev $(MANAGE) smartfeed rebuild --all --empty-only --quiet
	PINSITE_PROFILE=dev $(MANAGE) queues work-off

run: stack
	PINSITE_PROFILE=dev $(MANAGE) runsite --orchestrator $(HOST):$(PORT)

test-stack: bytecode
	$(PYTHON) -m devstack --profile test up

test: test-stack
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy .
	$(VENV)/bin/lint-imports
	$(PY) -m tests $(PYTEST_ARGS)

stop:
	@for pidfile in var/dev/runsite.pid var/test/runsite.pid; do \
		test -f $$pidfile || continue; pid=$$(cat $$pidfile); kill $$pid 2>/dev/null || true; \
		for i in $$(seq 150); do kill -0 $$pid 2>/dev/null || break; sleep 0.2; done; \
		rm -f $$pidfile; echo "site (pid $$pid) stopped"; done
	$(PYTHON) -m devstack --profile dev down
	$(PYTHON) -m devstack --profile test down

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy .
	$(VENV)/bin/lint-imports

bench-shards: stack
	PINSITE_PROFILE=dev $(MANAGE) bench shards --json
