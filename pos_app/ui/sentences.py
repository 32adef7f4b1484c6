"""What an outcome or a refusal means, in a sentence a cashier understands."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pos_app.i18n import N_, _, ngettext
from pos_app.journal import Operation, Outcome
from pos_app.staff import LockedOut, LockLevel, NotAManager, StaffError, WrongPin
from pos_app.station.figures import Category
from pos_app.terminal.outcomes import OperationResult, Phase, Refusal

if TYPE_CHECKING:
    from pos_app.station.shift import ShiftCheck

PHASES = {
    Phase.SENDING: N_("Sending to the terminal…"),
    Phase.WAITING: N_("Waiting for the terminal…"),
    Phase.RECEIVED: N_("The terminal has it. Ask the customer to tap, insert or swipe the card."),
    Phase.PROCESSING: N_("Processing the card… Ask the customer to follow the terminal."),
    Phase.TIMEOUT: N_("The terminal is taking long. Keep waiting: the payment may still complete."),
    Phase.COMPLETE: N_("Done at the terminal; reading the result…"),
    Phase.FAILED: N_("The terminal reported a failure."),
    Phase.CHECKING: N_("Checking with the payment service…"),
}

REFUSALS = {
    Refusal.TERMINAL_BUSY: N_("The terminal is busy with another payment. Wait for it to finish."),
    Refusal.TERMINAL_HAS_UNKNOWN: N_("An earlier payment on this terminal has no known result yet. "
                                     "Check it again, or ask a manager to decide it, before charging again."),
    Refusal.ORDER_UNRESOLVED: N_("This sale has a card payment whose result is not known yet. Check it first."),
    Refusal.ORDER_PAID: N_("This sale is already paid. Start a new sale."),
    Refusal.REF_PENDING_FOLLOW_UP: N_("An earlier change to this payment has no known result yet. Check it first."),
    Refusal.EARLIER_ATTEMPT_APPROVED: N_("The earlier payment went through after all: the customer was charged. "
                                         "Do not charge again unless this is another purchase."),
    Refusal.JOURNAL_LOCKED: N_("The payment record is busy (another program has it open). Try again in a moment."),
    Refusal.JOURNAL_CORRUPT: N_("The payment record on this computer is damaged. Call support; do not take cards."),
    Refusal.JOURNAL_UNAVAILABLE: N_("The payment record cannot be written (disk full or not allowed). Call support."),
    Refusal.INVALID_INPUT: N_("The amount or the details are not valid."),
    Refusal.INTERRUPTED: N_("The app stopped before this request left: nothing was sent."),
    Refusal.BAD_CREDENTIALS: N_("The payment service refused this store's key. Call support; nothing was charged."),
    Refusal.SERVICE_REFUSED: N_("The payment service refused the request; nothing was charged."),
    Refusal.ALREADY_FINAL: N_("This payment already has a final result."),
    Refusal.SERVICE_SHOWS_OTHERWISE: N_("The payment service shows a different result; it was recorded instead."),
    Refusal.TOO_EARLY: N_("Too early to decide: the payment may still be processed. Check again in a while."),
    Refusal.SERVICE_UNREACHABLE: N_("The payment service cannot be reached (check the network); nothing was sent."),
    Refusal.POSSIBLE_MATCH: N_("The service has a payment of the same amount on this terminal. Check it first."),
    Refusal.NO_CHARGE_FOUND: N_("The payment service shows no such charge, so it cannot be marked paid. Type the "
                                "reference printed on the terminal's slip, or check again later."),
}


FOLLOW_UP_DONE = {
    Operation.VOID: N_("Voided: the customer gets everything back."),
    Operation.REFUND: N_("Refunded to the card."),
    Operation.CAPTURE: N_("Captured: the held amount is charged."),
    Operation.CLOSE_BATCH: N_("The batch is closed."),
    Operation.ACH_REFUND: N_("Refunded to the bank account."),
}
"""By operation; a card on file's or an ACH payment's follow-up says what its terminal twin says."""


def phase_sentence(phase: Phase) -> str:
    """What the terminal is doing, in the language in force."""
    return _(PHASES[phase])


def refusal_sentence(refusal: Refusal) -> str:
    """Why a request was refused, in the language in force."""
    return _(REFUSALS[refusal])


def headline(result: OperationResult) -> str:
    if result.refusal is not None:
        return _("Not sent") if result.attempt_id is None else _("Not done")
    if result.outcome is Outcome.APPROVED and result.operation is Operation.PREAUTH:
        return _("Amount held")  # reserved on the card, not charged: never "paid"
    return _({
        Outcome.APPROVED: N_("Approved"),
        Outcome.PARTIALLY_APPROVED: N_("Partly approved"),
        Outcome.DECLINED: N_("Declined"),
        Outcome.FAILED: N_("Not charged"),
        Outcome.UNKNOWN: N_("Result not known yet"),
    }[result.outcome])


def explain(result: OperationResult, money: Callable[[int], str]) -> str:
    """The sentence under the headline, amounts written by ``money`` (the store's format);
    the technical detail stays one click away."""
    if result.refusal is not None:
        return refusal_sentence(result.refusal)
    done = FOLLOW_UP_DONE.get(result.operation) or FOLLOW_UP_DONE.get(result.operation.acts_as)
    if result.outcome is Outcome.APPROVED and done:
        return _(done)
    card = " ".join(part for part in (result.card_brand, f"•••• {result.card_last4}" if result.card_last4 else "")
                    if part)
    if card and result.operation is Operation.CARD_CHARGE:
        card = _("{card} (card on file)").format(card=card)
    asked, charged = result.amount or 0, result.charged or 0
    if result.outcome is Outcome.PARTIALLY_APPROVED:
        said = (_("Only {charged} of {asked} was charged to {card}: {due} is still due. Do not take the card again "
                  "for it.") if card else
                _("Only {charged} of {asked} was charged: {due} is still due. Do not take the card again for it."))
        return said.format(charged=money(charged), asked=money(asked), card=card, due=money(asked - charged))
    if result.outcome is Outcome.APPROVED and charged > asked:
        said = (_("Paid with {card}, but the service charged {charged} for {asked}: a manager must give the "
                  "customer {back} back.") if card else
                _("Paid, but the service charged {charged} for {asked}: a manager must give the customer {back} "
                  "back."))
        return said.format(card=card, charged=money(charged), asked=money(asked), back=money(charged - asked))
    if result.outcome is Outcome.APPROVED and result.operation is Operation.PREAUTH:
        said = (_("{amount} held on {card}: reserved, not charged yet. Capture the final amount from Open "
                  "pre-auths (Ctrl+T).") if card else
                _("{amount} held: reserved, not charged yet. Capture the final amount from Open pre-auths "
                  "(Ctrl+T)."))
        return said.format(amount=money(charged or asked), card=card)
    if result.outcome is Outcome.APPROVED:
        return _("Paid with {card}.").format(card=card) if card else _("Paid.")
    if result.outcome is Outcome.DECLINED:
        return _("The card was declined ({reason}). Ask for another card.").format(
            reason=result.gateway_text or _("no reason given"))
    if result.outcome is Outcome.FAILED:
        return _("Nothing was charged. You can try again.")
    return _("The customer may have been charged. Do not take the card again: keep waiting, "
             "check again, or ask a manager to decide.")


def pin_refused(error: StaffError) -> str:
    """Why a manager's PIN was not taken, as the dialog says it."""
    if isinstance(error, NotAManager):
        return _("That is not a manager's PIN.")
    if isinstance(error, WrongPin):
        # TRANSLATORS: {left} is "2 tries left" (already translated)
        return _("Wrong PIN ({left} before sign-in locks).").format(left=error.left)
    if isinstance(error, LockedOut):
        until = error.until.astimezone().strftime("%H:%M")
        if error.level is LockLevel.CLOSED:
            return _("Too many wrong PINs: manager approvals are locked until {until}, and no PIN lifts it. "
                     "Running `pos-app staff unlock` on this computer lifts it sooner.").format(until=until)
        return _("Too many wrong PINs: manager approvals are locked until {until}. A manager lifts the lock "
                 "by signing in on this station (Ctrl+L signs the cashier out).").format(until=until)
    return _("PIN refused: {error}").format(error=error)


def shift_check_summary(check: ShiftCheck, where: str) -> str:
    """What the check with the service found, in sentences; ``where`` the differences are
    listed (a translated parenthesis: "below", "in the batch report")."""
    local = check.start.astimezone()
    links = sum(1 for line in check.figures.link.lines if line.category is Category.SALE)  # no attempt of its own
    count = len(check.lines) - links
    attempts = ngettext("{count} payment attempt", "{count} payment attempts", count).format(count=count)
    if links:
        orders = ngettext("{count} order", "{count} orders", links).format(count=links)
        # TRANSLATORS: {attempts} is "3 payment attempts", {orders} is "1 order"
        journal = _("{attempts} in this station's journal, {orders} paid by payment link.").format(
            attempts=attempts, orders=orders)
    else:
        journal = _("{attempts} in this station's journal.").format(attempts=attempts)
    time = f"{local:%Y-%m-%d %H:%M}"
    head = (_("Shift of {terminal} since the last closed batch ({time}):") if check.since_close else
            _("Shift of {terminal} since the start of the day ({time}):")).format(terminal=check.terminal_id,
                                                                                  time=time)
    said = [f"{head} {journal}"]
    if check.list_error:
        said.append(_("Not reconciled: {error}. You can still close the batch.").format(error=check.list_error))
    elif check.differences:
        count = len(check.differences)
        # TRANSLATORS: {where} is "below" or "in the batch report"; "Close anyway (Z)" is a button
        said.append(ngettext("{count} difference with the service ({where}). Look at each one; "
                             "\"Close anyway (Z)\" closes the batch as the service has it.",
                             "{count} differences with the service ({where}). Look at each one; "
                             "\"Close anyway (Z)\" closes the batch as the service has it.",
                             count).format(count=count, where=where))
    else:
        said.append(_("The service's list agrees with the journal: no differences."))
    if not check.list_complete and not check.list_error:
        said.append(_("The service's list could not be read to the end: differences may be missing."))
    if check.open_attempts:
        count = len(check.open_attempts)
        said.append(ngettext("{count} attempt on this terminal without a known result: the batch cannot be "
                             "closed until each is checked again or decided by a manager.",
                             "{count} attempts on this terminal without a known result: the batch cannot be "
                             "closed until each is checked again or decided by a manager.",
                             count).format(count=count))
    return " ".join(said)
