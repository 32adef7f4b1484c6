"""The end of shift's question before a batch is closed (Enter closes, Esc goes back): what
closing does, what the Z records, and the differences and open attempts the check found.
Its own class so that it can be shown, read and tested like any other dialog."""

from __future__ import annotations

from pos_app.i18n import _, ngettext
from pos_app.station.shift import ShiftCheck
from pos_app.ui.dialogs import Question, shown
from pos_app.ui.qt import QWidget


async def confirmed_close(check: ShiftCheck, parent: QWidget, count: str = "") -> bool:
    """Ask before the batch of ``check``'s terminal is closed (Enter closes, Esc goes back):
    the check with the service never closes a batch by itself."""
    question = CloseBatchQuestion(check, parent, count)
    await shown(question)
    parent.activateWindow()  # the keys are the end-of-shift dialog's again
    return question.answered_yes


class CloseBatchQuestion(Question):
    """Close the batch of ``check``'s terminal now? ``count``: what the Z then records."""

    def __init__(self, check: ShiftCheck, parent: QWidget, count: str = "") -> None:
        super().__init__(_("Close the batch?"), _close_sentences(check, count),
                         (_("Close the batch  (Enter)"), _("Closes the terminal's batch now; this cannot be undone")),
                         (_("Back  (Esc)"), _("Back to the end of shift; nothing is closed")), parent)


def _close_sentences(check: ShiftCheck, count: str) -> str:
    said = [_("Close the batch of {terminal} now? The service settles its approved card payments: they can then "
              "be refunded, no longer voided. This cannot be undone.").format(terminal=check.terminal_id)]
    if count:
        said.append(count)
    if check.differences:
        number = len(check.differences)
        said.append(ngettext("{count} difference with the service: the batch is closed as the service has it.",
                             "{count} differences with the service: the batch is closed as the service has it.",
                             number).format(count=number))
    if check.open_attempts:
        number = len(check.open_attempts)
        said.append(ngettext("{count} attempt without a known result: the close is not sent until each is settled.",
                             "{count} attempts without a known result: the close is not sent until each is "
                             "settled.", number).format(count=number))
    return "\n\n".join(said)

