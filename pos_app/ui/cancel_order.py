"""Ctrl+Del: a manager gives back what the sale on the screen took (card voids or refunds,
cash from the drawer); its items then stay on the screen as a new sale."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pos_app.i18n import _
from pos_app.station.cancel import cancel_order
from pos_app.ui.dialogs import shown
from pos_app.ui.manager_approval import ManagerApproval
from pos_app.ui.qt import QDialog

if TYPE_CHECKING:
    from pos_app.station.counter import Counter
    from pos_app.ui.qt import QWidget
    from pos_app.ui.sale_screen import SaleScreen


async def ask_cancel_order(counter: Counter, sale: SaleScreen, parent: QWidget, say: Callable[[str], None]) -> None:
    """The manager's approval, then the give-back; ``say`` tells the status line how it went."""
    payments, money = counter.payments, sale.money
    if not payments.holds:
        say(_("This sale has taken no money: nothing to give back (Delete removes a line)."))
        return
    summary = _("Give back the {paid} this sale took: each card payment is voided (refunded if already "
                "settled), {cash} cash comes out of the drawer. The items stay on the screen as a new sale.")
    summary = summary.format(paid=money(payments.paid), cash=money(max(payments.cash_paid, 0)))
    approval = ManagerApproval(_("Cancel the payments"), summary,
                               lambda pin: counter.disk(counter.staff.check_manager, pin),
                               money=counter.money, parent=parent)
    if await shown(approval) != QDialog.DialogCode.Accepted or approval.manager is None:
        sale.focus_scan()
        return
    say(_("Giving the payments back…"))
    try:
        cancelled = await cancel_order(counter, approval.manager, approval.reason_text)
    except ValueError as error:
        say(f"{str(error)[:1].upper()}{str(error)[1:]}.")
        return
    finally:
        sale.refresh()
        sale.focus_scan()
    if cancelled.done:
        given = _("Payments given back by {manager}.").format(manager=approval.manager.name)
        say(f"{given} {cancelled.drawer}".strip())
    else:
        say(_("Cancel stopped: {problem}. Nothing else was sent.").format(problem=cancelled.problem))
