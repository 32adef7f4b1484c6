"""The sign-in screen: the PIN field has focus; typing a PIN and Enter signs in."""

from __future__ import annotations

from pos_app.staff import InvalidPin, LockedOut, StaffError, WrongPin
from pos_app.station.counter import Counter
from pos_app.ui.qt import QLabel, QLineEdit, Qt, QVBoxLayout, QWidget, Signal, asyncSlot


class SignInScreen(QWidget):
    signed_in = Signal(object)  # StaffMember

    def __init__(self, counter: Counter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.counter = counter
        self.setObjectName("signIn")
        title = QLabel("Sign in")
        title.setObjectName("screenTitle")
        hint = QLabel("Type your PIN and press Enter")
        self.pin = QLineEdit()
        self.pin.setObjectName("pinField")
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setMaxLength(8)
        self.pin.setPlaceholderText("PIN")
        self.pin.setAccessibleName("PIN")
        self.pin.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message = QLabel("")
        self.message.setObjectName("errorText")
        self.message.setWordWrap(True)
        self.message.setAccessibleName("Sign-in message")
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        for widget in (title, hint, self.pin, self.message):
            widget.setMaximumWidth(420)
            layout.addWidget(widget, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addStretch(2)
        self.pin.returnPressed.connect(self._submit)

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        super().showEvent(event)
        self.pin.setFocus()

    def reset(self) -> None:
        self.pin.clear()
        self.message.setText("")
        self.pin.setFocus()

    @asyncSlot()
    async def _submit(self) -> None:
        pin = self.pin.text()
        self.pin.setEnabled(False)
        self.message.setText("Checking…")
        try:
            member = await self.counter.sign_in(pin)
        except WrongPin as error:
            self._refuse(f"That PIN is not right. {error.tries_left} tries left before sign-in locks.")
        except LockedOut as error:
            until = error.until.astimezone().strftime("%H:%M")
            self._refuse(f"Too many wrong PINs: sign-in is locked until {until}. Ask a manager.")
        except InvalidPin:
            self._refuse("A PIN is 4 to 8 digits.")
        except StaffError as error:
            self._refuse(f"Sign-in is not possible right now: {error}")
        else:
            self.pin.clear()
            self.message.setText("")
            self.signed_in.emit(member)
        finally:
            self.pin.setEnabled(True)

    def _refuse(self, text: str) -> None:
        self.pin.clear()
        self.message.setText(text)
        self.pin.setFocus()
