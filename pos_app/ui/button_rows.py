"""A row of buttons that takes two rows when its labels would make a window wider than a
lane's screen (Spanish and French words run longer than English ones)."""

from __future__ import annotations

from collections.abc import Sequence

from pos_app.ui.qt import QGridLayout, QPushButton

ROW_ROOM = 900
"""Pixels a row of buttons may take in a 1000-pixel window (a 1024×768 screen)."""


def button_rows(buttons: Sequence[QPushButton], room: int = ROW_ROOM) -> QGridLayout:
    """``buttons`` in order, on one row, or on two (the first half above) when their labels
    need more than ``room`` pixels side by side; stretch after the last column."""
    layout = QGridLayout()
    per_row = len(buttons) if sum(button.sizeHint().width() for button in buttons) <= room else \
        (len(buttons) + 1) // 2
    for index, button in enumerate(buttons):
        layout.addWidget(button, index // per_row, index % per_row)
    layout.setColumnStretch(per_row, 1)
    return layout
