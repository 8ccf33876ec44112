"""Every command of the window as a QAction: in the toolbar, in the menu bar, with a shortcut.

Actions are enabled from the state (a model loaded, the engine busy, the lane
count), never from a flag of their own.
"""
from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QInputDialog, QMenu, QToolBar, QToolButton

from app.actions.lanes import check_in_vocabulary
from app.core.changes import Change, Changed
from app.engine.face.options import MAX_LANES

from ..ab import ABDialog
from ..ab.taste_dialog import TasteDialog
from ..dialogs import ExportDialog, FanDialog, ImportDialog
from ..dialogs.fan_dialog import FanSetupDialog
from ..dialogs.lane_diff import LaneDiffDialog
from ..lookahead_panel import LookaheadPanel

FAN_TOKENS = 48


#: Whose text a change not naming a lane may have changed (a lane's RECORDS name theirs; others: "all").
TEXT_READ = {Changed.BUSY: "all", Changed.MODEL: None, Changed.LOADING: None, Changed.LANES: "all",
             Changed.RUN_ENDED: "all", Changed.HISTORY: "all"}


class ActionsController:
    def __init__(self, window, state, playground, presets):
        self.window, self.state, self.playground, self.presets = window, state, playground, presets
        self._with_text: list[bool] = []  # whether each lane has records: re-read only for the lane that changed
        runs, lanes, analysis = playground.runs, playground.lanes, playground.analysis
        kept = self._edits_kept
        self.generate = self._action("\u25b6 Generate", "Generate from the prompt", kept(runs.generate), "Ctrl+Return")
        self.stop = self._action("\u25a0 Stop", "Stop after the current token", runs.stop, "Esc")
        self.continue_ = self._action("\u00bb Continue", "Continue every lane from where its text ends",
                                      kept(runs.continue_run), "Ctrl+Shift+Return")
        self.follow = self._action("Follow newest", "Panels follow the newest token (click a token to pin a step)",
                                   lambda: state.select(None), "Ctrl+End")
        self.add_lane = self._action("+ Lane", "Add a lane like the edited one, with a seed of its own",
                                     lanes.add, "Ctrl+Shift+L")
        self.baseline = self._action("+ Baseline",
                                     "Add a temperature baseline: a lane with scatter off, plain temperature, same seed",
                                     lanes.add_baseline, "Ctrl+Shift+B")
        self.match = self._action("Match entropy", "Set the baseline's temperature so its mean post-chain entropy "
                                  "equals the scatter lane's", analysis.match_entropy, "Ctrl+Shift+M")
        self.fan = self._action("Fan …", "From the selected token, several continuations of each lane",
                                self.open_fan, "Ctrl+Shift+F")
        self.export = self._action("Copy as llama.cpp …", "The llama.cpp command line for the edited lane",
                                   self.open_export, "Ctrl+Shift+C")
        self.import_ = self._action("Import flags …", "Apply a pasted llama.cpp command line to the edited lane",
                                    self.open_import, "Ctrl+Shift+I")
        self.new_seeds = self._action("New seeds", "A fresh seed for every lane", lanes.new_seeds, "Ctrl+Shift+N")
        self.sweep = self._action("Sweep …", "Measure a flag over a range against a temperature baseline "
                                  "(diversity against likelihood)", self.open_sweep, "Ctrl+Shift+W")
        text = playground.text
        self.undo = self._action("Undo", "Undo the last run, branch switch or edit", text.undo, "Ctrl+Z")
        self.redo = self._action("Redo", "Redo what was undone", text.redo, "Ctrl+Shift+Z")
        self.edit_text = self._action("Edit text", "Edit the edited lane's text (again to keep it)",
                                      self.toggle_editing, "Ctrl+E")
        self.previous_branch = self._action("Previous branch", "The edited lane's previous branch at the selected step",
                                            lambda: text.switch(state.current_lane, -1), "Alt+Left")
        self.next_branch = self._action("Next branch", "The edited lane's next branch at the selected step",
                                        lambda: text.switch(state.current_lane, +1), "Alt+Right")
        self.ab = self._action("Blind A/B \u2026", "Compare two presets blind: unlabelled pairs from one seed, "
                               "then the tally", self.open_ab, "Ctrl+Shift+A")
        self.compare = self._action("Compare lanes \u2026", "Two lanes' texts side by side, the words that "
                                    "differ tinted", self.open_compare, "Ctrl+Shift+D")
        self.ab_dialog = None
        self.taste = self._action("Tune by taste \u2026", "Find your best setting of 1-3 knobs by blind votes on pairs "
                                  "chosen to be the most informative", self.open_taste, "Ctrl+Shift+T")
        self.taste_dialog = None
        self.look_ahead = self._action("Look ahead", "Preview where the selected step could go: its most likely "
                                       "alternatives, each a few tokens on (pick one for a branch)",
                                       lambda: playground.lookahead.preview(), "Ctrl+L")
        self.manual = self._action("Manual mode", "Generation pauses at each fork and offers its lookahead: "
                                   "1-9 pick, Tab takes the top one, Esc leaves", self.toggle_manual, "Ctrl+M")
        self.manual.setCheckable(True)
        self.lookahead_panel = LookaheadPanel(state, playground.lookahead, state.token_text, self.window)
        self.fork_radar = self._action("Fork radar \u2026", "Mark the steps where the story could fork: the "
                                       "threshold in bits (0 turns it off)", self.ask_fork_threshold, "Ctrl+Alt+F")
        self.compare_dialog = None
        self._unsubscribe = state.subscribe(self._on_change)
        self.update()

    def _edits_kept(self, start):
        """``start`` (a run), after every open lane editor has kept its text: a run takes the text as the
        writer sees it (Continue with the editor open went on from the text before the edit)."""
        def run() -> None:
            self.window.lanes_view.keep_edits()
            start()
        return run

    def _action(self, text: str, tip: str, slot, keys: str) -> QAction:
        action = QAction(text, self.window)
        action.setToolTip(f"{tip} ({QKeySequence(keys).toString()})")
        action.setShortcut(QKeySequence(keys))
        action.triggered.connect(lambda _checked=False: slot())
        self.window.addAction(action)  # shortcuts work wherever the focus is
        return action

    def fill_toolbar(self, bar: QToolBar) -> None:
        for action in (self.generate, self.stop, self.continue_, self.follow):
            bar.addAction(action)
        bar.addSeparator()
        for action in (self.add_lane, self.baseline, self.match, self.fan, self.ab):
            bar.addAction(action)
        bar.addSeparator()
        button = QToolButton()
        button.setText("Presets")
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(button)
        self.presets.fill_menu(menu)
        button.setMenu(menu)
        bar.addWidget(button)
        bar.addAction(self.export)
        bar.addAction(self.import_)

    def toggle_editing(self) -> None:
        column = self.window.lanes_view.columns[self.state.current_lane]
        column.set_editing(not column.editing)

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.MANUAL:
            self.manual.setChecked(self.state.radar.manual)
        if change.what == Changed.RECORDS and self.state.busy:
            return  # during a run every action that depends on the text is off; run_ended updates them
        if change.what in (Changed.BUSY, Changed.MODEL, Changed.LOADING, Changed.LANES, Changed.RECORDS,
                           Changed.RUN_ENDED, Changed.HISTORY):
            self.update(change.lane if change.lane is not None else TEXT_READ.get(change.what, "all"))

    def _has_text(self, lane: int | str | None) -> bool:
        """Whether any lane has records, re-reading ``lane``'s ("all": every lane's, None: none's)."""
        lanes = self.state.lanes
        if lane == "all" or len(self._with_text) != len(lanes) or (lane is not None and not 0 <= lane < len(lanes)):
            self._with_text = [bool(x.records) for x in lanes]
        elif lane is not None:
            self._with_text[lane] = bool(lanes[lane].records)
        return any(self._with_text)

    def update(self, lane: int | str | None = "all") -> None:
        """The actions enabled as the state allows; ``lane``: whose text changed (see ``_has_text``)."""
        busy = bool(self.state.busy)
        loadable = self.state.model is not None or self.state.lost_model is not None  # a crash: Generate reloads
        ready = loadable and not busy and not self.state.loading
        has_text = self._has_text(lane)
        self.generate.setEnabled(ready)
        self.continue_.setEnabled(ready and has_text)
        self.stop.setEnabled(busy or self.state.loading)
        for action in (self.add_lane, self.baseline):
            action.setEnabled(not busy and len(self.state.lanes) < MAX_LANES)
        self.match.setEnabled(not busy and len(self.state.lanes) > 1)
        self.compare.setEnabled(len(self.state.lanes) > 1)
        self.fan.setEnabled(ready and has_text)
        history = self.playground.history
        self.undo.setEnabled(not busy and bool(history.undos))
        self.redo.setEnabled(not busy and bool(history.redos))
        self.edit_text.setEnabled(not busy and has_text)
        self.ab.setEnabled(self.state.model is not None and not self.state.loading)
        self.taste.setEnabled(self.state.model is not None and not self.state.loading)
        self.look_ahead.setEnabled(ready and has_text)

    def open_fan(self, count: int | None = None, tokens: int = FAN_TOKENS) -> None:
        if count is None:
            setup = FanSetupDialog(self.window, tokens=tokens)
            if not setup.exec():
                return
            count, tokens = setup.count.value(), setup.tokens.value()
        self.playground.analysis.fan_out(count, tokens)
        if self.state.jobs.fan is not None and self.state.busy == "fan":
            self.fan_dialog = FanDialog(self.state, self.playground.analysis, self.window)
            self.fan_dialog.show()

    def open_ab(self) -> None:
        """The blind A/B window (one at a time; it shows the test kept in the state)."""
        self.ab_dialog = self._open_pairs(self.ab_dialog, ABDialog, self.playground.ab)

    def open_taste(self) -> None:
        """The taste tuner's window (one at a time; it shows the tuning kept in the state)."""
        self.taste_dialog = self._open_pairs(self.taste_dialog, TasteDialog, self.playground.taste)

    def _open_pairs(self, shown, make, runner):
        """A blind-pairs window: ``shown`` raised if it is open, else a new one (``make``) of ``runner``'s test."""
        if shown is not None and shown.isVisible():
            shown.raise_()
            shown.activateWindow()
            return shown
        if shown is not None:
            shown.deleteLater()
        dialog = make(self.state, runner, self.window)
        dialog.show()
        return dialog

    def toggle_manual(self) -> None:
        """Manual mode on (a run starts when none is going: from the text so far) or off."""
        on = not self.state.radar.manual
        self.window.lanes_view.keep_edits()
        self.playground.lookahead.set_manual(on)
        if on and not self.state.busy and self.state.model is not None:
            if any(lane.records for lane in self.state.lanes):
                self.playground.runs.continue_run()
            else:
                self.playground.runs.generate()

    def ask_fork_threshold(self) -> None:
        """The fork radar's threshold: a step is a fork when its survivors' entropy reaches it and two
        or more of them hold at least 10 % each (app/core/forks.py)."""
        rule = self.state.radar.forks
        bits, ok = QInputDialog.getDouble(
            self.window, "Fork radar", "Mark steps whose survivors' entropy is at least (bits; 0: off),\n"
            f"with {rule.alternatives}+ alternatives of {rule.min_mass:.0%} or more:", rule.bits, 0.0, 16.0, 2)
        if ok:
            self.state.radar.set_fork_rule(bits=bits)
    def open_compare(self) -> None:
        """Lane 1 against the edited lane (or lane 2), chosen again in the dialog."""
        if self.compare_dialog is not None:
            self.compare_dialog.close()
        other = self.state.current_lane if self.state.current_lane else 1
        self.compare_dialog = LaneDiffDialog(self.state, self.playground.lanes.label, self.window)
        self.compare_dialog.fill_lanes(0, other)
        self.compare_dialog.show()

    def open_sweep(self) -> None:
        from ..sweep.sweep_window import SweepWindow

        if getattr(self, "sweep_window", None) is None:
            self.sweep_window = SweepWindow(self.state, self.playground, self.window)
        self.sweep_window.show()
        self.sweep_window.raise_()

    def open_export(self) -> None:
        model = self.state.model
        self.export_dialog = ExportDialog(self.state.lane().settings, model.path if model else None,
                                          self.state.prompt, self.window, run_settings=self.state.run_settings,
                                          token_texts=self.state.token_texts)
        self.export_dialog.show()

    def open_import(self) -> None:
        dialog = ImportDialog(self.state.lane().settings, self.window)
        if dialog.exec() and dialog.imported is not None:
            self.take_import(dialog.imported)

    def take_import(self, imported) -> bool:
        """A pasted line's import (an ImportResult) for the edited lane; the status bar says what it did not
        apply and whether the lane kept its seed."""
        if not self.apply_import(imported.settings):
            return False
        said = imported.summary()
        self.state.set_status(f"Lane {self.state.current_lane + 1} took the pasted flags" + (f"; {said}" if said else ""))
        return True

    def apply_import(self, settings) -> bool:
        """Imported settings for the edited lane, unless a logit bias names a token the model lacks."""
        try:
            check_in_vocabulary(settings.logit_bias, self.state.model)
        except ValueError as exc:
            self.state.report(str(exc))
            return False
        self.playground.lanes.set_settings(self.state.current_lane, settings, None)
        return True

    def close_bindings(self) -> None:
        self._unsubscribe()
