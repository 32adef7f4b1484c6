# pos-app: `make run` starts the app on its built-in sandbox; `make test` runs every test;
# `make lint` runs ruff and mypy (strict for pos_app.api, pos_app.journal, pos_app.terminal,
# pos_app.staff, pos_app.receipts, pos_app.catalog, pos_app.cart, pos_app.provisioning,
# pos_app.setup_cli, pos_app.money, pos_app.drawer, pos_app.sqlite_file).
# `make system-deps` installs the Debian packages of the system tests.
# Both create .venv when it is missing and install the pinned versions of constraints.txt.

# PySide6 6.12 needs Python >= 3.12 here (6.12 on 3.11 leaks references and aborts).
PYTHON ?= $(shell for p in python3.12 python3.13; do command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { command -v $$p; exit 0; }; done; \
	for v in 3.12 3.13; do d=$$(ls -d $$HOME/.pyenv/versions/$$v.* 2>/dev/null | sort -V | tail -n 1); [ -n "$$d" ] && [ -x "$$d/bin/python3" ] && { echo $$d/bin/python3; exit 0; }; done)
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: install run test lint bench sandbox clean system-deps package package-check translations

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@test -n "$(PYTHON)" || { echo "pos-app needs Python 3.12 or 3.13 (python3.12 on PATH, or pyenv)"; exit 1; }
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet -c constraints.txt -e '.[test]'
	@touch $(STAMP)

run: install
	$(VENV)/bin/pos-app --sandbox

# Two pytest workers (pytest-xdist): the suite waits on subprocesses, servers and printers
# as much as it computes, and took 12 minutes in one process on a 2-core machine (6 in two).
# The tests marked `alone` (a wall-clock bound, or receipts found by their words among
# every worker's) run after, in one process; exit 5 there is "none selected" (PYTEST_ARGS
# naming other tests). TEST_WORKERS=0 runs the rest in one process too (e.g. for --pdb).
TEST_WORKERS ?= 2

test: install
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) -m "not alone" $(PYTEST_ARGS)
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -q -m alone $(PYTEST_ARGS) || test $$? -eq 5

# both tools always run; the target fails when either found something
lint: install
	@status=0; \
	$(VENV)/bin/ruff check pos_app tests || status=1; \
	$(VENV)/bin/mypy pos_app/api pos_app/journal pos_app/terminal pos_app/station pos_app/staff pos_app/receipts pos_app/catalog pos_app/cart pos_app/sqlite_file.py || status=1; \
	$(VENV)/bin/mypy --strict --follow-imports=silent pos_app/provisioning.py pos_app/setup_cli.py pos_app/money.py pos_app/drawer.py || status=1; \
	exit $$status

# Debian packages the system tests need (X server and window manager for the UI tests,
# CUPS with a PDF printer and pdftotext for printing, a keyring, Qt's xcb libraries,
# DejaVu for receipts; icu-devtools and binutils trim ICU's data in the Linux bundle).
# Idempotent: apt runs only when dpkg lacks one of them.
# (cups-pdf is Debian's printer-driver-cups-pdf.)
SYSTEM_PACKAGES := xvfb openbox xdotool imagemagick x11-utils cups cups-client cups-bsd \
	printer-driver-cups-pdf poppler-utils gnome-keyring dbus-x11 libsecret-tools libxcb-cursor0 \
	libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-shape0 \
	libxcb-randr0 libxcb-xinerama0 libegl1 libgl1 libfontconfig1 libdbus-1-3 fonts-dejavu-core \
	icu-devtools binutils

system-deps:
	@command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 || { \
		echo "system-deps: not a Debian system; install the equivalents of: $(SYSTEM_PACKAGES)"; exit 0; }; \
	missing=$$(for p in $(SYSTEM_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -qx 'install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "system-deps: all present"; exit 0; fi; \
	echo "system-deps: installing" $$missing; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null 2>&1; then sudo=sudo; \
	else echo "system-deps: not root and no sudo; as root run: apt-get install" $$missing; exit 1; fi; \
	$$sudo apt-get update -qq && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing

# A store's installer folder: `make package STORE=<id>` builds dist/<id>/ (dist/<id>/pos-app)
# from packaging/stores/<id>.toml, and on Linux dist/<id>-<version>-linux-<arch>.tar.xz;
# the demo store (training on the built-in sandbox) without STORE. `make package-check`
# also runs the bundle's self-test and fails over the size budgets (packaging/README.md).
STORE ?= demo
PACKAGE_STAMP := $(VENV)/.installed-package

$(PACKAGE_STAMP): $(STAMP)
	$(VENV)/bin/python -m pip install --quiet -c constraints.txt -e '.[test,package]'
	@touch $(PACKAGE_STAMP)

package: $(PACKAGE_STAMP)
	$(VENV)/bin/python packaging/build.py --store $(STORE)

package-check: $(PACKAGE_STAMP)
	$(VENV)/bin/python packaging/build.py --store $(STORE) --check

# Extracts every text wrapped for translation into pos_app/locale/pos_app.pot, brings the
# Spanish and French catalogs up to it and compiles them (README, "Languages").
translations: install
	$(VENV)/bin/python packaging/translations.py update

bench: install
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m tests.bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist *.egg-info
