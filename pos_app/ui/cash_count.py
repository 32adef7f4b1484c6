"""The drawer's count on the F10 screen: the expected cash with its parts (left), the count
(right): "Counted cash" as a total, or by notes and coins (Alt+N: a field per piece of the
store's currency, Tab from the largest to the smallest, the total kept up to date as typed),
the cash left in the drawer for the next shift (prefilled with ``opening_float``), and the
difference as the count is typed: over or short, and whether it is beyond the limit (the
close then needs a manager's PIN and a reason).

Every figure and sentence comes from ``pos_app.station.drawer_count`` and
``pos_app.station.denominations``; this widget only shows them and reads the keys.
"""

from __future__ import annotations

from math import ceil

from pos_app.i18n import _
from pos_app.money import MoneyFormat
from pos_app.station.cash_shift import CashShift
from pos_app.station.denominations import MAX_PIECES, Denomination, denominations, drawer_total, pieces
from pos_app.station.drawer_count import CountCheck, check_count, expected_rows
from pos_app.station.z_document import signed
from pos_app.ui.qt import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QIntValidator,
    QKeySequence,
    QLabel,
    QLineEdit,
    QPushButton,
    QShortcut,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)

RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
GRID_COLUMNS = 4
"""At most this many columns of pieces (notes and coins apart): a drawer fits in 3 or 4 rows."""


class PiecesGrid(QWidget):
    """A count field per note and coin of the currency (Tab: largest to smallest)."""

    changed = Signal()

    def __init__(self, money: MoneyFormat) -> None:
        super().__init__()
        self.pieces = denominations(money.currency)
        self.fields: list[QLineEdit] = []
        notes = [piece for piece in self.pieces if piece.note]
        coins = [piece for piece in self.pieces if not piece.note]
        rows = next(r for r in range(3, len(self.pieces) + 4)
                    if ceil(len(notes) / r) + ceil(len(coins) / r) <= GRID_COLUMNS)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(4)
        column = 0
        for heading, group in ((_("Notes"), notes), (_("Coins"), coins)):
            for index, piece in enumerate(group):
                if index % rows == 0:
                    title = QLabel(heading if index == 0 else "")
                    title.setObjectName("countHeading")
                    grid.addWidget(title, 0, column * 2, 1, 2)
                    column += 1
                row, at = 1 + index % rows, (column - 1) * 2
                label, field = QLabel(f"{money.piece(piece.value)} ×"), self._field(money, piece)
                label.setAlignment(RIGHT)
                label.setBuddy(field)
                grid.addWidget(label, row, at)
                grid.addWidget(field, row, at + 1)
        for before, after in zip(self.fields, self.fields[1:], strict=False):
            QWidget.setTabOrder(before, after)

    def _field(self, money: MoneyFormat, piece: Denomination) -> QLineEdit:
        field = QLineEdit()
        field.setObjectName("pieceCount")
        field.setAccessibleName((_("{piece} notes") if piece.note else _("{piece} coins")).format(
            piece=money.piece(piece.value)))
        field.setPlaceholderText("0")
        field.setValidator(QIntValidator(0, MAX_PIECES, field))
        field.setMaxLength(len(str(MAX_PIECES)))
        field.setAlignment(RIGHT)
        field.textChanged.connect(self.changed)
        self.fields.append(field)
        return field

    def total(self) -> int:
        """The cash of the pieces typed (an empty field counts 0)."""
        return drawer_total((piece, pieces(field.text())) for piece, field in zip(self.pieces, self.fields,
                                                                                  strict=True))

    def field_of(self, value: int, *, note: bool) -> QLineEdit:
        return next(f for p, f in zip(self.pieces, self.fields, strict=True) if (p.value, p.note) == (value, note))


class CashCountPanel(QWidget):
    """The expected cash and the count (see the module). ``changed``: the count was edited."""

    changed = Signal()

    def __init__(self, money: MoneyFormat, *, limit: int, opening_float: int) -> None:
        super().__init__()
        self.money = money
        self.limit = limit
        self.shift: CashShift | None = None
        self.setObjectName("cashCount")
        self.parts = QGridLayout()
        self.parts.setVerticalSpacing(2)
        self.counted = QLineEdit()
        self.counted.setObjectName("countedCash")
        self.counted.setAccessibleName(_("Counted cash"))
        self.counted.setPlaceholderText(_("e.g. {example}").format(example=money.example))
        self.counted.setMinimumWidth(170)
        self.by_pieces = QPushButton(_("Notes and coins  (Alt+N)"))
        self.by_pieces.setCheckable(True)
        self.by_pieces.setAccessibleDescription(_("Counts the drawer by notes and coins instead of one total"))
        self.counted.setAccessibleDescription(_("The cash counted in the drawer, typed the store's way"))
        self.grid = PiecesGrid(money)
        self.grid.hide()
        self.by_pieces.setVisible(bool(self.grid.pieces))
        self.left = QLineEdit(money.field(opening_float))
        self.left.setObjectName("leftInDrawer")
        self.left.setAccessibleName(_("Cash left in the drawer"))
        self.left.setAccessibleDescription(_("The cash left in the drawer for the next shift"))
        self.left.setMinimumWidth(170)
        self.counted_shown = QLabel("-")
        self.over_short = QLabel("-")
        self.over_short.setObjectName("overShortAmount")
        self.over_short.setAccessibleName(_("Over/short"))
        for amount in (self.counted_shown, self.over_short):
            amount.setAlignment(RIGHT)
        self.difference = QLabel("")
        self.difference.setObjectName("overShort")
        self.difference.setAccessibleName(_("Over or short"))
        self.difference.setWordWrap(True)
        self.problem = QLabel("")
        self.problem.setObjectName("problem")
        self.problem.setWordWrap(True)

        result = QGridLayout()  # what the count gives, under the expected cash
        result.setVerticalSpacing(2)
        result.addWidget(QLabel(_("Counted cash")), 0, 0)
        result.addWidget(self.counted_shown, 0, 1)
        result.addWidget(QLabel(_("Over/short")), 1, 0)
        result.addWidget(self.over_short, 1, 1)
        expected = QVBoxLayout()
        expected.addWidget(_heading(_("Expected cash in the drawer")))
        expected.addLayout(self.parts)
        expected.addLayout(result)
        expected.addStretch(1)
        entry = QHBoxLayout()
        entry.addWidget(QLabel(_("Counted cash")))
        entry.addWidget(self.counted, 1)
        left = QHBoxLayout()
        left.addWidget(QLabel(_("Cash left in the drawer")))
        left.addWidget(self.left, 1)
        float_note = QLabel(_("(the next shift's float)"))  # under the field: beside it, longer words widen F10
        count = QVBoxLayout()
        count.addWidget(_heading(_("Count the drawer")))
        count.addLayout(entry)
        count.addWidget(self.by_pieces, 0, Qt.AlignmentFlag.AlignRight)  # below: beside, long words widen F10
        count.addWidget(self.grid)
        count.addLayout(left)
        count.addWidget(float_note)
        count.addStretch(1)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.VLine)
        columns = QHBoxLayout()
        columns.addLayout(expected, 0)
        columns.addWidget(line)
        columns.addLayout(count, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.addLayout(columns)
        layout.addWidget(self.difference)  # the whole width: read at a glance
        layout.addWidget(self.problem)
        policy = self.sizePolicy()
        policy.setHeightForWidth(True)  # as tall as its wrapped sentences (else they are cut)
        self.setSizePolicy(policy)

        QShortcut(QKeySequence("Alt+N"), self, activated=self.by_pieces.click)
        self.by_pieces.toggled.connect(self._pieces_shown)
        self.counted.textChanged.connect(self._edited)
        self.left.textChanged.connect(self._edited)
        self.grid.changed.connect(self._pieces_changed)
        QWidget.setTabOrder(self.counted, self.by_pieces)
        QWidget.setTabOrder(self.by_pieces, self.grid.fields[0] if self.grid.fields else self.left)
        if self.grid.fields:
            QWidget.setTabOrder(self.grid.fields[-1], self.left)

    def show_shift(self, shift: CashShift) -> None:
        """The shift the count is made against: its expected cash and parts."""
        self.shift = shift
        fill_parts(self.parts, shift, self.money)
        self._edited()

    def focus(self) -> None:
        target = self.grid.fields[0] if self.by_pieces.isChecked() else self.counted
        target.setFocus()
        target.selectAll()

    def counted_cents(self) -> int | None:
        """The cash counted (None: nothing typed yet); ``AmountError``, ``ValueError``."""
        if self.by_pieces.isChecked():
            return self.grid.total()
        return self.money.parse(self.counted.text())

    def left_cents(self) -> int:
        """The cash left in the drawer (nothing typed: 0); ``AmountError``."""
        return self.money.parse(self.left.text()) or 0

    def check(self) -> CountCheck | None:
        """The count typed so far against the expected cash; None when the shift is not read
        yet or a field holds no amount (the problem line says which)."""
        if self.shift is None:
            return None
        try:
            counted = self.counted_cents()
            self.left_cents()
        except ValueError as error:  # AmountError too: a sentence with an example
            self.problem.setText(f"{str(error)[:1].upper()}{str(error)[1:]}.")
            return None
        self.problem.setText("")
        return check_count(self.shift, counted, self.limit)

    def refuse(self, sentence: str, field: QLineEdit | None = None) -> None:
        self.problem.setText(sentence)
        target = field or (self.grid.fields[0] if self.by_pieces.isChecked() else self.counted)
        target.setFocus()
        target.selectAll()

    def set_editable(self, editable: bool) -> None:
        """Done (the Z written): the count stays in view, no longer typed into."""
        for widget in (self.counted, self.left, self.by_pieces, *self.grid.fields):
            widget.setEnabled(editable)
        if not editable and self.by_pieces.isChecked():
            self.by_pieces.setChecked(False)

    def quiet(self) -> None:
        """The sentence under the count hidden until the count is edited again (a close's
        result is shown below it: the room is needed on a 768-pixel screen)."""
        self.difference.hide()

    def _pieces_shown(self, shown: bool) -> None:
        self.grid.setVisible(shown)
        self.counted.setReadOnly(shown)
        self.counted.setFocusPolicy(Qt.FocusPolicy.NoFocus if shown else Qt.FocusPolicy.StrongFocus)
        if shown:
            self._pieces_changed()
        self.focus()

    def _pieces_changed(self) -> None:
        try:
            self.counted.setText(self.money.field(self.grid.total()))
        except ValueError as error:
            self.problem.setText(f"{str(error)[:1].upper()}{str(error)[1:]}.")

    def _edited(self) -> None:
        found = self.check()
        self.difference.setText("" if found is None else found.sentence(self.money))
        self.difference.setVisible(self.counted.isEnabled())
        counted = None if found is None else found.counted
        self.counted_shown.setText("-" if counted is None else self.money(counted))
        difference = None if found is None else found.over_short
        self.over_short.setText("-" if difference is None else signed(self.money, difference))
        judged = "" if found is None or found.state is None else (
            "beyond" if found.beyond_limit else "balanced" if found.over_short == 0 else "within")
        for label in (self.difference, self.over_short):
            label.setProperty("judged", judged)
            label.style().unpolish(label)
            label.style().polish(label)
        self.changed.emit()


def fill_parts(parts: QGridLayout, shift: CashShift, money: MoneyFormat) -> None:
    """``parts`` (emptied first) lists the expected cash's parts and, in bold, the total."""
    while parts.count():
        item = parts.takeAt(0)
        if item is not None and item.widget() is not None:
            item.widget().deleteLater()
    rows, total = expected_rows(shift, money)
    for row, (label, amount) in enumerate((*rows, total)):
        name, value = QLabel(_(label)), QLabel(amount)
        value.setAlignment(RIGHT)
        if row == len(rows):
            for widget in (name, value):
                widget.setObjectName("expectedCash")
            value.setAccessibleName(_("Expected cash"))
        parts.addWidget(name, row, 0)
        parts.addWidget(value, row, 1)


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("countHeading")
    return label
