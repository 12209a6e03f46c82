# The README's commands. `make run` and `make test` work on a fresh clone with only
# Python >= 3.12 installed: uv is bootstrapped into .tools/ when it is missing.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# uv must never try to download an interpreter (these machines reach only package registries).
export UV_PYTHON_DOWNLOADS := never

# An installed Python >= 3.12: PYTHON if given, else PATH, else pyenv's versions (newest first).
PYTHON ?= $(shell \
	for p in python3.14 python3.13 python3.12 python3 python \
	         $$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -rV); do \
	  if "$$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then \
	    "$$p" -c 'import sys; print(sys.executable)'; break; \
	  fi; \
	done)
export UV_PYTHON := $(PYTHON)

UV := $(shell command -v uv 2>/dev/null || echo .tools/bin/uv)
RUN := $(UV) run --frozen --no-sync
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: help python sync run serve collectstatic migrate demo manage test test-pg lint format fixtures superuser clean

help:
	@echo "make run    - set up, migrate, load the demo data, serve on http://$(HOST):$(PORT)"
	@echo "make serve  - production: collect static files, migrate, gunicorn (gunicorn.conf.py)"
	@echo "make test   - the whole test suite (DATABASE_URL picks the engine; SQLite by default)"
	@echo "make test-pg - the suite on the local PostgreSQL"
	@echo "make manage ARGS='import_archive FILE' - any manage.py command on this machine's settings"
	@echo "make lint   - ruff"

python:
	@if [ -z "$(PYTHON)" ]; then \
	  echo "error: Code with Papers needs Python 3.12 or newer, and none was found on PATH" >&2; \
	  echo "       or under pyenv. Install one (e.g. 'pyenv install 3.13' or your OS package" >&2; \
	  echo "       python3.13), or point at it: make run PYTHON=/path/to/python3.13" >&2; \
	  exit 1; \
	fi

.tools/bin/uv: | python
	@echo "uv not found: installing it into .tools/ with $(PYTHON)"
	$(PYTHON) -m venv .tools
	.tools/bin/python -m pip install --quiet --disable-pip-version-check uv

.venv/.synced: pyproject.toml uv.lock | python $(if $(filter .tools/bin/uv,$(UV)),.tools/bin/uv)
	$(UV) sync --frozen
	@touch $@

sync: .venv/.synced

# This machine's development settings (DEBUG on, a secret of its own), which the settings
# read unless the environment says otherwise: `.venv/bin/python manage.py …` then works
# in a plain shell. Never deployed: `make serve` and production ignore it (DOTENV=).
.env: | python
	@echo "Writing .env (development settings for this checkout; see docs/configuration.md)"
	@$(PYTHON) -c 'import secrets; print("# Development settings (make run wrote them): DEBUG on, a local secret.\nDEBUG=true\nSECRET_KEY=" + secrets.token_urlsafe(50))' > $@

migrate: sync .env
	$(RUN) python manage.py migrate --no-input

# load_demo leaves a database holding papers it did not make (an imported archive) alone,
# with exit status 3: `make run` then serves that archive as it is.
demo: migrate
	$(RUN) python manage.py load_demo || [ $$? -eq 3 ]
	$(RUN) python manage.py compute_related --only-new

run: demo
	$(RUN) python manage.py runserver $(HOST):$(PORT)

manage: sync .env
	$(RUN) python manage.py $(ARGS)

# Production: DEBUG stays false (the settings then require SECRET_KEY and turn on HTTPS,
# HSTS and secure cookies; see the README's configuration table). Static files are
# collected once, hashed and compressed, and whitenoise serves them with far-future
# cache headers. gunicorn.conf.py documents the server's knobs.
collectstatic: sync
	$(RUN) python manage.py collectstatic --no-input -v 0

serve: export DOTENV :=
serve: collectstatic
	$(RUN) python manage.py migrate --no-input
	BIND=$${BIND:-$(HOST):$(PORT)} $(RUN) gunicorn -c gunicorn.conf.py codewithpapers.wsgi

# fixtures/seed.json is the seed record dumped with natural keys; tests/archive/test_fixtures.py
# fails when it falls behind the models, and this target remakes it.
SEED_RECORD ?= ../shared/seeds/000_4232d225b0289023.txt
fixtures: sync .env
	$(RUN) python manage.py archive_to_fixture $(SEED_RECORD) -o fixtures/seed.json -v 0

superuser: migrate
	$(RUN) python manage.py createsuperuser

test: sync
	$(RUN) pytest $(PYTEST_ARGS)

test-pg: sync
	DATABASE_URL=$${PG_URL:-postgres://postgres@127.0.0.1:5432/test} $(RUN) pytest $(PYTEST_ARGS)

lint: sync
	$(RUN) ruff check .
	$(RUN) ruff format --check .

format: sync
	$(RUN) ruff format .
	$(RUN) ruff check --fix .

clean:
	rm -rf .venv .tools staticfiles .pytest_cache .ruff_cache
