"""The slip of a card operation on an earlier payment: a pre-auth's capture, a void, a refund.

``SlipData`` is checked when it is made, as ``ReceiptData`` is: a slip never prints an
amount that does not add up with the payment it acts on. ``render_slip`` lays it out on the
receipt roll with the receipt's header and footer (``pos_app.receipts.render``). No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from pos_app.i18n import N_, _
from pos_app.money import format_money, money_format
from pos_app.receipts.model import Copy, _cents
from pos_app.receipts.render import (
    ROLL_COLUMNS,
    _Row,
    _when,
    pairs,
    render_roll,
    roll_footer,
    roll_header,
)


class SlipKind(StrEnum):
    CAPTURE = "capture"
    VOID = "void"
    REFUND = "refund"


SLIP_NAMES = {SlipKind.CAPTURE: N_("capture"), SlipKind.VOID: N_("void"), SlipKind.REFUND: N_("refund")}
"""A slip's kind in a sentence (shown through ``_()``)."""
SLIP_TITLES = {SlipKind.CAPTURE: N_("Capture slip {store} {when}"), SlipKind.VOID: N_("Void slip {store} {when}"),
               SlipKind.REFUND: N_("Refund slip {store} {when}")}
"""The PDF's title (shown through ``_()``)."""


@dataclass(frozen=True)
class SlipData:
    """Everything a slip shows. Amounts are integer cents:

    - ``original_cents``: the payment acted on: what the pre-auth held, or what the sale
      charged, its card surcharge ``original_surcharge_cents`` included;
    - ``amount_cents``: what the operation moved, as the service answered it: captured,
      voided or refunded (the sale's amount, without surcharge);
    - ``surcharge_cents``: the card surcharge that moved with it (added to a capture, given
      back by a void); ``None`` when it could not be read (then the slip says so);
    - ``refunded_before_cents``: for a refund, what earlier refunds of the payment gave back.

    Checked on creation (``ValueError``): amounts above 0; a capture takes at most what was
    held; a void gives back the whole payment (amount and surcharge); a refund gives back at
    most the sale's amount not refunded before, and no surcharge (a terminal refund moves the
    sale's amount; a surcharge comes back only if the service reverses it); ``when`` is an
    aware datetime (shown in its own time zone: give it the store's).
    """

    kind: SlipKind
    store_name: str
    store_id: str
    station: str
    cashier: str
    when: datetime
    card_brand: str
    card_last4: str
    original_cents: int
    amount_cents: int
    original_surcharge_cents: int = 0
    surcharge_cents: int | None = 0
    refunded_before_cents: int = 0
    of_preauth: bool = False
    """The payment acted on is a pre-auth (a capture's always is)."""
    auth_ref: str = ""
    """The operation's own gateway transaction id."""
    original_ref: str = ""
    """The transaction it acted on (its pnRefNum)."""
    payment_id: str = ""
    manager: str = ""
    """Who approved it (a void, a refund)."""
    currency: str = "USD"
    locale: str | None = None
    training: bool = False
    copy: Copy = Copy.CUSTOMER

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", SlipKind(self.kind))
        object.__setattr__(self, "copy", Copy(self.copy))
        for label in ("original_cents", "amount_cents", "original_surcharge_cents", "refunded_before_cents"):
            _cents(getattr(self, label), label)
        if self.surcharge_cents is not None:
            _cents(self.surcharge_cents, "surcharge_cents")
        money_format(self.currency, self.locale)  # a currency and a locale Babel knows
        if self.when.tzinfo is None or self.when.utcoffset() is None:
            raise ValueError("a slip's time must be an aware datetime (with its time zone)")  # not for people
        if self.card_last4 and not (len(self.card_last4) == 4 and self.card_last4.isascii()
                                    and self.card_last4.isdigit()):
            raise ValueError("card_last4 is the card's last 4 digits (or empty)")  # not for people
        problem = self._problem()
        if problem is not None:
            raise ValueError(problem)

    def _problem(self) -> str | None:
        """Why the amounts do not add up, or None."""
        money, kind = self.money, self.kind
        if self.amount_cents <= 0 or self.original_cents <= 0:
            return _("a {kind} slip needs amounts above 0 (it moved {amount} of {original})").format(
                kind=_(SLIP_NAMES[kind]), amount=money(self.amount_cents), original=money(self.original_cents))
        if (self.surcharge_cents or 0) < 0 or not 0 <= self.original_surcharge_cents <= self.original_cents:
            return _("a card surcharge is between 0 and the payment")
        if self.refunded_before_cents < 0 or (self.refunded_before_cents and kind is not SlipKind.REFUND):
            return _("only a refund slip names what was refunded before")
        if kind is SlipKind.CAPTURE and self.amount_cents > self.original_cents:
            return _("a capture of {amount} is more than the {held} held").format(
                amount=money(self.amount_cents), held=money(self.original_cents))
        if kind is SlipKind.VOID and (self.surcharge_cents != self.original_surcharge_cents
                                      or self.total_cents != self.original_cents):
            return _("a void gives back the whole payment, {whole} ({whole_surcharge} surcharge), not {total} "
                     "({surcharge} surcharge)").format(
                whole=money(self.original_cents), whole_surcharge=money(self.original_surcharge_cents),
                total=money(self.total_cents), surcharge=money(self.surcharge_cents or 0))
        if kind is SlipKind.REFUND and self.surcharge_cents:
            return _("a terminal refund gives back the sale's amount, no surcharge")
        left = self.original_cents - self.original_surcharge_cents - self.refunded_before_cents
        if kind is SlipKind.REFUND and self.amount_cents > left:
            return _("a refund of {amount} is more than the {left} left to refund").format(
                amount=money(self.amount_cents), left=money(max(left, 0)))
        return None

    @property
    def total_cents(self) -> int:
        """The amount and the surcharge that moved with it (a surcharge not known counts 0)."""
        return self.amount_cents + (self.surcharge_cents or 0)

    @property
    def card(self) -> str:
        """"Visa **** 4242" (the receipt font may lack a bullet); "-" when not known."""
        last4 = f"**** {self.card_last4}" if self.card_last4 else ""
        return " ".join(part for part in (self.card_brand, last4) if part) or "-"

    def money(self, cents: int) -> str:
        return format_money(cents, self.currency, self.locale)


def slip_rows(data: SlipData, width: int) -> list[_Row]:
    """The slip as rows of at most ``width`` characters (the same text the PDF shows)."""
    money = data.money
    people = [_("Cashier {name}").format(name=data.cashier),
              *([_("Manager {name}").format(name=data.manager)] if data.manager else [])]
    rows = roll_header(data.store_name, data.store_id, data.station, data.when, people, data.kind.value, data.copy,
                       width, training=data.training)
    rule = _Row("-" * width)
    rows += [rule, *pairs(_("Card"), data.card, width)]
    notes: list[str] = []
    if data.kind is SlipKind.CAPTURE:
        rows += pairs(_("Held (pre-auth)"), money(data.original_cents), width)
        rows += pairs(_("Captured"), money(data.amount_cents), width)
        total = _("TOTAL CHARGED")
        if data.amount_cents < data.original_cents:
            notes.append(_("The rest of the hold, {amount}, is not charged.").format(
                amount=money(data.original_cents - data.amount_cents)))
    elif data.kind is SlipKind.VOID:
        rows += pairs(_("Pre-auth") if data.of_preauth else _("Sale"), money(data.amount_cents), width)
        total = _("TOTAL VOIDED")
        notes.append(_("The payment is cancelled: none of it is charged to the card."))
    else:
        rows += pairs(_("Original payment"), money(data.original_cents), width)
        if data.refunded_before_cents:
            rows += pairs(_("Refunded before"), money(data.refunded_before_cents), width)
        total = _("MONEY RETURNED")
        notes.append(_("Money returned to the card: it can take a few days to show."))
        if data.original_surcharge_cents:
            notes.append(_("The card surcharge is not part of this refund."))
    if data.surcharge_cents:
        rows += pairs(_("Card surcharge"), money(data.surcharge_cents), width)
    elif data.surcharge_cents is None:
        rows += pairs(_("Card surcharge"), _("not known"), width)
        notes.append(_("The card surcharge, if any, is on the service's card slip."))
    rows += pairs(total, money(data.total_cents), width, bold=True)
    rows.append(rule)
    rows += pairs(_("Auth ref"), data.auth_ref or "-", width)
    if data.original_ref and data.original_ref != data.auth_ref:
        rows += pairs(_("Original ref"), data.original_ref, width)
    rows += pairs(_("Payment"), data.payment_id or "-", width)
    return rows + roll_footer(_("APPROVED"), notes, width, training=data.training)


def render_slip(data: SlipData, *, font_dir: Path | None = None) -> bytes:
    """The slip as PDF bytes: one 80 mm wide page as tall as the slip."""
    title = _(SLIP_TITLES[data.kind]).format(store=data.store_name or data.store_id, when=_when(data.when))
    if data.training:
        title = _("{title} (training)").format(title=title)
    return render_roll(slip_rows(data, ROLL_COLUMNS), title, data.when, font_dir=font_dir)
