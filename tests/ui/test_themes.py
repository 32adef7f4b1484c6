"""The themes: light, dark and high contrast, their sizes scaled with the system's text size."""

from __future__ import annotations

from pos_app.profile import Theme
from pos_app.ui import theme


def test_sizes_scale_but_borders_and_padding_stay():
    sheet = "QLabel { font-size: 20px; min-height: 44px; border: 2px solid #fff; padding: 6px; }"
    assert theme.scaled(sheet, 1.5) == (
        "QLabel { font-size: 30px; min-height: 66px; border: 2px solid #fff; padding: 6px; }")


def test_every_theme_has_a_file_with_the_same_widgets_named():
    selectors = {}
    for name in Theme:
        text = theme.theme_path(name).read_text(encoding="utf-8")
        selectors[name] = {line.split("{")[0].strip() for line in text.splitlines() if "{" in line}
    assert selectors[Theme.LIGHT] <= selectors[Theme.HIGH_CONTRAST]
    assert selectors[Theme.LIGHT] == selectors[Theme.DARK]


def test_a_system_text_of_150_percent_makes_the_app_text_150_percent(qapp, monkeypatch):
    from pos_app.ui.qt import QLabel

    label = QLabel("Total")
    label.setObjectName("grandTotal")
    monkeypatch.setattr(theme, "_system_point_size", [theme.NOMINAL_POINT_SIZE])
    theme.apply_theme(qapp, "light")
    label.ensurePolished()
    normal = label.font().pixelSize()
    monkeypatch.setattr(theme, "_system_point_size", [theme.NOMINAL_POINT_SIZE * 1.5])
    theme.apply_theme(qapp, "light")
    label.setStyleSheet("")  # polish again under the new sheet
    label.ensurePolished()
    assert normal == 32
    assert label.font().pixelSize() == 48
