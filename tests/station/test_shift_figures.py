"""The end-of-shift report tells the truth (issue 16, row 13).

One shift with every kind of operation, made through the real sandbox (type B, over
loopback), the counter and the station: carts with tax sold by two cashiers, one sale whose
answer was lost and that was found in the transaction list (there the service spells the
card "mastercard", elsewhere "Mastercard"), a declined sale, a voided sale, a pre-auth
captured for less, a pre-auth still held, a pre-auth released, a sale the card approved
for less than its cart, and a refund of a settled sale; then the batch is closed. Each
figure of the report (gross, voids, refunds, net, surcharge, held, captured, per card brand
and per cashier) is checked against the service's own transaction list, read here with
plain HTTP and added up independently; the tax against the carts as they were rung up; and
the lines printed are read back from the PDF.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import httpx

from pos_app.api.identity import cashier_in
from pos_app.config import StoreConfig
from pos_app.journal import Outcome
from pos_app.money import format_money
from pos_app.staff import Role
from pos_app.station import Station
from pos_app.station.figures import Category, Figures
from pos_app.station.shift import CloseState
from tests.counters import counter_for
from tests.receipts.conftest import pdf_text

TERMINAL = "tb-2001"
NETWORK_NAMES = {"visa": "Visa", "mastercard": "Mastercard", "amex": "American Express", "discover": "Discover"}
"""How this test names the networks the sandbox's list writes (its own table, not the app's)."""
MONEY_TYPES = ("sale", "capture")


def usd(cents: int) -> str:
    return format_money(cents, "USD")


def service_entries(sandbox) -> list[dict[str, Any]]:
    """Every entry of ``GET /public/transactions`` for merchant B, all pages, plain HTTP."""
    entries: list[dict[str, Any]] = []
    page = 1
    with httpx.Client(base_url=sandbox.base_url, headers={"key-hash": sandbox.keys["B"]}, timeout=10) as http:
        while True:
            body = http.get("/public/transactions", params={"page": page, "limit": 25}).raise_for_status().json()
            entries.extend(body["data"])
            if page >= body["meta"]["totalPages"]:
                return entries
            page += 1


def service_figures(entries: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """(base cents, surcharge cents) of each figure, from the service's entries alone: money
    taken is a sale or capture entry without an error; a void gives back its payment's whole
    charge when that payment was charged (a sale, or a captured pre-auth), else it releases a
    hold; a refund gives back what its own entry says."""
    ok = [e for e in entries if not e["error"]]
    charge_of: dict[str, dict[str, Any]] = {}
    for entry in ok:
        if entry["type"] in MONEY_TYPES:
            charge_of[entry["paymentId"]] = entry

    def base(chosen: list[dict[str, Any]]) -> int:
        return sum(e["baseAmount"] for e in chosen)

    def surcharge(chosen: list[dict[str, Any]]) -> int:
        return sum(e["amount"] - e["baseAmount"] for e in chosen)

    money = [e for e in ok if e["type"] in MONEY_TYPES]
    captures = [e for e in ok if e["type"] == "capture"]
    voids = [e for e in ok if e["type"] == "void" and e["paymentId"] in charge_of]
    refunds = [e for e in ok if e["type"] == "refund"]
    gross = (base(money), surcharge(money))
    voided = (base(voids), surcharge([charge_of[e["paymentId"]] for e in voids]))
    refunded = (base(refunds), surcharge(refunds))
    return {
        "gross": gross, "voids": voided, "refunds": refunded,
        "net": (gross[0] - voided[0] - refunded[0], gross[1] - voided[1] - refunded[1]),
        "captured": (base(captures), surcharge(captures)),
        "held": (base([e for e in ok if e["type"] == "auth" and e["status"] == "auth"]), 0),
        "released": (base([e for e in ok if e["type"] == "void" and e["paymentId"] not in charge_of]), 0),
        "declined": (base([e for e in entries if e["error"] and e["type"] in ("sale", "auth")]), 0),
    }


def grouped(entries: list[dict[str, Any]], key) -> dict[str, dict[str, tuple[int, int]]]:
    """``service_figures`` per group (a void is in its payment's group here: same card, same cashier)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entry in entries:
        groups[key(entry)].append(entry)
    return {name: service_figures(found) for name, found in groups.items()}


def report_figures(figures: Figures) -> dict[str, tuple[int, int]]:
    cells = figures.by_category
    tallies = {"gross": figures.gross, "voids": figures.voids, "refunds": figures.refunds, "net": figures.net,
               "captured": figures.captured}
    return {
        **{name: (tally.amount, tally.surcharge) for name, tally in tallies.items()},
        "held": (figures.held.amount, 0), "released": (cells[Category.RELEASED].amount, 0),
        "declined": (cells[Category.DECLINED].amount, 0),
    }


def row(text: str, label: str) -> list[str]:
    """The cells after ``label`` on the one PDF line that starts with it (then a column gap)."""
    [line] = [line for line in text.splitlines() if re.match(rf"\s*{re.escape(label)}\s\s", line)]
    return line.strip()[len(label):].split()


async def test_every_figure_of_the_shift_report_agrees_with_the_service_and_the_carts(sandbox, tmp_path):
    config = StoreConfig(base_url=sandbox.base_url, store_id="s1", store_name="Harbor Books", station_id="lane-7",
                         terminal_id=TERMINAL, poll_wait_limit=20.0, data_dir=tmp_path / "data")
    carts: dict[str, Any] = {}  # name -> the cart's totals as rung up

    async with await Station.open(config, sandbox.keys["B"]) as station:
        counter = await counter_for(station)
        try:
            for name, pin in (("Ana", "2468"), ("Ben", "1357")):
                await counter.disk(counter.staff.add, name, Role.CASHIER, pin)
            await counter.sync_catalog()
            aisles = [await counter.in_category(name) for name in ("Cafe", "Stationery", "Fiction")]
            shelf = [item for items in zip(*aisles, strict=False) for item in items][:8]  # 3, 2 and 1 taxes
            assert len(shelf) == 8 and all(item.tax_ids for item in shelf)

            async def ring(name: str, *items: int, preauth: bool = False):
                for index in items:
                    await counter.add(shelf[index])
                carts[name] = counter.totals()
                assert carts[name].tax > 0
                return await counter.pay(preauth=preauth)

            await counter.sign_in("2468")  # Ana
            first = await ring("first", 0, 1)
            sandbox.set_faults(drop_next=1)  # charged, then the answer is lost: found in the list
            lost = await ring("lost", 2)
            assert lost.outcome is Outcome.UNKNOWN
            found = await station.check_again(lost.attempt_id)
            declined = await station.sale(99, order_key="declined-at-the-terminal")

            await counter.sign_in("1357")  # Ben
            voided_sale = await ring("voided", 3, 4)
            void = await station.void(TERMINAL, voided_sale.transaction_id, payment_id=voided_sale.payment_id)
            fourth = await ring("fourth", 5)
            tab = await ring("tab", 6, 0, preauth=True)
            held = await ring("held", 7, preauth=True)
            released = await ring("released", 0, preauth=True)
            release = await station.void(TERMINAL, released.transaction_id, payment_id=released.payment_id)
            sandbox.set_faults(approve_at_most=500)  # the card takes $5.00 of this cart: the rest stays due
            partial = await ring("partial", 1, 2)
            sandbox.set_faults(approve_at_most=0)
            assert partial.outcome is Outcome.PARTIALLY_APPROVED and partial.to_json()["approved_amount"] == 500

            await counter.sign_in("2468")  # Ana captures the tab for less than was held
            capture = await counter.capture(tab, carts["tab"].total - 250)
            assert sandbox.settle() >= 4
            await counter.sign_in("1357")  # Ben refunds part of Ana's first sale, now settled
            refund = await station.refund(TERMINAL, first.transaction_id, 700, payment_id=first.payment_id)
            made = (first, found, fourth, voided_sale, void, tab, held, released, release, capture, refund)
            assert all(result.outcome is Outcome.APPROVED for result in made), [r.message for r in made]
            assert declined.outcome is Outcome.DECLINED
            # the service spells one brand two ways: "mastercard" in its list, "Mastercard" on a payment
            assert found.card_brand == "mastercard"

            end = await station.shift_end(TERMINAL, by="Mia Manager")
        finally:
            await counter.aclose()

    entries = service_entries(sandbox)
    figures = end.report.figures
    assert end.report.close.state is CloseState.CLOSED and end.report.check.clean

    # every figure, as the service's own list adds it up
    assert report_figures(figures) == service_figures(entries)
    assert figures.captured.amount == carts["tab"].total - 250 and figures.held.amount == carts["held"].total
    assert figures.held.count == 1 and figures.voids.count == 1 and figures.by_category[Category.RELEASED].count == 1
    assert figures.voids.surcharge > 0  # a credit card's sale voided: its surcharge is given back too
    brands = {name: report_figures(group) for name, group in figures.by_brand()}
    by_network = grouped(entries, lambda entry: NETWORK_NAMES[entry["card"]["network"]])
    assert set(brands) == {"Visa", "Mastercard", "American Express", "Discover"}
    for name, expected in by_network.items():
        assert {k: brands[name][k] for k in ("gross", "voids", "refunds", "net")} == {
            k: expected[k] for k in ("gross", "voids", "refunds", "net")}, name
    cashiers = {name: report_figures(group) for name, group in figures.by_cashier()}
    by_agent = grouped(entries, lambda entry: cashier_in(entry["userAgent"]))
    assert set(cashiers) == {"Ana", "Ben"}
    for name in cashiers:
        assert {k: cashiers[name][k] for k in ("gross", "voids", "refunds", "net")} == {
            k: by_agent[name][k] for k in ("gross", "voids", "refunds", "net")}, name

    # tax: the carts of the sales and of the capture, less the voided cart's; not the pre-auths',
    # nor the cart the card paid only in part (its order is still due)
    taxed = [carts[name] for name in ("first", "lost", "fourth", "voided", "tab")]
    tax = sum(cart.tax for cart in taxed) - carts["voided"].tax
    assert figures.tax == tax and figures.untaxed == 0 and figures.partial == 1
    by_name: dict[str, int] = defaultdict(int)
    for name in ("first", "lost", "fourth", "tab"):
        for tax_name, cents in carts[name].breakdown.items():
            by_name[tax_name] += cents
    assert figures.tax_by_name == {name: cents for name, cents in by_name.items() if cents}
    assert sum(figures.tax_by_name.values()) + figures.tax_rounding == tax

    # the printed report says the same
    text = pdf_text(end.path)
    service = service_figures(entries)
    gross, voids, refunds, net = (service[k] for k in ("gross", "voids", "refunds", "net"))
    assert row(text, "Gross (sales and captures)")[:3] == ["6", usd(gross[0]), usd(gross[1])]
    assert row(text, "Voided (given back)")[:3] == ["1", usd(-voids[0]), usd(-voids[1])]
    assert row(text, "Refunded (tax not split out)")[:3] == ["1", usd(-refunds[0]), usd(-refunds[1])]
    assert row(text, "Net (gross - voids - refunds)") == ["5", usd(net[0]), usd(net[1]), usd(net[0] + net[1]),
                                                         usd(tax)]
    assert row(text, "Tax collected")[-1] == usd(tax)
    assert row(text, "Pre-auths held (not captured)") == ["1", usd(carts["held"].total)]
    assert row(text, "Pre-auths released (voided, never captured)") == ["1", usd(carts["released"].total)]
    assert row(text, "Pre-auths captured (amount captured)")[:2] == ["1", usd(carts["tab"].total - 250)]
    assert "mastercard" not in text and text.count("Mastercard ") >= 2
    assert "1 of 6 sales were approved for less than their cart" in text and "partial sale" in text
    for name in ("Ana", "Ben"):
        assert row(text, name)[1:5] == [usd(by_agent[name][k][0]) for k in ("gross", "voids", "refunds", "net")]
