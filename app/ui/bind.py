"""Showing a state's value in a widget without echoing it back: the value is set only when it differs
from what the widget shows, with the widget's signals blocked (its edits are what reach the state)."""
from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLineEdit


def show_index(box: QComboBox, index: int) -> None:
    """Select ``index`` (-1: none, for a choice the list no longer holds)."""
    if box.currentIndex() != index:
        with QSignalBlocker(box):
            box.setCurrentIndex(index)


def show_value(spin, value) -> None:
    """A spin box (whole or decimal) shows ``value``."""
    if spin.value() != value:
        with QSignalBlocker(spin):
            spin.setValue(value)


def show_checked(button: QAbstractButton, on: bool) -> None:
    if button.isChecked() != on:
        with QSignalBlocker(button):
            button.setChecked(on)


def show_text(line: QLineEdit, text: str) -> None:
    if line.text() != text:
        with QSignalBlocker(line):
            line.setText(text)


def refill(box: QComboBox, items: Iterable[tuple[str, object]]) -> None:
    """The list's items are now ``(label, data)``, put in without a signal (show the state's choice after)."""
    with QSignalBlocker(box):
        box.clear()
        for label, data in items:
            box.addItem(label, data)
