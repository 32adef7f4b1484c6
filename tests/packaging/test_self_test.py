"""``pos-app --self-test`` from source, as a child process (as an installer runs it): the
real sandbox, sale screen, terminal layer and receipt; a store's data folder untouched.
The bundle's own run is ``make package-check`` (too slow for ``make test``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STEPS = ("profile", "sandbox", "qt", "station", "sale screen shown", "scan", "sale", "receipt", "closed", "money")


def self_test(env_extra: dict[str, str], tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("POS_", "QT_QPA"))}
    env.update(POS_DATA_DIR=str(tmp_path / "store-data"), **env_extra)  # where a store's journal would be
    done = subprocess.run([sys.executable, "-m", "pos_app", "--self-test"], capture_output=True, text=True,
                          timeout=120, env=env, cwd=ROOT)
    return done, json.loads(done.stdout.strip().splitlines()[-1])


def test_the_self_test_sells_prints_and_leaves_the_store_data_alone(tmp_path):
    done, summary = self_test({}, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary["outcome"] == "ok" and list(summary["steps"]) == list(STEPS)
    assert summary["bundled"] is False
    assert summary["receipt"]["pages"] == 1 and summary["receipt"]["total"].startswith("$")
    assert summary["money"]["USD en_US"] == "$1,234.50" and summary["money"]["EUR de_DE"] == "1.234,50\u00a0€"
    assert summary["sale"]["amount"] > 0 and summary["sale"]["attempt_id"]
    lines = done.stdout.splitlines()
    assert any(line.startswith("self-test: sale screen shown (") for line in lines)  # as it happens
    assert not (tmp_path / "store-data").exists()  # nothing written where the store's files live


def test_a_bad_store_profile_fails_the_self_test_with_the_reason(tmp_path):
    bad = tmp_path / "store-profile.toml"
    bad.write_text('base_url = "https://payments.example.com"\ntheme = "pink"\n', encoding="utf-8")
    done, summary = self_test({"POS_PROFILE": str(bad)}, tmp_path)
    assert done.returncode == 1
    assert summary["outcome"] == "failed" and summary["failed_step"] == "profile"
    assert "theme must be one of light, dark" in summary["error"] and "Traceback" not in done.stdout + done.stderr
    assert "self-test FAILED at profile:" in done.stdout


def test_a_profile_in_training_mode_opens_the_app_on_the_sandbox(monkeypatch, qapp):
    """``pos-app`` on the demo store's profile starts in training (the first window says
    so before anything else happens); on a store's profile it does not."""
    import pos_app.ui.launch
    from pos_app import cli

    class Started(Exception):
        pass

    starts: list[bool] = []

    def first_window(start):
        starts.append(start.training)
        raise Started

    monkeypatch.setattr(pos_app.ui.launch, "first_window", first_window)
    monkeypatch.setattr(sys, "setswitchinterval", lambda interval: None)  # this test process keeps its own
    name, quits = qapp.applicationName(), qapp.quitOnLastWindowClosed()  # launch.main sets both up
    try:
        for store, training in (("demo", True), ("example-store", False)):
            monkeypatch.setenv("POS_PROFILE", str(ROOT / "packaging" / "stores" / f"{store}.toml"))
            with pytest.raises(Started):
                cli.main([])
            assert starts[-1] is training, store
    finally:
        qapp.setApplicationName(name)
        qapp.setQuitOnLastWindowClosed(quits)
