"""Presets ▸ Pick … (Ctrl+P): every preset in a list a writer can search, each with what it changes.

Type to filter (any part of the name or the description, any case), Up / Down
to move, Enter to give the edited lane the preset (its seed stays).  Beside the
list: the preset's description and its flags where they differ from
llama.cpp's defaults (``to_flags`` prints only those), and, when the edited
lane came from that preset and was edited since, what the lane changed.
"""
from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QTextBrowser,
    QVBoxLayout,
)

from sampler import to_flags
from sampler.flags import quote
from sampler.flagtable import ROW_BY_FIELD


def matches(preset, words: str) -> bool:
    """Whether every word typed is in the preset's name or description (any case)."""
    hay = f"{preset.name} {preset.description}".casefold()
    return all(word in hay for word in words.casefold().split())


def changed_values(settings, base) -> list[str]:
    """Each setting of ``settings`` that differs from ``base``'s: "Top-k: 40 -> 80" (the seed aside)."""
    return [f"{row.label}: {base.get(row.field)!r} \u2192 {settings.get(row.field)!r}"
            for row in ROW_BY_FIELD.values() if row.field != "seed" and settings.get(row.field) != base.get(row.field)]


class PresetPicker(QDialog):
    def __init__(self, state, playground, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Pick a preset for the edited lane")
        self.resize(760, 460)
        self.state, self.playground = state, playground
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search presets (name or description)")
        self.search.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.about = QTextBrowser()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.choose)
        buttons.rejected.connect(self.reject)
        self.search.textChanged.connect(self.refill)
        self.search.returnPressed.connect(self.choose)
        self.list.currentItemChanged.connect(lambda *_: self.describe())
        self.list.itemActivated.connect(lambda _item: self.choose())
        self.search.installEventFilter(self)  # Up / Down in the search move in the list
        row = QHBoxLayout()
        row.addWidget(self.list, 2)
        row.addWidget(self.about, 3)
        lay = QVBoxLayout(self)
        lay.addWidget(self.search)
        lay.addLayout(row, 1)
        lay.addWidget(buttons)
        self.refill()

    def eventFilter(self, obj, event) -> bool:
        if obj is self.search and event.type() == event.Type.KeyPress and event.key() in (Qt.Key.Key_Up,
                                                                                          Qt.Key.Key_Down):
            step = -1 if event.key() == Qt.Key.Key_Up else 1
            self.list.setCurrentRow(min(max(self.list.currentRow() + step, 0), self.list.count() - 1))
            return True
        return super().eventFilter(obj, event)

    def refill(self) -> None:
        """The presets that match the search, the edited lane's own first when it matches."""
        words = self.search.text()
        lane_preset = (self.state.lane().preset or "").casefold()
        self.list.clear()
        for preset in self.playground.presets.all_presets():
            if matches(preset, words):
                item = QListWidgetItem(preset.name)
                item.setData(Qt.ItemDataRole.UserRole, preset.name)
                item.setToolTip(preset.description)
                self.list.addItem(item)
                if preset.name.casefold() == lane_preset and self.list.currentRow() < 0:
                    self.list.setCurrentItem(item)
        if self.list.currentRow() < 0 and self.list.count():
            self.list.setCurrentRow(0)
        self.describe()

    def chosen(self) -> str | None:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def describe(self) -> None:
        name = self.chosen()
        if name is None:
            self.about.setHtml("<i>No preset matches.</i>")
            return
        preset = self.playground.presets.get(name)
        flags = quote(to_flags(preset.settings, include_seed=False)) or "nothing: llama.cpp's defaults"
        parts = [f"<h3>{html.escape(preset.name)}</h3><p>{html.escape(preset.description)}</p>",
                 f"<p><b>Against llama.cpp's defaults</b><br><code>{html.escape(flags)}</code></p>"]
        lane = self.state.lane()
        if lane.preset and lane.preset.casefold() == preset.name.casefold():
            edits = changed_values(lane.settings, preset.settings.replace(seed=lane.settings.seed))
            said = "<br>".join(html.escape(e) for e in edits) or "nothing: it is as the preset was"
            parts.append(f"<p><b>Lane {self.state.current_lane + 1} changed since</b><br><code>{said}</code></p>")
        self.about.setHtml("".join(parts))

    def choose(self) -> None:
        name = self.chosen()
        if name is not None:
            self.playground.lanes.apply_preset(self.state.current_lane, name)
            self.accept()
