"""Shared fixtures: a real sandbox service on 127.0.0.1 for every test that needs one."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
# money is written as the OS's locale writes it: the suite runs as CI does (en_US figures);
# tests of other locales name theirs
os.environ["LC_ALL"] = "C.UTF-8"
# and speaks English (the source language) unless a test picks another
os.environ.pop("POS_LANGUAGE", None)

import pytest

from tests.printers import cups_pdf, raw_printer  # noqa: E402, F401 - the session's CUPS printers

FAST_S_DELAY = (0.2, 0.4)


@pytest.fixture(autouse=True)
def english_screen():
    """Each test starts with English screens; one that switches language does not leak it."""
    from pos_app import i18n

    for use in (i18n.use_screen_language, i18n.use_store_language):
        use(i18n.SOURCE_LANGUAGE)
    yield
    for use in (i18n.use_screen_language, i18n.use_store_language):
        use(i18n.SOURCE_LANGUAGE)


@pytest.fixture
def sandbox_config():
    """Fast message timing so type S tests finish in well under a second each."""
    from pos_app.sandbox.server import SandboxConfig

    return SandboxConfig(s_delay=FAST_S_DELAY, seed=1)


@pytest.fixture
def sandbox(sandbox_config):
    """A sandbox service on a random loopback port, stopped after the test."""
    from pos_app.sandbox.server import SandboxServer

    with SandboxServer(sandbox_config) as server:
        yield server


@pytest.fixture
def memory_keyring():
    """An in-memory keyring for the test (the real Secret Service is tested on its own)."""
    import keyring

    from tests.keyrings import MemoryKeyring

    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def root_logging():
    """The root logger as it was, back after the test (the app and the commands set it up
    for their process: a test that runs them in this one must not leave their file)."""
    import logging

    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield root
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture
def no_keyring():
    """A computer without an OS keyring: the keyring library's ``fail`` backend."""
    import keyring
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)
