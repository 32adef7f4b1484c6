"""What an outcome or a refusal means, in a sentence a cashier understands."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pos_app.journal import Operation, Outcome
from pos_app.staff import LockedOut, LockLevel, NotAManager, StaffError, WrongPin
from pos_app.station.figures import Category
from pos_app.terminal.outcomes import OperationResult, Phase, Refusal

if TYPE_CHECKING:
    from pos_app.station.shift import ShiftCheck

PHASES = {
    Phase.SENDING: "Sending to the terminal…",
    Phase.WAITING: "Waiting for the terminal…",
    Phase.RECEIVED: "The terminal has it. Ask the customer to tap, insert or swipe the card.",
    Phase.PROCESSING: "Processing the card… Ask the customer to follow the terminal.",
    Phase.TIMEOUT: "The terminal is taking long. Keep waiting: the payment may still complete.",
    Phase.COMPLETE: "Done at the terminal; reading the result…",
    Phase.FAILED: "The terminal reported a failure.",
    Phase.CHECKING: "Checking with the payment service…",
}

REFUSALS = {
    Refusal.TERMINAL_BUSY: "The terminal is busy with another payment. Wait for it to finish.",
    Refusal.TERMINAL_HAS_UNKNOWN: "An earlier payment on this terminal has no known result yet. "
                                  "Check it again, or ask a manager to decide it, before charging again.",
    Refusal.ORDER_UNRESOLVED: "This sale has a card payment whose result is not known yet. Check it first.",
    Refusal.ORDER_PAID: "This sale is already paid. Start a new sale.",
    Refusal.REF_PENDING_FOLLOW_UP: "An earlier change to this payment has no known result yet. Check it first.",
    Refusal.EARLIER_ATTEMPT_APPROVED: "The earlier payment went through after all: the customer was charged. "
                                      "Do not charge again unless this is another purchase.",
    Refusal.JOURNAL_LOCKED: "The payment record is busy (another program has it open). Try again in a moment.",
    Refusal.JOURNAL_CORRUPT: "The payment record on this computer is damaged. Call support; do not take cards.",
    Refusal.JOURNAL_UNAVAILABLE: "The payment record cannot be written (disk full or not allowed). Call support.",
    Refusal.INVALID_INPUT: "The amount or the details are not valid.",
    Refusal.INTERRUPTED: "The app stopped before this request left: nothing was sent.",
    Refusal.BAD_CREDENTIALS: "The payment service refused this store's key. Call support; nothing was charged.",
    Refusal.SERVICE_REFUSED: "The payment service refused the request; nothing was charged.",
    Refusal.ALREADY_FINAL: "This payment already has a final result.",
    Refusal.SERVICE_SHOWS_OTHERWISE: "The payment service shows a different result; it was recorded instead.",
    Refusal.TOO_EARLY: "Too early to decide: the payment may still be processed. Check again in a while.",
    Refusal.SERVICE_UNREACHABLE: "The payment service cannot be reached (check the network); nothing was sent.",
    Refusal.POSSIBLE_MATCH: "The service has a payment of the same amount on this terminal. Check it first.",
    Refusal.NO_CHARGE_FOUND: "The payment service shows no such charge, so it cannot be marked paid. Type the "
                             "reference printed on the terminal's slip, or check again later.",
}


FOLLOW_UP_DONE = {
    Operation.VOID: "Voided: the customer gets everything back.",
    Operation.REFUND: "Refunded to the card.",
    Operation.CAPTURE: "Captured: the held amount is charged.",
    Operation.CLOSE_BATCH: "The batch is closed.",
    Operation.ACH_REFUND: "Refunded to the bank account.",
}
"""By operation; a card on file's or an ACH payment's follow-up says what its terminal twin says."""


def headline(result: OperationResult) -> str:
    if result.refusal is not None:
        return "Not sent" if result.attempt_id is None else "Not done"
    if result.outcome is Outcome.APPROVED and result.operation is Operation.PREAUTH:
        return "Amount held"  # reserved on the card, not charged: never "paid"
    return {
        Outcome.APPROVED: "Approved",
        Outcome.PARTIALLY_APPROVED: "Partly approved",
        Outcome.DECLINED: "Declined",
        Outcome.FAILED: "Not charged",
        Outcome.UNKNOWN: "Result not known yet",
    }[result.outcome]


def explain(result: OperationResult, money: Callable[[int], str]) -> str:
    """The sentence under the headline, amounts written by ``money`` (the store's format);
    the technical detail stays one click away."""
    if result.refusal is not None:
        return REFUSALS[result.refusal]
    done = FOLLOW_UP_DONE.get(result.operation) or FOLLOW_UP_DONE.get(result.operation.acts_as)
    if result.outcome is Outcome.APPROVED and done:
        return done
    card = " ".join(part for part in (result.card_brand, f"•••• {result.card_last4}" if result.card_last4 else "")
                    if part)
    if card and result.operation is Operation.CARD_CHARGE:
        card += " (card on file)"
    asked, charged = result.amount or 0, result.charged or 0
    if result.outcome is Outcome.PARTIALLY_APPROVED:
        return (f"Only {money(charged)} of {money(asked)} was charged{' to ' + card if card else ''}: "
                f"{money(asked - charged)} is still due. Do not take the card again for it.")
    if result.outcome is Outcome.APPROVED and charged > asked:
        return (f"Paid{' with ' + card if card else ''}, but the service charged {money(charged)} for "
                f"{money(asked)}: a manager must give the customer {money(charged - asked)} back.")
    if result.outcome is Outcome.APPROVED and result.operation is Operation.PREAUTH:
        return (f"{money(charged or asked)} held{' on ' + card if card else ''}: reserved, not charged yet. "
                "Capture the final amount from Open pre-auths (Ctrl+T).")
    if result.outcome is Outcome.APPROVED:
        return f"Paid{' with ' + card if card else ''}."
    if result.outcome is Outcome.DECLINED:
        return f"The card was declined ({result.gateway_text or 'no reason given'}). Ask for another card."
    if result.outcome is Outcome.FAILED:
        return "Nothing was charged. You can try again."
    return ("The customer may have been charged. Do not take the card again: keep waiting, "
            "check again, or ask a manager to decide.")


def pin_refused(error: StaffError) -> str:
    """Why a manager's PIN was not taken, as the dialog says it."""
    if isinstance(error, NotAManager):
        return "That is not a manager's PIN."
    if isinstance(error, WrongPin):
        return f"Wrong PIN ({error.left} before sign-in locks)."
    if isinstance(error, LockedOut):
        until = error.until.astimezone().strftime("%H:%M")
        if error.level is LockLevel.CLOSED:
            return (f"Too many wrong PINs: manager approvals are locked until {until}, and no PIN lifts it. "
                    "Running `pos-app staff unlock` on this computer lifts it sooner.")
        return (f"Too many wrong PINs: manager approvals are locked until {until}. A manager lifts the lock "
                "by signing in on this station (Ctrl+L signs the cashier out).")
    return f"PIN refused: {error}"


def shift_check_summary(check: ShiftCheck, where: str) -> str:
    """What the check with the service found, in sentences; ``where`` the differences are listed."""
    since = "the last closed batch" if check.since_close else "the start of the day"
    local = check.start.astimezone()
    links = sum(1 for line in check.figures.link.lines if line.category is Category.SALE)  # no attempt of its own
    paid_by_link = f", {_counted(links, 'order')} paid by payment link" if links else ""
    said = [f"Shift of {check.terminal_id} since {since} ({local:%Y-%m-%d %H:%M}): "
            f"{_counted(len(check.lines) - links, 'payment attempt')} in this station's journal{paid_by_link}."]
    if check.list_error:
        said.append(f"Not reconciled: {check.list_error}. You can still close the batch.")
    elif check.differences:
        said.append(f"{_counted(len(check.differences), 'difference')} with the service ({where}). Look at each one; "
                    "\"Close anyway (Z)\" closes the batch as the service has it.")
    else:
        said.append("The service's list agrees with the journal: no differences.")
    if not check.list_complete and not check.list_error:
        said.append("The service's list could not be read to the end: differences may be missing.")
    if check.open_attempts:
        said.append(f"{_counted(len(check.open_attempts), 'attempt')} on this terminal without a known result: "
                    "the batch cannot be closed until each is checked again or decided by a manager.")
    return " ".join(said)


def _counted(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
