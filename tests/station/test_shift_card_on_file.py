"""Cards on file and ACH in the shift's figures (issue 18): money moved through the service's
charge routes is counted in the terminal's shift by its time. A card on file is card money
(in the Z's card total), ACH its own line (neither card nor cash), and their voids and
refunds are taken off. Made through the real sandbox (type B, over loopback) and the
station; the gross of each tender is checked against the service's own list (plain HTTP),
the rest against what was asked, and the end-of-shift PDF is read back."""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx

from pos_app.api.charge_models import AchCharge, AchData, CardCharge
from pos_app.api.customer_models import CustomerDraft, NewCustomerCard
from pos_app.config import StoreConfig
from pos_app.journal import Outcome
from pos_app.station import Station
from pos_app.station.figures import Tender
from pos_app.station.report import figures_json
from pos_app.station.shift import CloseState
from pos_app.station.z_report import card_figures
from tests.receipts.conftest import pdf_text

TERMINAL = "tb-2001"
EXP = f"12{date.today().year + 1 - 2000:02d}"


def listed_gross(sandbox) -> dict[str, int]:
    """Base cents of the charges the service lists without an error, by tender (plain HTTP)."""
    with httpx.Client(base_url=sandbox.base_url, headers={"key-hash": sandbox.keys["B"]}, timeout=10) as http:
        entries: list[dict[str, Any]] = http.get("/public/transactions", params={"limit": 100}).json()["data"]
    gross = {"card": 0, "ach": 0}
    for entry in entries:
        if entry["type"] in ("sale", "ach") and not entry["error"]:
            gross["ach" if entry.get("ach") else "card"] += entry["baseAmount"]
    return gross


async def test_cards_on_file_count_as_card_money_and_ach_on_its_own_line(sandbox, tmp_path):
    config = StoreConfig(base_url=sandbox.base_url, store_id="s1", store_name="Harbor Books", station_id="lane-7",
                         terminal_id=TERMINAL, poll_wait_limit=20.0, data_dir=tmp_path / "data")
    account = AchData(accountType="personalChecking", routingNumber="021000021", accountNumber="123456789")
    async with await Station.open(config, sandbox.keys["B"]) as station:
        service = station.service
        customer = await station.client.customers.create(CustomerDraft(
            firstName="Ada", lastName="Byron", email="a@example.com",
            cards=[NewCustomerCard(number="424242******4242", exp=EXP)]))
        on_terminal = await station.sale(1000, order_key="t-1")
        on_file = await service.card_charge(CardCharge(amount=1500, customerId=customer.id), order_key="f-1")
        voided = await service.card_charge(CardCharge(amount=800, customerId=customer.id), order_key="f-2")
        void = await service.card_void(voided.payment_id, "user_cancel")
        refunded = await service.card_charge(CardCharge(amount=600, customerId=customer.id), order_key="f-3")
        assert sandbox.settle() >= 1
        refund = await service.card_refund(refunded.payment_id, 200, "requested_by_customer")
        ach = await service.ach_charge(AchCharge(amount=2500, achData=account), order_key="a-1")
        ach_voided = await service.ach_charge(AchCharge(amount=900, achData=account), order_key="a-2")
        ach_void = await service.ach_void(ach_voided.payment_id, "user_cancel")
        made = (on_terminal, on_file, voided, void, refunded, refund, ach, ach_voided, ach_void)
        assert all(result.outcome is Outcome.APPROVED for result in made), [r.message for r in made]

        check = await station.shift_check(TERMINAL)
        end = await station.shift_end(TERMINAL, by="Mia Manager")

    assert check.clean, [d.sentence(str) for d in check.differences]  # every charge paired with its entry
    figures = check.figures
    card, bank = figures.card, figures.ach
    assert listed_gross(sandbox) == {"card": card.gross.amount, "ach": bank.gross.amount}
    assert (card.gross.amount, card.voids.amount, card.refunds.amount, card.net.amount) == (
        1000 + 1500 + 800 + 600, 800, 200, 1000 + 1500 + 600 - 200)
    assert (bank.gross.amount, bank.voids.amount, bank.refunds.amount, bank.net.amount) == (2500 + 900, 900, 0, 2500)
    assert {line.tender for line in bank.lines} == {Tender.ACH} and {line.brand for line in bank.lines} == {"ACH"}
    assert sum(line.on_file for line in card.lines) == 5  # three charges, their void and refund

    kept = card_figures(figures, check)  # what the X shows and the Z row keeps
    assert (kept["taken"], kept["net"], kept["on_file"]) == (3900, 2900, 2900)
    assert kept["ach"] == {"taken": 3400, "taken_count": 2, "voids": 900, "refunds": 0, "net": 2500}
    said = figures_json(figures)  # `pos-app terminal report`
    assert said["net"]["cents"] == 2900 and said["ach"]["net"]["cents"] == 2500

    assert end.report.close.state is CloseState.CLOSED
    text = pdf_text(end.pdf)
    assert "ACH (bank accounts: neither card nor cash)" in text
    assert "charged to a card on file (no terminal): $29.00" in text
    assert "on file Visa 4242" in text and "ACH 6789" in text
