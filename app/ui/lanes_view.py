"""Side-by-side lanes: each with its preset, its text and a line of statistics, bound to the state."""
from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox, QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QRadioButton, QSplitter, QStackedWidget, QToolButton,
    QVBoxLayout,
)

from app.analysis import first_divergence, lane_stats

from .branch_bar import BranchBar
from .text_pane import TokenTextPane
from .token_format import TokenChips
from .token_menu import token_menu

STATS_ROWS = (
    ("entropy", "mean entropy", "{:.3f}"), ("mean_rank", "mean chosen rank", "{:.2f}"),
    ("mass_outside", "mass outside the medium", "{:.2%}"), ("distinct_2", "distinct-2", "{:.3f}"),
    ("repeated_4grams", "repeated 4-grams", "{:d}"),
)


class LaneColumn(QFrame):
    """One lane: edit button, preset box, remove button, text, a note and its statistics."""

    def __init__(self, index: int, state, playground, parent=None):
        super().__init__(parent)
        self.index, self.state, self.playground = index, state, playground
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.edit = QRadioButton(f"Lane {index + 1}")
        self.edit.setToolTip("Edit this lane's settings in the controls on the left")
        self.edit.toggled.connect(lambda on: on and state.set_current_lane(self.index))
        self.preset = QComboBox()
        self.preset.setToolTip("This lane's preset")
        self.preset.activated.connect(self._preset_chosen)
        self.remove = QToolButton()
        self.remove.setText("\u00d7")
        self.remove.setToolTip("Remove this lane")
        self.remove.clicked.connect(lambda: playground.lanes.remove(self.index))
        self.text = TokenTextPane(state.token_text, chips=TokenChips(state))
        self.text.stepClicked.connect(state.select)
        self.text.menuRequested.connect(self._menu)
        self.editor = QPlainTextEdit()
        self.editor.setToolTip("Edit the text; Ctrl+E (or the ✎ button) again to keep it. "
                               "What you write is yours: untinted, and the old text stays a branch away.")
        self.pages = QStackedWidget()
        self.pages.addWidget(self.text)
        self.pages.addWidget(self.editor)
        self.edit_button = QToolButton()
        self.edit_button.setText("\u270e")
        self.edit_button.setCheckable(True)
        self.edit_button.setToolTip("Edit this lane's text (Ctrl+E)")
        self.edit_button.toggled.connect(self.set_editing)
        self.branches = BranchBar(index, state, playground)
        head = QHBoxLayout()
        head.addWidget(self.edit)
        head.addWidget(self.preset, 1)
        head.addWidget(self.branches)
        head.addWidget(self.edit_button)
        head.addWidget(self.remove)
        self.note = QLabel("")
        self.note.setStyleSheet("color: #b00000;")
        self.stats = QLabel("")
        self.stats.setWordWrap(True)
        self.stats.setStyleSheet("font-size: 11px; color: #333;")
        self.stats_values: dict = {}
        lay = QVBoxLayout(self)
        lay.setContentsMargins(3, 3, 3, 3)
        lay.setSpacing(2)
        lay.addLayout(head)
        lay.addWidget(self.pages, 1)
        lay.addWidget(self.note)
        lay.addWidget(self.stats)

    @property
    def editing(self) -> bool:
        return self.pages.currentWidget() is self.editor

    def set_editing(self, on: bool) -> None:
        """Open the editor on the lane's text, or close it and keep what was written."""
        if on == self.editing:
            return
        lane = self.state.lanes[self.index]
        if on:
            if self.state.busy or lane.branch is None:
                self.edit_button.setChecked(False)
                return
            self.editor.setPlainText(lane.text)
            self.pages.setCurrentWidget(self.editor)
            self.editor.setFocus()
        else:
            self.pages.setCurrentWidget(self.text)
            self.playground.text.edit(self.index, self.editor.toPlainText())
        self.edit_button.blockSignals(True)
        self.edit_button.setChecked(on)
        self.edit_button.blockSignals(False)

    def _menu(self, step: int, where) -> None:
        self.state.set_current_lane(self.index)
        menu = token_menu(self, self.state, self.playground, self.index, step)
        menu.exec(where)

    def _preset_chosen(self, i: int) -> None:
        name = self.preset.itemData(i)
        if name:
            self.playground.lanes.apply_preset(self.index, name)

    def show_preset(self) -> None:
        """The preset box: every preset, the lane's own label selected (marked when edited)."""
        label = self.playground.lanes.label(self.index)
        names = [p.name for p in self.playground.presets.all_presets()]
        self.preset.blockSignals(True)
        self.preset.clear()
        for name in names:
            self.preset.addItem(name, name)
        if label not in names:
            self.preset.addItem(label, None)
        self.preset.setCurrentText(label)
        self.preset.blockSignals(False)
        lane = self.state.lanes[self.index]
        try:
            description = self.playground.presets.get(lane.preset).description if lane.preset else ""
        except KeyError:
            description = ""
        self.preset.setToolTip(description or "settings edited by hand")

    def show_text(self) -> None:
        lane = self.state.lanes[self.index]
        prompt = self.state.prompt_for_run() if lane.prompt is None else lane.prompt  # chat: app/chat.py
        self.text.sync(prompt, lane.tree.pieces(), lane.revision)
        self.branches.refresh()

    def show_stats(self) -> None:
        lane = self.state.lanes[self.index]
        records = lane.records
        if not records:
            self.stats.setText("")
            self.stats_values = {}
            return
        self.stats_values = lane_stats(records, lane.text)
        cells = [f"{label} <b>{fmt.format(self.stats_values[key])}</b>" for key, label, fmt in STATS_ROWS]
        self.stats.setText(" &nbsp;\u00b7&nbsp; ".join(cells))


class LanesView(QSplitter):
    """Up to four lane columns side by side, one per lane of the state."""

    def __init__(self, state, playground, parent=None):
        super().__init__(parent)
        self.state, self.playground = state, playground
        self.columns: list[LaneColumn] = []
        self.sync_columns()

    def sync_columns(self) -> None:
        """As many columns as lanes, the edited one checked, presets shown."""
        n = len(self.state.lanes)
        while len(self.columns) > n:
            col = self.columns.pop()
            col.setParent(None)
            col.deleteLater()
        while len(self.columns) < n:
            col = LaneColumn(len(self.columns), self.state, self.playground)
            self.addWidget(col)
            self.columns.append(col)
        for col in self.columns:
            col.remove.setEnabled(n > 1 and not self.state.busy)
            col.edit.blockSignals(True)
            col.edit.setChecked(col.index == self.state.current_lane)
            col.edit.blockSignals(False)
            col.show_preset()
            col.show_text()

    def show_texts(self) -> None:
        for col in self.columns:
            col.show_text()

    def show_stats(self) -> None:
        for col in self.columns:
            col.show_stats()

    def mark_divergence(self) -> None:
        tokens = [[r.token for r in lane.records] for lane in self.state.lanes]
        if len(tokens) < 2:
            for col in self.columns:
                col.note.setText("")
            return
        step = first_divergence(tokens)
        for col in self.columns:
            if step is None:
                col.note.setText("identical to the other lanes")
            else:
                col.text.mark_step(step)
                col.note.setText(f"lanes diverge at token {step}")
