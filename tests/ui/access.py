"""Reads a window's accessible tree as a screen reader does (Qt's ``QAccessible`` API) and
lists the controls it would announce without a name."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAccessible

CONTROLS = {
    QAccessible.Role.PushButton, QAccessible.Role.CheckBox, QAccessible.Role.RadioButton, QAccessible.Role.ComboBox,
    QAccessible.Role.EditableText, QAccessible.Role.SpinBox, QAccessible.Role.List, QAccessible.Role.Table,
    QAccessible.Role.Tree, QAccessible.Role.PageTabList, QAccessible.Role.Slider, QAccessible.Role.ButtonMenu,
    QAccessible.Role.ButtonDropDown, QAccessible.Role.Document,
}
"""What a person operates: each must be announced with a name."""
LEAVES = {QAccessible.Role.Table, QAccessible.Role.List, QAccessible.Role.Tree, QAccessible.Role.ComboBox}
"""Controls whose children are data (rows, cells, items): their names come from the data."""


def controls(widget: Any) -> list[tuple[str, str, str, str, str]]:
    """(role, name, the widget's class and object name, the name set on it, description) of
    each visible control under ``widget``."""
    found: list[tuple[str, str, str, str, str]] = []

    def walk(interface: Any) -> None:
        if interface is None or not interface.isValid() or interface.state().invisible:
            return
        role = interface.role()
        if role in CONTROLS:
            obj = interface.object()
            where = f"{type(obj).__name__} {obj.objectName()!r}" if obj is not None else "?"
            own = obj.accessibleName() if obj is not None and hasattr(obj, "accessibleName") else ""
            found.append((role.name, interface.text(QAccessible.Text.Name).strip(), where, own,
                          interface.text(QAccessible.Text.Description).strip()))
        if role in LEAVES:
            return
        for index in range(interface.childCount()):
            walk(interface.child(index))

    walk(QAccessible.queryAccessibleInterface(widget))
    return found


def unnamed(widget: Any) -> list[str]:
    """Controls without a name; a combo box needs one of its own (Qt's fallback, the current
    choice, does not say what is chosen)."""
    found = []
    for role, name, where, own, _description in controls(widget):
        if not name or (role == QAccessible.Role.ComboBox.name and not own):
            found.append(f"{role} ({where})")
    return found


def undescribed(widget: Any) -> list[str]:
    """Controls a person operates (keys, fields, check boxes, choices) without a description
    of their own: what a screen reader says after the name, what the control does. Lists
    and tables describe themselves by their rows."""
    found = []
    for role, name, where, _own, description in controls(widget):
        if role in DESCRIBED_ROLES and not description:
            found.append(f"{role} {name!r} ({where})")
    return found


DESCRIBED_ROLES = {QAccessible.Role.PushButton.name, QAccessible.Role.CheckBox.name,
                   QAccessible.Role.RadioButton.name, QAccessible.Role.ComboBox.name,
                   QAccessible.Role.EditableText.name, QAccessible.Role.SpinBox.name}


def tab_order(root: Any) -> list[Any]:
    """The widgets Tab reaches in ``root``, in order, from the one with the focus (shown and
    enabled ones: a disabled key is skipped by Tab too)."""
    from PySide6.QtCore import Qt

    start = root.focusWidget() or root
    found = [start]
    widget = start.nextInFocusChain()
    while widget is not start and len(found) < 500:
        if (root.isAncestorOf(widget) and widget.isVisibleTo(root) and widget.isEnabled()
                and widget.focusPolicy() & Qt.FocusPolicy.TabFocus):
            found.append(widget)
        widget = widget.nextInFocusChain()
    return found
