"""The sign-in screen: the PIN field has focus; typing a PIN and Enter signs in.

The screen is shown before the counter has opened (the window comes first, the catalog,
staff file and cart open meanwhile): a PIN entered before the counter is there waits for
it ("Starting…") and is checked the moment it arrives, so nothing typed is lost.

A PIN costs a slow hash per member to check (on purpose, see ``pos_app.staff``). As soon
as the field holds a possible PIN, it is worked out ahead on the counter's PIN thread
(``Counter.pin_ahead``: nothing counted, nothing shown), one at a time, the newest text
next: Enter usually finds the answer ready. Enter alone signs in, and only Enter counts
a wrong PIN toward the lockout.

After a refused PIN the field is emptied and keeps the keyboard, so the next PIN typed
goes into it. A lock (too many wrong PINs) is said as soon as the screen is shown, and
says who can lift it: a manager's PIN, or ``pos-app staff unlock`` once the lock takes no
PIN at all (see ``pos_app.staff.lockout``).
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

from pos_app.i18n import _, ngettext
from pos_app.ui.qt import QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget, Signal, asyncSlot

if TYPE_CHECKING:
    import asyncio
    from datetime import datetime

    from pos_app.staff import LockLevel, PinMatch
    from pos_app.station.counter import Counter
    from pos_app.ui.qt import QPaintEvent


log = logging.getLogger(__name__)

MESSAGE_WIDTH = 360


class PinField(QLineEdit):
    """The PIN field: says once that it has been painted (the start waits for that before
    its heavy work). Its text is centred by the theme (``qproperty-alignment``): the
    first screen does without the ``Qt`` namespace, whose set-up costs tens of
    milliseconds at a start."""

    painted = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.was_painted = False

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        super().paintEvent(event)
        if not self.was_painted:
            self.was_painted = True
            self.painted.emit()


class SignInScreen(QWidget):
    signed_in = Signal(object)  # StaffMember

    def __init__(self, counter: Counter | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.counter = counter
        self._waiting = False  # a PIN was entered before the counter arrived
        self._ahead: asyncio.Future[PinMatch | None] | None = None  # the PIN worked out ahead...
        self._ahead_pin = ""  # ...is this text
        self._typed = ""  # the field's text, worked out next when it differs
        self.setObjectName("signIn")
        self.title = QLabel()
        self.title.setObjectName("screenTitle")
        self.hint = QLabel()
        self.pin = PinField()
        self.pin.setObjectName("pinField")
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setMaxLength(8)
        self.message = QLabel("")
        self.message.setObjectName("errorText")
        self.message.setWordWrap(True)
        self.message.setMinimumWidth(MESSAGE_WIDTH)  # wraps under the field, not in a narrow column
        self.say_texts()
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        for widget in (self.title, self.hint, self.pin, self.message):
            widget.setMaximumWidth(420)
            row = QHBoxLayout()  # centred between two stretches
            row.addStretch(1)
            row.addWidget(widget)
            row.addStretch(1)
            layout.addLayout(row)
        layout.addStretch(2)
        self.pin.returnPressed.connect(self._submit)
        self.pin.textChanged.connect(self._text_changed)

    def say_texts(self) -> None:
        """The screen's words in the screens' language now (the PIN typed is kept): again
        at each ``reset`` and when the language changes."""
        self.title.setText(_("Sign in"))
        self.hint.setText(_("Type your PIN and press Enter"))
        self.pin.setPlaceholderText(_("PIN"))
        self.pin.setAccessibleName(_("PIN"))
        self.message.setAccessibleName(_("Sign-in message"))

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        self.pin.setFocus()

    def attach(self, counter: Counter) -> None:
        """The counter is open: a PIN waiting for it is checked now, one being typed is
        worked out ahead."""
        self.counter = counter
        if self._waiting:
            self._waiting = False
            self._submit()
        else:
            self._text_changed(self.pin.text())
            self._say_lock()

    def reset(self) -> None:
        self.say_texts()
        self.pin.clear()
        self.message.setText("")
        self.pin.setFocus()
        if self.counter is not None:
            self._say_lock()

    @asyncSlot()
    async def _say_lock(self) -> None:
        """Say a lock that is on (one from before a restart, or set on another screen)."""
        assert self.counter is not None
        from pos_app.staff import StaffError

        try:
            state = await self.counter.disk(self.counter.staff.lock_state)
        except StaffError:
            return  # the next PIN entered says what is wrong with the staff file
        if state.until is not None and not self.message.text() and self.pin.isEnabled():
            self.message.setText(lock_sentence(state.level, state.until))

    def _text_changed(self, text: str) -> None:
        self._typed = text
        if self.counter is not None and text and (self._ahead is None or self._ahead.done()):
            self._work_out(text)

    def _work_out(self, text: str) -> None:
        assert self.counter is not None
        self._ahead_pin = text
        self._ahead = self.counter.pin_ahead(text)
        self._ahead.add_done_callback(self._worked_out)

    def _worked_out(self, ahead: asyncio.Future[PinMatch | None]) -> None:
        if ahead is self._ahead and self._typed and self._typed != self._ahead_pin:
            self._work_out(self._typed)  # typed on meanwhile: the newest text next

    async def _match_for(self, pin: str) -> PinMatch | None:
        """The answer worked out ahead for ``pin`` (waited for if still under way), else
        None; forgotten either way (it holds the PIN)."""
        ahead, ahead_pin = self._ahead, self._ahead_pin
        self._ahead, self._ahead_pin, self._typed = None, "", ""
        if ahead is None or ahead_pin != pin:
            return None
        with contextlib.suppress(Exception):  # a failed look-ahead: the sign-in checks by itself
            return await ahead
        return None

    def _submit(self) -> None:
        """Enter: the PIN is checked, or waits for the counter (the first moments of a
        start, when not even the event loop runs yet)."""
        self.pin.setEnabled(False)
        if self.counter is None:
            self._waiting = True
            self.message.setText(_("Starting… your PIN is checked in a moment."))
            return
        self._check()

    @asyncSlot()
    async def _check(self) -> None:
        assert self.counter is not None
        from pos_app.staff import InvalidPin, LockedOut, StaffError, WrongPin  # imported with the counter

        pin = self.pin.text()
        self.message.setText(_("Checking…"))
        try:
            member = await self.counter.sign_in(pin, ahead=await self._match_for(pin))
        except WrongPin as error:
            self._refuse(ngettext("That PIN is not right: {count} try left before sign-in locks.",
                                   "That PIN is not right: {count} tries left before sign-in locks.",
                                   error.tries_left).format(count=error.tries_left))
        except LockedOut as error:
            self._refuse(lock_sentence(error.level, error.until))
        except InvalidPin:
            self._refuse(_("A PIN is 4 to 8 digits."))
        except StaffError as error:
            self._refuse(_("Sign-in is not possible right now: {error}").format(error=error))
        else:
            self.pin.clear()
            self.message.setText("")
            self.signed_in.emit(member)
        finally:
            self.pin.setEnabled(True)

    def _refuse(self, text: str) -> None:
        """Say why, and give the emptied field the keyboard back (a disabled field cannot
        take it: the next PIN typed would go nowhere)."""
        self.pin.setEnabled(True)
        self.pin.clear()
        self.message.setText(text)
        self.pin.setFocus()
        log.info("sign-in refused: %s", text)


def lock_sentence(level: LockLevel, until: datetime) -> str:
    """What the sign-in screen says of a lock ending at ``until``."""
    from pos_app.staff import LockLevel

    local = until.astimezone().strftime("%H:%M")
    if level is LockLevel.CLOSED:
        return _("Too many wrong PINs: sign-in is locked until {time}, even for a manager. "
                 "Running `pos-app staff unlock` on this computer lifts it sooner.").format(time=local)
    return _("Too many wrong PINs: sign-in is locked until {time}. A manager's PIN signs in and lifts the "
             "lock.").format(time=local)
