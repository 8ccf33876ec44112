"""A slider and an exact numeric box kept in sync, with a reset-to-default button."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QSlider, QSpinBox, QToolButton, QWidget

from .flag_specs import ControlSpec

_SLIDER_STEPS = 1000


class FlagControl(QWidget):
    """Edits one numeric flag.  ``valueChanged(field, value)`` fires on every change."""

    valueChanged = Signal(str, object)

    def __init__(self, spec: ControlSpec, parent=None):
        super().__init__(parent)
        self.spec = spec
        self.label = QLabel(spec.label)
        self.label.setMinimumWidth(118)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, _SLIDER_STEPS)
        self.box = QSpinBox() if spec.integer else QDoubleSpinBox()
        if not spec.integer:
            self.box.setDecimals(max(spec.decimals, 3))
        self.box.setRange(int(spec.lo) if spec.integer else spec.lo, int(spec.hi) if spec.integer else spec.hi)
        self.box.setSingleStep(int(spec.step) if spec.integer else spec.step)
        self.box.setKeyboardTracking(False)
        self.box.setMinimumWidth(76)
        self.reset = QToolButton()
        self.reset.setText("\u21ba")
        self.reset.setToolTip(f"Reset to the default ({spec.default()})")
        for w in (self.label, self.slider, self.box):
            w.setToolTip(spec.tooltip())
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label)
        row.addWidget(self.slider, 1)
        row.addWidget(self.box)
        row.addWidget(self.reset)
        self._syncing = False
        self.slider.valueChanged.connect(self._from_slider)
        self.box.valueChanged.connect(self._from_box)
        self.reset.clicked.connect(lambda: self.set_value(spec.default(), emit=True))
        self.set_value(spec.default(), emit=False)

    def value(self):
        v = self.box.value()
        return int(v) if self.spec.integer else round(float(v), 6)

    def set_value(self, value, *, emit: bool = False) -> None:
        """Show ``value`` (clamped to the box's range) without emitting unless asked."""
        self._syncing = True
        try:
            self.box.setValue(int(value) if self.spec.integer else float(value))
            self.slider.setValue(self._to_slider(self.box.value()))
        finally:
            self._syncing = False
        if emit:
            self.valueChanged.emit(self.spec.field, self.value())

    def _to_slider(self, v: float) -> int:
        span = self.spec.hi - self.spec.lo
        return int(round((v - self.spec.lo) / span * _SLIDER_STEPS)) if span else 0

    def _from_slider(self, pos: int) -> None:
        if self._syncing:
            return
        v = self.spec.lo + (self.spec.hi - self.spec.lo) * pos / _SLIDER_STEPS
        step = self.spec.step
        v = round(round(v / step) * step, 6)
        self._syncing = True
        try:
            self.box.setValue(int(v) if self.spec.integer else v)
        finally:
            self._syncing = False
        self.valueChanged.emit(self.spec.field, self.value())

    def _from_box(self, _v) -> None:
        if self._syncing:
            return
        self._syncing = True
        try:
            self.slider.setValue(self._to_slider(self.box.value()))
        finally:
            self._syncing = False
        self.valueChanged.emit(self.spec.field, self.value())
