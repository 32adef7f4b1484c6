"""F3, the misc key: ring up something the catalog lacks at a price the cashier types (in
the store's format), taxed by a class of the merchant's taxes, with an optional description
(what the receipt prints).

By keyboard: the price has the keyboard, Tab moves to the tax (↑ ↓ pick one) and to the
description, Enter adds the line from any of them, Esc cancels. A price that cannot be is
said under the field, which keeps the keyboard; nothing is added. The counter reads the
price and adds the line (``Counter.read_price``, ``Counter.add_open_price``)."""

from __future__ import annotations

from pos_app.cart import MAX_DESCRIPTION, OPEN_PRICE_NAME, CartLine, TaxChoice, TaxClass
from pos_app.i18n import _
from pos_app.station.counter import Counter
from pos_app.ui.dialogs import enter_presses_focused_button
from pos_app.ui.qt import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
    asyncSlot,
)

TEXT_WIDTH_CHARS = 48
"""How wide the fields and the refusal under the price are, in characters."""


class OpenPriceDialog(QDialog):
    """Price, tax and description of one misc item; ``line`` is the line added once accepted."""

    def __init__(self, counter: Counter, taxes: TaxChoice, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.counter = counter
        self.line: CartLine | None = None
        self.setWindowTitle(_("Misc item"))
        money = counter.money
        self.price = QLineEdit()
        self.price.setAccessibleName(_("Price"))
        self.price.setPlaceholderText(_("e.g. {example}").format(example=money.example))
        self.problem = QLabel("")
        self.problem.setObjectName("problem")
        self.problem.setAccessibleName(_("Problem"))
        self.problem.setWordWrap(True)
        self.problem.hide()
        self.tax = QComboBox()
        self.tax.setObjectName("taxClass")
        self.tax.setAccessibleName(_("Tax"))
        for tax_class in taxes.classes:
            self.tax.addItem(tax_class.label(money.percent), tax_class)
        self.tax.setCurrentIndex(taxes.classes.index(taxes.default))
        self.description = QLineEdit()
        self.description.setAccessibleName(_("Description"))
        self.description.setPlaceholderText(_("{name} (if left empty)").format(name=_(OPEN_PRICE_NAME)))
        self.description.setMaxLength(MAX_DESCRIPTION)
        self.add_button = QPushButton(_("Add to sale  (Enter)"))
        self.add_button.setDefault(True)
        cancel = QPushButton(_("Cancel  (Esc)"))
        for widget, description in ((self.tax, _("The taxes the item carries")),
                                    (self.add_button, _("Adds the item to the sale at the price typed")),
                                    (cancel, _("Closes without adding the item"))):
            widget.setAccessibleDescription(description)
        form = QFormLayout()
        form.addRow(_("Price ({symbol})").format(symbol=money.symbol), self.price)
        form.addRow("", self.problem)
        form.addRow(_("Tax"), self.tax)
        form.addRow(_("Description"), self.description)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(_("An item the catalog lacks. Tab moves between the fields, ↑ ↓ pick the tax.")))
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.setSizeConstraint(QVBoxLayout.SizeConstraint.SetFixedSize)  # as tall as a refusal needs
        self.price.setMinimumWidth(self.fontMetrics().averageCharWidth() * TEXT_WIDTH_CHARS)
        self.add_button.clicked.connect(self._add)
        cancel.clicked.connect(self.reject)
        enter_presses_focused_button(self)
        self.price.setFocus()

    @asyncSlot()
    async def _add(self) -> None:
        try:
            cents = self.counter.read_price(self.price.text())
        except ValueError as error:
            self._refuse(str(error))
            return
        tax_class: TaxClass = self.tax.currentData()
        self.add_button.setEnabled(False)  # a second Enter while the line is added adds nothing
        try:
            self.line = await self.counter.add_open_price(self.description.text(), cents, tax_class.tax_ids)
        except ValueError as error:  # a tax the merchant stopped listing meanwhile (a sync)
            self._refuse(f"{str(error)[:1].upper()}{str(error)[1:]}")
            return
        finally:
            self.add_button.setEnabled(True)
        self.accept()

    def _refuse(self, sentence: str) -> None:
        """Say why under the price, which gets the keyboard with its text selected (typed over)."""
        self.problem.setText(sentence)
        self.problem.show()
        self.price.setFocus()
        self.price.selectAll()
