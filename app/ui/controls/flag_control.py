"""Controls for one flag of the table: a slider with an exact box, or a checkbox; both with a reset."""
from __future__ import annotations

import math
import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QHBoxLayout, QLabel, QSlider, QSpinBox, QToolButton, QWidget

_SLIDER_STEPS = 1000
#: The exact box takes any number a writer types, in the flag's range or not: the settings check it, and
#: an out-of-range value is refused with one line naming it (the box then shows the lane's value again).
#: A box clamped to the slider's span rewrote "1000" to "100" as it was typed and showed 500 for a lane
#: running top-k 1000.  The slider shows its end for a value beyond its span.
_BOX_INT = (-(2**31), 2**31 - 1)  # QSpinBox holds an int
_BOX_FLOAT = (-1e9, 1e9)


#: The decimals a float box takes (the value is rounded to 6 decimals, see ``FlagControl.value``).
BOX_DECIMALS = 6


def box_range(integer: bool) -> tuple:
    return _BOX_INT if integer else _BOX_FLOAT


def tooltip(row) -> str:
    return f"<b>{row.flag}</b><br>{row.help}<br><i>default: {row.default}</i>"


def _reset_button(row) -> QToolButton:
    button = QToolButton()
    button.setText("\u21ba")
    button.setToolTip(f"Reset {row.flag} to its default ({row.default})")
    return button


#: A number on its way to being typed: digits, a point, an exponent not yet finished ("1e", "2.5E-").
_PARTIAL_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d*)?([eE][+-]?\d*)?")


def number_state(text: str, lo: float, hi: float, integer: bool) -> QValidator.State:
    """How an exact box takes ``text``: a number as Python reads it (``1e3``, ``2.5E-2``, ``-7``) in
    [lo, hi] is acceptable (in an integer box, a whole one); a number still being typed is intermediate.
    Qt's own spin-box validator drops the ``e``, so "1e3" became 13."""
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        ok = _PARTIAL_NUMBER.fullmatch(text) is not None
        return QValidator.State.Intermediate if ok else QValidator.State.Invalid
    if not math.isfinite(value) or text.lower().lstrip("+-").startswith(("inf", "nan")):
        return QValidator.State.Invalid
    if (integer and value != int(value)) or not lo <= value <= hi:
        return QValidator.State.Intermediate  # Enter then puts the lane's value back
    return QValidator.State.Acceptable


class _NumberText:
    """The exact boxes' reading of typed text (:func:`number_state`); mixed into a Qt spin box."""

    integer = False

    def validate(self, text: str, pos: int):
        return number_state(text, self.minimum(), self.maximum(), self.integer), text, pos

    def valueFromText(self, text: str):
        value = float(text.strip())
        return int(value) if self.integer else value


class ExactIntBox(_NumberText, QSpinBox):
    """An integer exact box: ``1e3`` is 1000."""

    integer = True


class ExactBox(_NumberText, QDoubleSpinBox):
    """A float box that takes up to :data:`BOX_DECIMALS` decimals as typed and shows a value with the
    row's usual decimals when that is exact (0.180), else with as many as it has (0.12345), so that
    neither a typed nor a lane's value is rounded where the writer cannot see it.  ``1e-3`` is 0.001."""

    def __init__(self, shown_decimals: int):
        super().__init__()
        self.shown_decimals = shown_decimals
        self.setDecimals(BOX_DECIMALS)

    def textFromValue(self, value: float) -> str:
        short = f"{value:.{self.shown_decimals}f}"
        if float(short) == round(value, BOX_DECIMALS):
            return short
        return f"{value:.{BOX_DECIMALS}f}".rstrip("0")


class FlagControl(QWidget):
    """Edits one numeric flag.  ``edited(field, value)`` fires on every change by the user."""

    edited = Signal(str, object)

    def __init__(self, row, parent=None):
        super().__init__(parent)
        self.row = row
        self.integer = row.kind in ("int", "uint")
        self.label = QLabel(row.label)
        self.label.setMinimumWidth(118)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, _SLIDER_STEPS)
        self.box = ExactIntBox() if self.integer else ExactBox(max(row.decimals, 3))
        self.box.setRange(*box_range(self.integer))
        self.box.setSingleStep(int(row.step) if self.integer else row.step)
        self.box.setKeyboardTracking(False)
        self.box.setFixedWidth(self.box.fontMetrics().horizontalAdvance("-000000.000") + 36)  # all boxes in line
        self.reset = _reset_button(row)
        for w in (self.label, self.slider, self.box):
            w.setToolTip(tooltip(row))
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        for w, stretch in ((self.label, 0), (self.slider, 1), (self.box, 0), (self.reset, 0)):
            lay.addWidget(w, stretch)
        self._syncing = False
        self.slider.valueChanged.connect(self._from_slider)
        self.box.valueChanged.connect(self._from_box)
        self.reset.clicked.connect(lambda: self.edited.emit(row.field, row.default))
        self.show_value(row.default)

    def value(self):
        v = self.box.value()
        return int(v) if self.integer else round(float(v), 6)

    def show_value(self, value) -> None:
        """Show the lane's ``value`` in the box as it is (the slider at its end beyond its span),
        without a signal."""
        self._syncing = True
        try:
            self.box.setValue(int(value) if self.integer else float(value))
            self.slider.setValue(min(max(self._to_slider(self.box.value()), 0), _SLIDER_STEPS))
        finally:
            self._syncing = False

    def _to_slider(self, v: float) -> int:
        span = self.row.slider_hi - self.row.slider_lo
        return int(round((v - self.row.slider_lo) / span * _SLIDER_STEPS)) if span else 0

    def _from_slider(self, pos: int) -> None:
        if self._syncing:
            return
        row = self.row
        v = row.slider_lo + (row.slider_hi - row.slider_lo) * pos / _SLIDER_STEPS
        v = round(round(v / row.step) * row.step, 6)
        self.edited.emit(row.field, int(v) if self.integer else v)

    def _from_box(self, _v) -> None:
        if not self._syncing:
            self.edited.emit(self.row.field, self.value())


class FlagSwitch(QWidget):
    """Edits one on/off flag, with a reset like the sliders have."""

    edited = Signal(str, object)

    def __init__(self, row, parent=None):
        super().__init__(parent)
        self.row = row
        self.box = QCheckBox(row.label)
        self.box.setToolTip(tooltip(row))
        self.reset = _reset_button(row)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.box, 1)
        lay.addWidget(self.reset)
        self.box.toggled.connect(lambda on: self.edited.emit(row.field, bool(on)))
        self.reset.clicked.connect(lambda: self.edited.emit(row.field, row.default))

    def show_value(self, value) -> None:
        self.box.blockSignals(True)
        self.box.setChecked(bool(value))
        self.box.blockSignals(False)
