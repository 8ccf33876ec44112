"""Sliders, number boxes and drop-down lists take the mouse wheel only when they have the keyboard focus.

Scrolling the settings panel with the wheel went through whatever control passed under the pointer:
top-k 40 became 0 and DRY base 1.75 became 1.55, with no message.  A guarded control no longer takes the
focus from the wheel (its focus policy is ``StrongFocus``: a click or Tab gives it), and a wheel turn over
it while it lacks the focus is passed on to what holds it (the scrolling page), as if it were not there.
Once clicked or tabbed into, the wheel steps it as before.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSlider, QAbstractSpinBox, QComboBox, QWidget

#: The controls whose value a wheel turn changes.
GUARDED = (QAbstractSlider, QAbstractSpinBox, QComboBox)


class _WheelGuard(QObject):
    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Wheel and not obj.hasFocus():
            event.ignore()  # not taken here: Qt offers it to the parents (the scroll area scrolls)
            return True
        return False


def guard_wheel(root: QWidget) -> int:
    """Guard every slider, spin box and combo box under ``root`` (``root`` too); how many were guarded
    now (a control guarded before is left as it is, so this may be called again after new rows)."""
    guard = root.findChild(_WheelGuard, "wheel_guard")
    if guard is None:
        guard = _WheelGuard(root)
        guard.setObjectName("wheel_guard")
    widgets = [w for w in (root, *root.findChildren(QWidget)) if isinstance(w, GUARDED)]
    count = 0
    for widget in widgets:
        if widget.property("wheel_guarded"):
            continue
        widget.setProperty("wheel_guarded", True)
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        widget.installEventFilter(guard)
        count += 1
    return count
