"""``pos-app terminal``: one JSON object on stdout, exit codes by outcome, no Qt, no secrets."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from tests.terminal.cli_runner import cli_env, run_cli
from tests.terminal.conftest import pay_requests


@pytest.fixture
def env_s(sandbox, tmp_path):
    return cli_env(sandbox, "S", tmp_path / "data-s")


@pytest.fixture
def env_b(sandbox, tmp_path):
    return cli_env(sandbox, "B", tmp_path / "data-b")


def active(env):
    run = run_cli(env, "terminal", "list")
    assert run.code == 0
    return [t["id"] for t in run.payload["terminals"] if t.get("isActive", True)]


def test_list_sale_refund_flow_and_exit_codes(env_b, sandbox):
    terminal = active(env_b)[0]
    sale = run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "2599", "--order-number", "A1")
    assert sale.code == 0 and sale.payload["outcome"] == "approved"
    assert {"attempt_id", "payment_id", "transaction_id", "card_last4"} <= set(sale.payload)
    declined = run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "99")
    assert declined.code == 2 and declined.payload["outcome"] == "declined"
    unknown = run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "9908")
    assert unknown.code == 3 and unknown.payload["outcome"] == "unknown" and unknown.payload["error"]
    held = run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "1000")
    assert held.code == 4 and held.payload["refusal"] == "terminal_has_unknown"
    assert held.payload["blocked_by"] == unknown.payload["attempt_id"]
    resolved = run_cli(env_b, "terminal", "resolve", unknown.payload["attempt_id"], "--not-paid",
                       "--reason", "no charge on the terminal", "--by", "mgr-ann")
    assert resolved.code == 0 and resolved.payload["outcome"] == "failed"
    assert resolved.payload["resolved_by"] == "mgr-ann"
    failed = run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "1000")
    assert failed.code == 0, failed.payload
    inactive = run_cli(env_b, "terminal", "sale", "--terminal", "tb-2003", "--amount", "1000")
    assert inactive.code == 4 and inactive.payload["refusal"] == "service_refused"
    ref = sale.payload["transaction_id"]
    void = run_cli(env_b, "terminal", "void", "--terminal", terminal, "--ref", ref, "--reason", "duplicate order")
    assert void.code == 0, void.payload
    close = run_cli(env_b, "terminal", "close-batch", "--terminal", terminal)
    assert close.code == 0 and close.payload["operation"] == "close_batch"
    from pos_app.staff import Staff  # every manager action of the command line is in the audit trail

    with Staff.open(f"{env_b['POS_DATA_DIR']}/staff.sqlite3") as staff:
        trail = [(e.actor, e.action, e.reason) for e in reversed(staff.audit())]
        details = [e.detail for e in reversed(staff.audit())]
    assert [(actor, action) for actor, action, _ in trail][:1] == [("mgr-ann", "resolve")]
    assert [action for _, action, _ in trail] == ["resolve", "void", "close_batch"]
    assert trail[0][2] == "no charge on the terminal" and trail[1][2] == "duplicate order"
    assert trail[1][0].startswith("os:") and f"ref {ref}" in details[1] and details[1].endswith(
        f"approved (attempt {void.payload['attempt_id']})")


def test_type_s_sale_and_preauth_capture(env_s):
    terminal = active(env_s)[0]
    auth = run_cli(env_s, "terminal", "preauth", "--terminal", terminal, "--amount", "4000")
    assert auth.code == 0 and auth.payload["msg_identifier"]
    capture = run_cli(env_s, "terminal", "capture", "--terminal", terminal, "--ref", auth.payload["transaction_id"],
                      "--amount", "3500")
    assert capture.code == 0, capture.payload


@pytest.mark.parametrize("args", [
    ["terminal", "sale", "--terminal", "t1", "--amount", "0"],
    ["terminal", "sale", "--terminal", "t1", "--amount", "-100"],
    ["terminal", "sale", "--terminal", "t1", "--amount", "12.50"],
    ["terminal", "sale", "--terminal", "t1", "--amount", "100", "--phone", "555-123-4567"],
    ["terminal", "capture", "--terminal", "t1", "--ref", "r", "--amount", "10000001"],
    ["terminal", "refund", "--terminal", "t1", "--ref", "r", "--amount", "abc"],
    ["terminal", "sale", "--terminal", "t1"],
    ["terminal", "bogus"],
])
def test_invalid_input_exits_1_and_sends_nothing(env_b, sandbox, args):
    run = run_cli(env_b, *args)
    assert run.code == 1 and run.payload["outcome"] == "invalid" and run.payload["error"]
    assert "Traceback" not in run.stderr
    assert pay_requests(sandbox, "B") == 0 and pay_requests(sandbox, "B", "terminal.capture") == 0


@pytest.mark.parametrize("currency, locale, typed, written", [
    ("EUR", "de_DE", "12,50", "1250 is 12,50\u00a0€"), ("JPY", "ja_JP", "500", None),
    ("USD", None, "12.50", "1250 is $12.50"),
])
def test_an_amount_typed_as_written_is_refused_with_what_1250_is_in_this_store(sandbox, tmp_path, currency, locale,
                                                                               typed, written):
    """``--amount`` is cents (minor units): "12,50" is refused, saying what 1250 is in the
    store's own currency and locale (store.toml); in a yen store 500 is ¥500 and is sent."""
    env = cli_env(sandbox, "B", tmp_path / "data")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "store.toml").write_text(f'currency = "{currency}"\n' +
                                                  (f'locale = "{locale}"\n' if locale else ""))
    run = run_cli(env, "terminal", "sale", "--terminal", "tb-2001", "--amount", typed)
    if written is None:
        assert run.code == 0 and run.payload["amount"] == 500
        return
    assert run.code == 1 and run.payload["outcome"] == "invalid" and pay_requests(sandbox, "B") == 0
    assert run.payload["error"].startswith(f"--amount must be a whole number of cents (minor units) such as 1250 "
                                           f"for 12.50, got '{typed}'")
    assert run.payload["error"].endswith(f"in this store --amount {written}")


def test_bad_configuration_exits_1(sandbox, tmp_path):
    env = cli_env(sandbox, "B", tmp_path / "d")
    env["POS_BASE_URL"] = "http://payments.example.com"
    run = run_cli(env, "terminal", "list")
    assert run.code == 1 and "https" in run.payload["error"]
    env = cli_env(sandbox, "B", tmp_path / "d2")
    del env["POS_GATEWAY"]  # the env var would override the file
    (tmp_path / "d2").mkdir()
    (tmp_path / "d2" / "store.toml").write_text('gateway = "x"\n')
    run = run_cli(env, "terminal", "list")
    assert run.code == 1 and "gateway" in run.payload["error"]
    del env["POS_KEY_HASH"]
    env["POS_GATEWAY"] = "b"  # overrides the bad file, so only the missing key is wrong
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    run = run_cli(env, "terminal", "list")
    assert run.code == 1 and "POS_KEY_HASH" in run.payload["error"]


def test_a_poll_wait_limit_of_nan_is_refused_before_a_sale_is_sent(env_s, sandbox, tmp_path):
    """Row 11: with ``poll_wait_limit = nan`` every type S sale was unknown at once."""
    del env_s["POS_BASE_URL"]
    data = tmp_path / "data-s"
    data.mkdir()
    (data / "store.toml").write_text(f'base_url = "{sandbox.base_url}"\npoll_wait_limit = nan\n')
    run = run_cli(env_s, "terminal", "sale", "--terminal", "ts-1001", "--amount", "1250")
    assert run.code == 1 and run.payload["outcome"] == "invalid", run.payload
    assert run.payload["error"].startswith(f"{data / 'store.toml'}: poll_wait_limit must be a number of seconds")
    assert pay_requests(sandbox, "S") == 0 and "Traceback" not in run.stderr


def test_resume_exit_codes(env_b, sandbox):
    terminal = active(env_b)[0]
    lost = run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "9906")
    assert lost.code == 3
    resumed = run_cli(env_b, "terminal", "resume")
    assert resumed.code == 0 and [a["outcome"] for a in resumed.payload["attempts"]] == ["approved"]
    assert pay_requests(sandbox, "B") == 1
    stuck = run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "9908")
    assert stuck.code == 3
    still = run_cli(env_b, "terminal", "resume")
    assert still.code == 3 and still.payload["attempts"][0]["outcome"] == "unknown"
    assert f"{stuck.payload['attempt_id']} {terminal}: checking" in still.stderr  # progress on stderr


def test_receipt_command_writes_a_pdf(env_b, tmp_path):
    terminal = active(env_b)[0]
    sale = run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "1500")
    out = tmp_path / "r" / "receipt.pdf"
    run = run_cli(env_b, "receipt", sale.payload["payment_id"], "--out", str(out), "--customer")
    assert run.code == 0 and out.read_bytes().startswith(b"%PDF") and run.payload["copy"] == "customer"
    missing = run_cli(env_b, "receipt", "nope", "--out", str(out))
    assert missing.code == 4


def test_the_key_hash_never_leaks(env_b, sandbox, tmp_path):
    key = env_b["POS_KEY_HASH"]
    terminal = active(env_b)[0]
    outputs = []
    for args in (["sale", "--terminal", terminal, "--amount", "1200", "--verbose"],
                 ["sale", "--terminal", terminal, "--amount", "9906", "--verbose"],
                 ["sale", "--terminal", "not-mine", "--amount", "1200", "--verbose"],
                 ["resume", "--verbose"]):
        run = run_cli(env_b, "terminal", *args)
        outputs += [run.stdout, run.stderr]
    assert not any(key in text for text in outputs)
    data_dir = tmp_path / "data-b"
    files = [p for p in data_dir.rglob("*") if p.is_file()]
    assert any(p.suffix == ".log" for p in files) and any("journal" in p.name for p in files)
    for path in files:
        assert key.encode() not in path.read_bytes(), path
    rows = sqlite3.connect(data_dir / "journal.sqlite3").execute("select * from events").fetchall()
    assert rows and not any(key in str(row) for row in rows)


def test_terminal_cli_imports_no_qt():
    code = ("import sys; from pos_app.cli import main; import pos_app.station.cli; "
            "sys.exit(1 if any(m.startswith('PySide6') for m in sys.modules) else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_report_summarises_the_day_and_reconciles_with_the_service(env_b, sandbox):
    import httpx

    terminal = active(env_b)[0]
    run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "1000")
    run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "2000")
    run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "99")
    clean = run_cli(env_b, "terminal", "report")
    assert clean.code == 0 and clean.payload["reconciliation"]["clean"], clean.payload
    approved = [line for line in clean.payload["summary"] if line["outcome"] == "approved"]
    assert approved == [
        {"terminal": terminal, "operation": "sale", "outcome": "approved", "count": 2, "total_cents": 3000}]
    # a charge made outside the app (another tool): the service has it, the journal does not
    httpx.post(f"{sandbox.base_url}/public/terminal/pay",
               headers={"key-hash": env_b["POS_KEY_HASH"], "user-agent": "dashboard"},
               json={"terminalId": terminal, "amount": 4500, "receipt": False}).raise_for_status()
    report = run_cli(env_b, "terminal", "report")
    rec = report.payload["reconciliation"]
    assert not rec["clean"] and [e["baseAmount"] for e in rec["service_only"]] == [4500]
    bad_day = run_cli(env_b, "terminal", "report", "--day", "22/11/2026")
    assert bad_day.code == 1


def test_a_partial_approval_exits_5_with_what_was_approved(env_b, sandbox):
    sandbox.set_faults(approve_at_most=500)
    sale = run_cli(env_b, "terminal", "sale", "--terminal", "tb-2001", "--amount", "1234", "--order-number", "P1")
    assert sale.code == 5, sale.payload
    assert sale.payload["outcome"] == "partially_approved"
    assert (sale.payload["amount"], sale.payload["approved_amount"]) == (1234, 500)
    again = run_cli(env_b, "terminal", "sale", "--terminal", "tb-2001", "--amount", "734", "--order-number", "P1")
    assert again.code == 4 and again.payload["refusal"] == "order_paid"  # the order is charged: never again


def test_resolve_paid_needs_the_charge_and_a_reference_goes_with_paid(env_b, sandbox):
    sandbox.inject("terminal.pay", 503)
    lost = run_cli(env_b, "terminal", "sale", "--terminal", "tb-2001", "--amount", "2100")
    assert lost.code == 3
    attempt = lost.payload["attempt_id"]
    forced = run_cli(env_b, "terminal", "resolve", attempt, "--paid", "--force", "--reason", "printout said ok")
    assert forced.code == 4 and forced.payload["refusal"] == "no_charge_found"
    mixed = run_cli(env_b, "terminal", "resolve", attempt, "--not-paid", "--reference", "p-1", "--reason", "x")
    assert mixed.code == 1 and "--paid" in mixed.payload["error"]
    named = run_cli(env_b, "terminal", "resolve", attempt, "--paid", "--reference", "p-missing", "--reason", "slip")
    assert named.code == 4 and named.payload["refusal"] == "no_charge_found" and "p-missing" in named.payload["error"]


def test_report_figures_take_a_void_off_and_count_a_capture_for_what_it_took(env_b, sandbox):
    terminal = active(env_b)[0]
    kept = run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "1000")
    voided = run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "1537")
    run_cli(env_b, "terminal", "sale", "--terminal", terminal, "--amount", "99")
    tab = run_cli(env_b, "terminal", "preauth", "--terminal", terminal, "--amount", "3000")
    held = run_cli(env_b, "terminal", "preauth", "--terminal", terminal, "--amount", "1500")
    void = run_cli(env_b, "terminal", "void", "--terminal", terminal, "--ref", voided.payload["transaction_id"],
                   "--reason", "wrong card")
    capture = run_cli(env_b, "terminal", "capture", "--terminal", terminal, "--ref", tab.payload["transaction_id"],
                      "--amount", "2500")
    assert [r.code for r in (kept, voided, tab, held, void, capture)] == [0] * 6

    figures = run_cli(env_b, "terminal", "report").payload["figures"]

    def cells(name):
        return figures[name]["count"], figures[name]["cents"]

    assert cells("gross") == (3, 1000 + 1537 + 2500)
    assert cells("voids") == (1, 1537) and cells("refunds") == (0, 0)
    assert cells("net") == (2, 1000 + 2500)  # the voided $15.37 is not taken
    assert cells("captured") == (1, 2500) and cells("held") == (1, 1500) and cells("declined") == (1, 99)
    assert figures["untaxed"] == 3 and figures["tax_cents"] == 0  # the command line sells no cart
    import httpx

    def surcharge(run) -> int:  # as the service says, on the payment
        answer = httpx.get(f"{sandbox.base_url}/public/payment/{run.payload['payment_id']}",
                           headers={"key-hash": env_b["POS_KEY_HASH"]})
        return answer.raise_for_status().json()["data"]["surcharge"]

    assert figures["net"]["surcharge_cents"] == surcharge(kept) + surcharge(tab)
    assert sum(brand["net"]["cents"] for brand in figures["by_brand"]) == 3500
    assert len({brand["brand"].casefold() for brand in figures["by_brand"]}) == len(figures["by_brand"])
