# pos-app: `make run` starts the app on its built-in sandbox; `make test` runs every test;
# `make lint` runs ruff and mypy (strict for pos_app.api, pos_app.journal, pos_app.terminal).
# Both create .venv when it is missing and install the pinned versions of constraints.txt.

# PySide6 6.12 needs Python >= 3.12 here (6.12 on 3.11 leaks references and aborts).
PYTHON ?= $(shell for p in python3.12 python3.13; do command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { command -v $$p; exit 0; }; done; \
	for v in 3.12 3.13; do d=$$(ls -d $$HOME/.pyenv/versions/$$v.* 2>/dev/null | sort -V | tail -n 1); [ -n "$$d" ] && [ -x "$$d/bin/python3" ] && { echo $$d/bin/python3; exit 0; }; done)
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: install run test lint bench sandbox clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@test -n "$(PYTHON)" || { echo "pos-app needs Python 3.12 or 3.13 (python3.12 on PATH, or pyenv)"; exit 1; }
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet -c constraints.txt -e '.[test]'
	@touch $(STAMP)

run: install
	$(VENV)/bin/pos-app sandbox serve

test: install
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -q $(PYTEST_ARGS)

# both tools always run; the target fails when either found something
lint: install
	@status=0; \
	$(VENV)/bin/ruff check pos_app tests || status=1; \
	$(VENV)/bin/mypy pos_app/api pos_app/journal pos_app/terminal || status=1; \
	exit $$status

bench: install
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m tests.bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist *.egg-info
