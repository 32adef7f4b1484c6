"""Orders paid by payment link in the shift's figures: a link's payment is card money paid
online, its own line (neither the drawer's nor the terminal's card total), with its surcharge and
its order's tax; the service lists it as a sale, and the end-of-shift reconciliation pairs
it with its parking by payment id (never a payment the journal does not know). Made through
the real sandbox (over loopback) and the station; the link money is checked against the
service's own list read over plain HTTP, and the reports are read back."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx

from pos_app.journal import ParkedOrder, ParkStage
from pos_app.money import format_money
from pos_app.station.figures import Tender, sentence
from pos_app.station.link_figures import LinkPayments
from pos_app.station.report import figures_json
from pos_app.station.shift import CloseState, DifferenceKind, link_differences
from pos_app.station.z_report import card_figures, x_pdf, x_report
from tests.counters import cart_over
from tests.links import paid
from tests.parking import PHONE, lane
from tests.receipts.conftest import pdf_text

TERMINAL = "tb-2001"


def listed_sales(sandbox) -> dict[str, list[dict[str, Any]]]:
    """The service's approved sales (plain HTTP), links' apart from the terminal's."""
    with httpx.Client(base_url=sandbox.base_url, headers={"key-hash": sandbox.keys["B"]}, timeout=10) as http:
        entries: list[dict[str, Any]] = http.get("/public/transactions", params={"limit": 100}).json()["data"]
    found: dict[str, list[dict[str, Any]]] = {"link": [], "terminal": []}
    for entry in entries:
        if entry["type"] == "sale" and not entry["error"]:
            found["link" if str(entry.get("userAgent")).startswith("payment link") else "terminal"].append(entry)
    return found


async def park_and_pay(sandbox, it, minimum: int) -> tuple[ParkedOrder, int]:
    """An order of one item over ``minimum`` cents parked on a link its customer paid; the
    parking once completed, and the order's tax."""
    await cart_over(it.counter, minimum)
    tax = it.counter.totals().tax
    parking = await it.parked.park(PHONE)
    paid(sandbox, parking.link_id)
    done = await it.parked.check(parking)
    assert done.stage is ParkStage.PAID, done
    return done, tax


async def test_links_paid_in_the_shift_are_their_own_line_paired_with_the_service(sandbox, tmp_path):
    async with lane(sandbox, tmp_path / "data", watching=False) as it:
        on_terminal = await it.station.sale(1000, order_key="t-1")
        first, first_tax = await park_and_pay(sandbox, it, 800)
        second, second_tax = await park_and_pay(sandbox, it, 300)
        check = await it.station.shift_check(TERMINAL)
        day = await it.station.report(date.today())  # `pos-app terminal report`
        x_text = pdf_text(await x_pdf(it.station, await x_report(it.station, TERMINAL)))  # Alt+X in F10
        end = await it.station.shift_end(TERMINAL, by="Mia Manager")

    assert on_terminal.outcome == "approved"
    assert check.clean, [d.sentence(str) for d in check.differences]  # the links' sales are no unknown payments
    listed = listed_sales(sandbox)
    links, card = check.figures.link, check.figures.card
    assert {e["paymentId"] for e in listed["link"]} == {first.payment_id, second.payment_id}
    assert links.gross.amount == sum(e["baseAmount"] for e in listed["link"]) == first.amount + second.amount
    assert links.gross.surcharge == sum(e["surcharge"] for e in listed["link"]) == first.surcharge + second.surcharge
    assert links.tax == first_tax + second_tax
    assert card.gross.amount == sum(e["baseAmount"] for e in listed["terminal"]) == 1000  # not the links'
    assert {line.tender for line in links.lines} == {Tender.LINK} and all(line.listed for line in links.lines)

    kept = card_figures(check.figures, check)  # what the X shows and the Z row keeps
    assert kept["taken"] == 1000 and kept["link"] == {
        "taken": first.amount + second.amount, "taken_count": 2, "voids": 0, "refunds": 0,
        "net": first.amount + second.amount, "surcharge": first.surcharge + second.surcharge,
        "tax": first_tax + second_tax}
    said = figures_json(check.figures)
    assert said["gross"]["cents"] == 1000 and said["link"]["net"]["cents"] == first.amount + second.amount
    assert day["figures"]["link"] == said["link"] and day["figures"]["gross"] == said["gross"]
    assert day["reconciliation"]["clean"] and day["reconciliation"]["service_only"] == []
    assert day["reconciliation"]["links"] == {"matched": 2, "unlisted": [], "problems": []}
    shown = sentence(check.figures, lambda cents: f"{cents}c")  # the F10 screen
    assert (f"Payment links (card paid online, not the terminal's) net {first.amount + second.amount}c (2 links, "
            f"surcharge {first.surcharge + second.surcharge}c, tax {first_tax + second_tax}c)") in shown

    assert "Payment links (card paid online: not in the drawer, not in the terminal's card total): taken " \
           f"{format_money(first.amount + second.amount, 'USD')} (2 links)" in " ".join(x_text.split())
    assert end.report.close.state is CloseState.CLOSED
    text = pdf_text(end.pdf)
    assert "Payment links (card paid online: not in the drawer, not the terminal's)" in text
    assert "link paid" in text and "Payment link" in text


def _parking(payment_id: str, amount: int, paid_at: datetime) -> ParkedOrder:
    return ParkedOrder("p-1", "o-1", ParkStage.PAID, amount, PHONE, "{}", "ann", paid_at - timedelta(minutes=1),
                       link_id="l-1", payment_id=payment_id, surcharge=30, paid_at=paid_at)


def test_a_link_the_service_lists_otherwise_or_not_at_all_is_a_difference():
    now = datetime.now(UTC)
    links = LinkPayments.of([_parking("pay-1", 1000, now)])
    sale = {"type": "sale", "paymentId": "pay-1", "baseAmount": 1000, "amount": 1030, "userAgent": "payment link l-1"}
    refund = {**sale, "type": "refund", "baseAmount": 200, "userAgent": "pos-app/1 attempt=a-9"}
    assert links.is_payment_entry(sale) and not links.is_payment_entry(refund)
    assert link_differences(links.pair(now - timedelta(hours=1), [sale, refund])) == ()
    [unlisted] = link_differences(links.pair(now - timedelta(hours=1), [refund]))
    assert (unlisted.kind, unlisted.payment_id, unlisted.amount) == (DifferenceKind.JOURNAL_ONLY, "pay-1", 1000)
    [odd] = link_differences(links.pair(now - timedelta(hours=1), [{**sale, "baseAmount": 900}]))
    assert odd.kind is DifferenceKind.DISAGREES and "journal 1000 cents, service 900 cents" in odd.problem
    [twice] = link_differences(links.pair(now - timedelta(hours=1), [sale, sale]))
    assert "twice" in twice.problem
    assert link_differences(links.pair(now + timedelta(minutes=1), [])) == ()  # paid before the shift

