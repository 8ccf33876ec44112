"""The lanes: each with its preset and its text, laid out in a grid that keeps every column readable,
and their statistics in a table underneath, one row per lane; bound to the state."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QApplication,
    QButtonGroup,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QRadioButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.analysis import first_divergence, lane_stats
from app.core.changes import Changed

from . import theme as themes
from .branch_bar import BranchBar
from .focus_keys import tab_moves_focus
from .lane_keys import LaneKeys
from .lane_stats_table import LaneStatsTable
from .text_pane import TokenTextPane
from .token_format import TokenChips
from .token_menu import token_menu
from .wheel_guard import guard_wheel

#: Narrower than this, lane columns wrap onto a second row (4 lanes: a 2 x 2 grid).
MIN_COLUMN_PX = 320
#: The lines of text a lane shows at least in the workbench, where the window's height allows.
LANE_LINES = 6


class LaneColumn(QFrame):
    """One lane: edit button, preset box, remove button, its text and a note (statistics: the table)."""

    def __init__(self, index: int, state, playground, parent=None):
        super().__init__(parent)
        self.index, self.state, self.playground = index, state, playground
        self.setFrameShape(QFrame.Shape.StyledPanel)
        # Small enough that a window with a row of 4 lanes can still shrink: the grid then wraps.
        self.setMinimumWidth(MIN_COLUMN_PX // 2)
        self.edit = QRadioButton(f"Lane {index + 1}")
        self.edit.setToolTip("Edit this lane's settings in the controls on the left")
        self.edit.toggled.connect(lambda on: on and state.set_current_lane(self.index))
        self.preset = QComboBox()
        self.preset.setToolTip("This lane's preset")
        self.preset.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.preset.setMinimumContentsLength(8)
        self.preset.activated.connect(self._preset_chosen)
        guard_wheel(self.preset)  # a wheel turn over the lanes never changes a lane's preset
        self.remove = QToolButton()
        self.remove.setText("\u00d7")
        self.remove.setToolTip("Remove this lane")
        self.remove.clicked.connect(lambda: playground.lanes.remove(self.index))
        self.text = TokenTextPane(state.token_text, chips=TokenChips(state))
        self.text.setMinimumHeight(40)
        self.text.stepClicked.connect(self.select_step)
        self.text.menuRequested.connect(self.open_menu)
        self.keys = LaneKeys(self)  # Left / Right through the tokens, Enter: the token's menu
        self.editor = QPlainTextEdit()
        self.editor.setMinimumHeight(40)
        tab_moves_focus(self.editor)
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
        self.note = QLabel("")  # where the lanes diverge: in the title row, so it costs no height
        self.note.hide()
        head = QHBoxLayout()
        head.addWidget(self.edit)
        head.addWidget(self.preset, 1)
        head.addWidget(self.note)
        head.addWidget(self.branches)
        head.addWidget(self.edit_button)
        head.addWidget(self.remove)
        self.stats_values: dict = {}  # the last run's figures (shown in the lanes' table)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(3, 3, 3, 3)
        lay.setSpacing(2)
        lay.addLayout(head)
        lay.addWidget(self.pages, 1)

    def height_for_lines(self, lines: int) -> int:
        """The column's height that shows ``lines`` lines of its text in the current text size."""
        text = self.text
        frame = 2 * text.frameWidth() + 2 * int(text.document().documentMargin())
        margins = self.layout().contentsMargins()
        head = max(self.preset.sizeHint().height(), self.edit.sizeHint().height())
        return (head + self.layout().spacing() + frame + lines * text.fontMetrics().lineSpacing()
                + margins.top() + margins.bottom() + 2 * self.frameWidth())

    def apply_theme(self, theme) -> None:
        """The text's colours, and a radio that shows on a dark page (``theme.indicator_palette``)."""
        self.text.apply_theme(theme)
        self.edit.setPalette(themes.indicator_palette(theme, QApplication.palette()))

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

    def select_step(self, step: int) -> None:
        """A click on a token shows that step of this lane in every panel: the panels draw the edited
        lane, so the clicked lane becomes the edited one (as its token menu makes it)."""
        self.state.set_current_lane(self.index)
        self.state.select(step)

    def open_menu(self, step: int, where) -> None:
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
        serving = self.state.serving
        if lane is serving.served_lane and serving.report:  # a served request's lane: what became of its fields
            description = serving.report
        self.preset.setToolTip(description or "settings edited by hand")
        self.show_serving()

    def show_serving(self) -> None:
        """The lane's title marks it when its settings replace every served request's (Run ▸ Serve)."""
        overrides = self.state.lanes[self.index] is self.state.serving.override_lane
        self.edit.setText(f"Lane {self.index + 1}" + (" \u21c4" if overrides else ""))
        self.edit.setToolTip("This lane's settings replace every served request's (Run \u25b8 Serve)" if overrides
                             else "Edit this lane's settings in the controls on the left")

    def show_text(self) -> None:
        lane = self.state.lanes[self.index]
        prompt = self.state.chat.prompt_for_run() if lane.prompt is None else lane.prompt  # chat: app/core/chat.py
        self.text.fork_rule = self.state.radar.forks if self.state.radar.forks.on else None
        self.text.sync(prompt, lane.tree.pieces_after, lane.revision)
        self.text.show_selected(self.state.selected)
        self.branches.refresh()

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setToolTip("Step where the lanes' tokens first differ (≠) or that they are identical (=)"
                             if text else "")
        self.note.setVisible(bool(text))

    def show_stats(self) -> None:
        lane = self.state.lanes[self.index]
        records = lane.records
        self.stats_values = lane_stats(records, lane.text) if records else {}


class LanesView(QWidget):
    """Up to four lane columns, side by side while each gets MIN_COLUMN_PX, else in a grid
    (two per row); ``stats_table`` holds their statistics.  ``gridChanged`` when the rows change."""

    gridChanged = Signal()

    def __init__(self, state, playground, parent=None):
        super().__init__(parent)
        self.state, self.playground = state, playground
        self.columns: list[LaneColumn] = []
        self.grid = QGridLayout()
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(3)
        self.stats_table = LaneStatsTable()  # placed under the lanes by the window's layout (a splitter pane)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(self.grid, 1)
        self.per_row = 0
        self.one_row = False
        self.radios = QButtonGroup(self)  # the lanes' "edited" radios sit in frames of their own: one group
        self.radios.setExclusive(True)
        self.sync_columns()
        self._unsubscribe = state.subscribe(self._on_change)

    def _on_change(self, change) -> None:
        what = change.what
        if what == Changed.CURRENT_LANE:
            self.show_edited()
        elif what == Changed.SERVING:
            for col in self.columns:
                col.show_serving()
        elif what == Changed.BUSY and self.state.busy == "run":  # the table holds the figures of the text shown
            self.show_stats(keep_shown=True)
        elif what == Changed.LANE_SETTINGS and change.lane is not None and not self.state.busy:
            self.stats_table.set_label(change.lane, self.stats_label(change.lane))  # a settings change: no new figures
        elif what in (Changed.LANE_SETTINGS, Changed.PRESETS, Changed.BRANCH) and not self.state.busy:
            self.show_stats()  # its labels name the presets; a branch switch shows another text: its figures

    def show_edited(self) -> None:
        """The edited lane's radio checked, and only that one (the state says which)."""
        for col in self.columns:
            col.edit.blockSignals(True)
            col.edit.setChecked(col.index == self.state.current_lane)
            col.edit.blockSignals(False)

    def close_bindings(self) -> None:
        self._unsubscribe()

    def set_one_row(self, on: bool) -> None:
        """Every lane in one row, however narrow (the reading layout), or rows as the width allows."""
        self.one_row = on
        self._regrid(force=True)

    @property
    def rows(self) -> int:
        return -(-len(self.columns) // max(1, self.per_row))

    def height_for_lines(self, lines: int = LANE_LINES) -> int:
        """The lanes' height that gives each lane ``lines`` lines of text."""
        if not self.columns:
            return 0
        return self.rows * self.columns[0].height_for_lines(lines) + (self.rows - 1) * self.grid.spacing()

    def columns_per_row(self, width: int | None = None) -> int:
        n = max(1, len(self.columns))
        if self.one_row:
            return n
        fit = max(1, (self.width() if width is None else width) // MIN_COLUMN_PX)
        rows = -(-n // fit)
        return -(-n // rows)  # as even as the rows can be: 4 lanes in 2 x 2, never 3 + 1

    def _regrid(self, force: bool = False) -> None:
        per_row = self.columns_per_row()
        if per_row == self.per_row and not force:
            return
        self.per_row = per_row
        for col in self.columns:
            self.grid.removeWidget(col)
        for i, col in enumerate(self.columns):
            self.grid.addWidget(col, i // per_row, i % per_row)
        rows = -(-len(self.columns) // per_row)
        for r in range(4):
            self.grid.setRowStretch(r, 1 if r < rows else 0)
        for c in range(4):
            self.grid.setColumnStretch(c, 1 if c < per_row else 0)
        self.gridChanged.emit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._regrid()

    def sync_columns(self) -> None:
        """As many columns as lanes, the edited one checked, presets shown."""
        n = len(self.state.lanes)
        while len(self.columns) > n:
            col = self.columns.pop()
            self.radios.removeButton(col.edit)
            col.setParent(None)
            col.deleteLater()
        while len(self.columns) < n:
            col = LaneColumn(len(self.columns), self.state, self.playground)
            self.radios.addButton(col.edit)
            self.columns.append(col)
        self._regrid(force=True)
        self.show_edited()
        for col in self.columns:
            self.sync_column(col.index)

    def sync_column(self, index: int) -> None:
        """One lane's column (its settings or shown branch changed): the others are left alone."""
        col = self.columns[index]
        col.remove.setEnabled(len(self.columns) > 1 and not self.state.busy)
        col.show_preset()
        col.show_text()

    def keep_edits(self) -> None:
        """Every open editor closes and keeps what was written (before a run starts from the text)."""
        for col in self.columns:
            if col.editing:
                col.set_editing(False)

    def show_prompt(self) -> None:
        """The prompt changed: only the columns without text of their own show it."""
        for col in (c for c in self.columns if self.state.lanes[c.index].prompt is None):
            col.show_text()

    def show_texts(self) -> None:
        for col in self.columns:
            col.show_text()

    def show_stats(self, *, keep_shown: bool = False) -> None:
        """The table from the lanes' texts (``keep_shown``: a run begins, the table stays where it is)."""
        for col in self.columns:
            col.show_stats()
        labels = [self.stats_label(c.index) for c in self.columns]
        rows = (self.stats_table.rowCount(), self.stats_table.isVisible())
        self.stats_table.show_lanes([c.stats_values for c in self.columns], labels, keep_shown=keep_shown)
        if (self.stats_table.rowCount(), self.stats_table.isVisible()) != rows:
            self.gridChanged.emit()  # the table's height changed: the layout may share the space anew

    def stats_label(self, index: int) -> str:
        """"Lane 2 · Precise": the lane's preset, where its shown text was made with the lane's settings; else
        what the text was made with too ("Lane 2 · Creative writing (now Precise)"): a lane that took another
        preset keeps its text, and the row's figures are that text's."""
        label = self.playground.lanes.label(index)
        lane = self.state.lanes[index]
        made = lane.records[-1].settings if lane.records else None
        if made is None or made == lane.settings:
            return f"Lane {index + 1} \u00b7 {label}"
        return f"Lane {index + 1} \u00b7 {self._preset_of(made)} (now {label})"

    def _preset_of(self, settings) -> str:
        """The name of a preset with ``settings`` (the seed aside), or "earlier settings"."""
        for preset in self.playground.presets.all_presets():
            if preset.settings.replace(seed=settings.seed) == settings:
                return preset.name
        return "earlier settings"

    def mark_divergence(self) -> None:
        tokens = [[r.token for r in lane.records] for lane in self.state.lanes]
        if len(tokens) < 2:
            for col in self.columns:
                col.set_note("")
            return
        step = first_divergence(tokens)
        for col in self.columns:
            if step is None:
                col.set_note("= all")  # short: four lanes in a row leave the title row little room
            else:
                col.text.mark_step(step)
                col.set_note(f"≠ at {step}")
