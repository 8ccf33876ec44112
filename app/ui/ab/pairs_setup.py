"""Choosing a blind-pairs test: what both set-up pages share (the prompts, the rounds, the length, Start).

A page holds nothing of its own: every pick goes to the test's set-up in the state (``state.ab.setup``
or ``state.taste.setup``, through the part's ``set_setup``), the widgets show what the state holds
(rendered with their signals blocked, a value equal to the widget's not set again, so nothing echoes),
and Start reads the choices from the state.  The lists are filled from the preset store and the
prompt files (``refresh``); a chosen preset or prompt list that is gone stays chosen in the state, its
box shows none, and Start reports it in one line.  A subclass adds its own rows (:meth:`_rows`), binds
and shows them (:meth:`_bind_own`, :meth:`_render_own`), fills its preset lists (:meth:`_refill_presets`)
and starts the test (:meth:`_start`).
"""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from app.core.ab.prompts import chosen_prompts, keyed_prompt_sets, read_example_prompts
from app.core.ab.setup_choices import SETUP_TOKENS
from app.core.changes import Change, Changed

from ..bind import refill, show_index, show_value


class PairsSetupPage(QWidget):
    INTRO: str  # what the test does, above the form
    START: str  # the Start button's label
    ROUNDS: tuple[int, int]  # the rounds box's range

    def __init__(self, state, runner, parent=None):
        super().__init__(parent)
        self.state, self.runner, self.part = state, runner, runner.part
        self.prompts = QComboBox()
        self.rounds = QSpinBox()
        self.rounds.setRange(*self.ROUNDS)
        self.tokens = QSpinBox()
        self.tokens.setRange(*SETUP_TOKENS)
        self.start = QPushButton(self.START)
        self.start.setDefault(True)
        self.start.clicked.connect(self.begin)
        self.message = QLabel()
        self.message.setWordWrap(True)
        form = QFormLayout()
        self._rows(form)
        intro = QLabel(self.INTRO)
        intro.setWordWrap(True)
        column = QWidget()
        column.setMaximumWidth(860)
        inner = QVBoxLayout(column)
        inner.addWidget(intro)
        inner.addLayout(form)
        inner.addWidget(self.start)
        inner.addWidget(self.message)
        lay = QVBoxLayout(self)
        lay.addWidget(column)
        lay.addStretch(1)
        self.refresh()
        self._bind()
        unsubscribe = state.subscribe(self._on_change)
        self.destroyed.connect(lambda *_: unsubscribe())

    def _rows(self, form: QFormLayout) -> None:
        """Build the page's own widgets and put every row (the shared boxes too) in ``form``, in order."""
        raise NotImplementedError

    # -- the state ------------------------------------------------------------------------------

    def _bind(self) -> None:
        """Every pick goes to the state (a box left empty by a gone item picks nothing)."""
        edit = self.part.set_setup
        self.prompts.currentIndexChanged.connect(lambda i: i >= 0 and edit(prompts=self.prompts.itemData(i)))
        self.rounds.valueChanged.connect(lambda value: edit(rounds=value))
        self.tokens.valueChanged.connect(lambda value: edit(tokens=value))
        self._bind_own(edit)

    def _bind_own(self, edit) -> None:
        """Bind the page's own widgets: each edit goes to ``edit`` (the part's ``set_setup``)."""

    def _on_change(self, change: Change) -> None:
        if change.what in (self.part.SETUP_CHANGED, Changed.RUN_SETTINGS):
            self.render()

    def render(self) -> None:
        """Show the state's choices (tokens None: the run options' count)."""
        choice = self.part.setup
        show_index(self.prompts, self.prompts.findData(choice.prompts))
        show_value(self.rounds, choice.rounds)
        show_value(self.tokens, choice.max_tokens(self.state.run_settings.max_tokens))
        self._render_own(choice)

    def _render_own(self, choice) -> None:
        """Show the page's own choices."""

    def refresh(self) -> None:
        """Fill the lists again (presets may have changed; the prompt is the playground's now), then show the
        state's choices in them."""
        self._refill_presets(self.runner.preset_names())
        examples, problems = read_example_prompts()
        self.sets = keyed_prompt_sets(self.state.prompt, examples)
        refill(self.prompts, ((s.label, s.key) for s in self.sets))
        self.render()
        message = self.part.session.message
        notes = [message] if message else []
        self.message.setText("\n".join(notes + [f"Example prompt skipped: {p}" for p in problems]))

    def _refill_presets(self, names: list[str]) -> None:
        """Fill the page's preset lists with ``names``."""

    def begin(self) -> bool:
        """Start the test the state's choices describe; False (the problem shown) if it cannot start."""
        choice = self.part.setup
        try:
            prompts = chosen_prompts(self.sets, choice.prompts)
        except ValueError as exc:
            self.state.report(str(exc))
            started = False
        else:
            started = self._start(choice, prompts, choice.max_tokens(self.state.run_settings.max_tokens))
        if not started:
            self.message.setText(self.state.problem)
        return started

    def _start(self, choice, prompts, max_tokens: int) -> bool:
        """Start the test of ``choice`` on ``prompts``, ``max_tokens`` a text; False (reported) if it cannot."""
        raise NotImplementedError
