"""The control pages: Scatter, Chain, Order, Run and Model, bound to the edited lane.

Every control is made from a row of the flag table.  A control shows what the
state holds and sends each edit to the playground; it keeps no value of its
own, so a rejected edit simply shows the state's value again.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMenu, QToolBox, QVBoxLayout, QWidget

from app.core.changes import Change, Changed
from sampler.flagtable import ROW_BY_FIELD

from ..wheel_guard import guard_wheel
from .ban_list_row import BanListRow
from .flag_control import FlagControl, FlagSwitch
from .grammar_box import GrammarBox
from .list_editors import ListEdit, list_editors
from .model_page import ModelPage
from .order_editor import OrderEditor
from .run_page import RunPage

ERROR_STYLE = "color: #b00020;"
NOTE_STYLE = "color: #8a5a00;"


def _rows(stage_is_scatter: bool):
    return [row for row in ROW_BY_FIELD.values()
            if (row.stage == "scatter") == stage_is_scatter and (row.slider_lo is not None or row.kind == "switch")]


def breakers_text(breakers) -> str:
    return "|".join(b.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "\\n") for b in breakers)


def parse_breakers(text: str) -> tuple[str, ...]:
    """The inverse of :func:`breakers_text`: ``|`` separates, ``\\|``, ``\\n`` and ``\\\\`` escape."""
    parts, cur, i = [], [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            cur.append({"n": "\n", "|": "|", "\\": "\\"}.get(text[i + 1], "\\" + text[i + 1]))
            i += 2
            continue
        if c == "|":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return tuple(parts) if text else ()


class Controls(Mapping):
    """The panel's controls by field.  The Chain page (two thirds of the controls, and most of the
    panel's making) is made when it first opens, or when one of its controls is asked for here: so every field
    is always found, and the panel's own updates go to :attr:`made` only."""

    def __init__(self, make_all):
        self.made: dict[str, QWidget] = {}  # the controls made so far
        self._make_all = make_all

    def __getitem__(self, field: str) -> QWidget:
        if field not in self.made:
            self._make_all()
        return self.made[field]

    def __iter__(self) -> Iterator[str]:
        self._make_all()
        return iter(self.made)

    def __len__(self) -> int:
        self._make_all()
        return len(self.made)


class SettingsPanel(QToolBox):
    """Every sampling flag of the edited lane, plus run and model options."""

    def __init__(self, state, playground, parent=None):
        super().__init__(parent)
        self.state = state
        self.playground = playground
        self.controls = Controls(self._make_chain_page)
        self._edited_font = self.font()
        self._edited_font.setItalic(True)
        self.error = QLabel()
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setWordWrap(True)
        self.noop_note = QLabel()
        self.noop_note.setWordWrap(True)
        self.noop_note.setStyleSheet(NOTE_STYLE)
        self.order = OrderEditor()
        self.order.orderChanged.connect(lambda order: self._edit("samplers", order))
        self.order.problem.connect(state.report)
        self.run_page = RunPage(state, playground)
        self.model_page = ModelPage(state, playground)
        self.addItem(self._flag_page(QWidget(), _rows(True), self.noop_note), "Scatter")
        self._chain_page: QWidget | None = QWidget()  # filled when first opened (None: filled)
        self.addItem(self._chain_page, "Chain")
        self.addItem(self.order, "Order")
        self.addItem(self.run_page, "Run")
        self.addItem(self.model_page, "Model")
        self.currentChanged.connect(self._page_opened)
        self._unsubscribe = state.subscribe(self._on_change)
        self.refresh()
        guard_wheel(self)  # the wheel scrolls the page; a control takes it only when focused

    def open_page(self, name: str) -> None:
        """Open the page titled ``name`` ("Scatter", "Chain", "Order", "Run" or "Model")."""
        titles = [self.itemText(i) for i in range(self.count())]
        self.setCurrentIndex(titles.index(name))

    def _page_opened(self, index: int) -> None:
        if self._chain_page is not None and self.widget(index) is self._chain_page:
            self._make_chain_page()

    def _make_chain_page(self) -> None:
        """The Chain page's controls, made once, showing the edited lane's settings."""
        page, self._chain_page = self._chain_page, None
        if page is not None:
            self.grammar = GrammarBox(self.state, self.playground)
            self._flag_page(page, _rows(False), self._breakers_row(), *self._list_rows(), self.grammar)
            self.refresh()
            guard_wheel(self)

    def _flag_page(self, page: QWidget, rows, *extra: QWidget) -> QWidget:
        """``page`` filled with a control for each of ``rows``, then ``extra``."""
        lay = QVBoxLayout(page)
        lay.setSpacing(2)
        for row in rows:
            ctl = FlagSwitch(row) if row.kind == "switch" else FlagControl(row)
            ctl.edited.connect(self._edit)
            self._add_control(row.field, ctl)
            lay.addWidget(ctl)
        for widget in extra:
            lay.addWidget(widget)
        lay.addStretch(1)
        return page

    def _add_control(self, field: str, ctl: QWidget) -> None:
        """``ctl`` shows ``field``; a right click on it offers its preset's value back, and llama.cpp's default."""
        self.controls.made[field] = ctl
        ctl.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        ctl.customContextMenuRequested.connect(lambda pos: self.control_menu(field).exec(ctl.mapToGlobal(pos)))

    def _breakers_row(self) -> QWidget:
        """The DRY breakers: a list line like the logit biases' (it shows the lane's list again when
        a typed one is refused)."""
        self.breakers = ListEdit(ROW_BY_FIELD["dry_sequence_breakers"], breakers_text, parse_breakers,
                                 "Separate them with |; write \\n for a newline, \\| for |.")
        self.breakers.edited.connect(self._edit)
        self._add_control(self.breakers.row.field, self.breakers)
        return self.breakers

    def _list_rows(self) -> list:
        """Logit biases and banned phrases (``self.controls`` shows them like the others)."""
        editors = list_editors(ROW_BY_FIELD)
        for editor in editors:
            editor.edited.connect(self._edit)
            self._add_control(editor.row.field, editor)
        return editors + [BanListRow(self.state, self.playground)]

    def _edit(self, field: str, value) -> None:
        self.playground.lanes.edit(field, value)

    def preset_value(self, field: str):
        """The edited lane's preset's value of ``field`` (``...``: the lane has no preset, or it is gone)."""
        lane = self.state.lane()
        try:
            return self.playground.presets.get(lane.preset).settings.get(field) if lane.preset else ...
        except KeyError:
            return ...

    def control_menu(self, field: str) -> QMenu:
        row, lane = ROW_BY_FIELD[field], self.state.lane()
        menu = QMenu(self)
        value = self.preset_value(field)
        back = menu.addAction(f"Back to {lane.preset}'s value ({value!r})" if value is not ... else
                              "Back to the preset's value (the lane has no preset)", lambda: self._edit(field, value))
        back.setEnabled(value is not ... and value != lane.settings.get(field))
        menu.addAction(f"llama.cpp's default ({row.default!r})", lambda: self._edit(field, row.default))
        return menu

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.PROBLEM:
            self.error.setText(self.state.problem)
            self.error.setVisible(bool(self.state.problem))
        elif change.what == Changed.CURRENT_LANE or (change.what == Changed.LANE_SETTINGS
                                                     and change.lane == self.state.current_lane):
            self.refresh()

    def refresh(self) -> None:
        """Show the edited lane's settings in every control made."""
        settings = self.state.lane().settings
        for field, ctl in self.controls.made.items():
            ctl.show_value(settings.get(field))
            preset = self.preset_value(field)  # a value the lane changed since its preset: in italics
            ctl.setFont(self._edited_font if preset is not ... and preset != settings.get(field) else self.font())
        if self._chain_page is None:
            self.grammar.show_value(settings)
        self.order.set_order(settings.samplers)
        self.run_page.refresh()
        why = settings.scatter.why_noop()
        if "scatter" not in settings.samplers:
            why = "scatter is not in the sampler order"
        self.noop_note.setText(f"Scatter is a no-op: {why}." if why else "")
        self.noop_note.setVisible(bool(why))

    def close_bindings(self) -> None:
        self._unsubscribe()
        self.run_page.close_bindings()
        self.model_page.close_bindings()
