"""``pos-app --self-test``: proof that an installed pos-app works, without a store's data.

An installer is only as good as the bundle it ships: a Qt plugin, a data file or a hidden
import left out shows only when the app runs. The self-test runs the real parts on
throw-away state: the built-in sandbox over loopback HTTP, a temporary data folder (a
store's journal, cart and staff are never touched, the keyring is never read), the sale
screen offscreen (``QT_QPA_PLATFORM=offscreen``, set here), one sale through the terminal
layer, its receipt rendered by the receipt renderer and read back, and money written and
read back in the store's currency and locale and in each language the bundle ships
(Babel's data is cut to those).

It prints one line per step as it happens (``self-test: <step> (<seconds> s) <detail>``)
and then one JSON object; exit 0 when every step passed, 1 with the failed step and a
sentence otherwise. The Qt half lives in ``pos_app.ui.self_test``; this half is Qt-free; what
both use (the report, a step's failure, the PDF check) is in ``pos_app.self_test_report``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from pos_app.i18n import _
from pos_app.self_test_report import Report, SelfTestFailed

SANDBOX_S_DELAY = (0.2, 0.4)  # the type S terminal answers in well under a second
MONEY_SAMPLES = (("USD", "en_US"), ("CAD", "fr_CA"), ("EUR", "de_DE"), ("EUR", "es_ES"), ("EUR", "fr_FR"))
"""A currency and locale of each language every bundle ships (packaging/slim.py)."""
SAMPLE_CENTS = 123450
DEADLINE_S = 90.0


def check_profile(report: Report) -> tuple[str, str | None]:
    """The store profile this installation would start with, checked as the app loads it;
    its currency and locale (USD and the OS's without a profile)."""
    from pos_app.config import check_store_profile
    from pos_app.profile import ConfigError, baked_profile

    report.begin("profile")
    try:
        path = baked_profile(os.environ)
        if path is None:
            report.passed("profile", _("no store profile in this installation (running from source)"))
            return "USD", None
        config = check_store_profile(path)
    except ConfigError as error:
        raise SelfTestFailed(_("the store profile cannot be used: {error}").format(error=error)) from None
    report.facts["profile"] = {"file": str(path), "store_id": config.store_id, "mode": config.mode.value}
    report.passed("profile", _("{file}: store {store} ({mode})").format(file=path.name, store=config.store_id,
                                                                      mode=config.mode.value))
    return config.currency, config.locale


def check_money(report: Report, store: tuple[str, str | None]) -> None:
    """An amount written and read back (the written text and the field's prefill) in the
    store's currency and locale, and in ``MONEY_SAMPLES``: Babel and its locale data work
    in this installation."""
    from pos_app.money import money_format

    report.begin("money")
    written: dict[str, str] = {}
    for currency, locale in (store, *MONEY_SAMPLES):
        try:
            money = money_format(currency, locale)
            text = money(SAMPLE_CENTS)
            read = (money.parse(text), money.parse(money.field(SAMPLE_CENTS)))
        except ValueError as error:
            if locale:
                raise SelfTestFailed(_("money in {currency} for {locale} cannot be written: {error}").format(
                    currency=currency, locale=locale, error=error)) from None
            raise SelfTestFailed(_("money in {currency} for the OS locale cannot be written: {error}").format(
                currency=currency, error=error)) from None
        if read != (SAMPLE_CENTS, SAMPLE_CENTS):
            raise SelfTestFailed(_("{text!r} ({currency}, {locale}) reads back as {read}, not {cents}").format(
                text=text, currency=currency, locale=money.locale, read=read, cents=SAMPLE_CENTS))
        written[f"{currency} {money.locale}"] = text
    report.facts["money"] = written
    report.passed("money", "; ".join(written.values()))


def run_self_test() -> int:
    """Every step, on a fresh temporary data folder; returns the exit code."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before Qt loads: no display needed, none used
    report = Report()
    try:
        store = check_profile(report)
        with tempfile.TemporaryDirectory(prefix="pos-app-self-test-") as directory:
            _run_on(Path(directory), report)
        check_money(report, store)  # last: the sale screen's mark stays the app's start (bench_bundle)
    except SelfTestFailed as error:
        return _finish(report, str(error))
    except Exception as error:  # noqa: BLE001 - any failure is reported as the step's, never a traceback
        return _finish(report, f"{type(error).__name__}: {error}")
    return _finish(report, None)


def _run_on(directory: Path, report: Report) -> None:
    from pos_app.sandbox.server import SandboxConfig, SandboxServer

    report.begin("sandbox")
    with SandboxServer(SandboxConfig(s_delay=SANDBOX_S_DELAY, seed=1)) as sandbox:
        report.passed("sandbox", sandbox.base_url)
        from pos_app.ui.self_test import run_sale  # Qt from here on

        run_sale(report, sandbox.base_url, sandbox.keys["S"], directory, deadline_s=DEADLINE_S)


def _finish(report: Report, error: str | None) -> int:
    if error:
        sys.stdout.write(_("self-test FAILED at {step}: {error}").format(step=report.current, error=error) + "\n")
    sys.stdout.write(json.dumps(report.summary(error)) + "\n")
    sys.stdout.flush()
    return 1 if error else 0
