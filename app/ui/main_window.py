"""The playground window: prompt, controls, tinted text and the five live panels."""
from __future__ import annotations

from pathlib import Path

import dataclasses
import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog, QGridLayout, QInputDialog, QLabel, QMainWindow, QMenu, QPlainTextEdit, QProgressBar, QScrollArea,
    QSplitter, QStatusBar, QToolBar, QToolButton, QVBoxLayout, QWidget,
)

from app.analysis import first_divergence, match_entropy
from app.builtin_presets import builtin_presets, default_prompt
from app.engine.fan import FanWorker
from app.presets_store import PresetFileError, PresetStore
from app.engine.context import ContextOptions
from app.engine.generation import RunOptions
from app.engine.lane import LaneConfig
from app.engine.loader import LoadDone, LoadFailed, LoadProgress, ModelLoader
from app.engine.worker import Failed, Finished, GenerationWorker

from .panels import AbsorptionPanel, CollisionPanel, EntropyPanel, MetricStrips, PrePostPanel
from .recent import RecentModels
from .dialogs import ExportDialog, FanDialog, ImportDialog
from .lanes_view import CUSTOM, LanesView
from .session import Session
from .settings_panel import SettingsPanel

REDRAW_MS = 30  # how often the worker's queue is polled
#: While generating, panels are redrawn at most this often: a redraw of every
#: panel costs tens of milliseconds of the CPU the decode needs.
LIVE_REDRAW_S = 0.5
MAX_LANES = 4


@dataclasses.dataclass
class LaneState:
    settings: object  # SamplerSettings, the seed included
    preset: str = CUSTOM


class MainWindow(QMainWindow):
    def __init__(self, *, load_default: bool = True):
        super().__init__()
        self.setWindowTitle("Scatter Playground")
        self.resize(1500, 940)
        self.model = None
        self._owns_model = True
        self.loader: ModelLoader | None = None
        self.worker: GenerationWorker | None = None
        self.session = Session()
        self.recent = RecentModels()
        self.store = PresetStore()
        self.lane_states: list[LaneState] = []
        self.current_lane = 0
        self.fan_worker: FanWorker | None = None
        self._token_texts: list[str] = []
        self._dirty = False
        self._pending_text: list = []
        self._last_redraw = 0.0
        self._was_running = False
        self.last_stop = ""
        self.tokens_per_s = 0.0
        self._build()
        self.session.subscribe(self._on_session)
        self.timer = QTimer(self)
        self.timer.setInterval(REDRAW_MS)
        self.timer.timeout.connect(self._poll)
        self.timer.start()
        self._refresh_recent()
        problems = self.store.load()
        if problems:
            self.show_error("Presets: " + "; ".join(problems))
        self.add_lane(preset="Creative writing")
        if load_default:
            self.load_model(None)

    # -- layout ----------------------------------------------------------------

    def _build(self) -> None:
        bar = QToolBar("Run")
        bar.setMovable(False)
        self.addToolBar(bar)
        self.act_generate = QAction("\u25b6 Generate", self)
        self.act_generate.setToolTip("Generate from the prompt (Ctrl+Enter)")
        self.act_stop = QAction("\u25a0 Stop", self)
        self.act_stop.setToolTip("Stop after the current token (Esc)")
        self.act_continue = QAction("\u00bb Continue", self)
        self.act_continue.setToolTip("Continue the text from where it ended")
        self.act_live = QAction("Follow newest", self)
        self.act_live.setToolTip("Panels follow the newest token (click a token to pin a step)")
        for act in (self.act_generate, self.act_stop, self.act_continue, self.act_live):
            bar.addAction(act)
        bar.addSeparator()
        self.act_add_lane = bar.addAction("+ Lane", lambda: self.add_lane())
        self.act_add_lane.setToolTip("Add a lane (up to 4) with the same prompt and seed")
        self.act_baseline = bar.addAction("+ Temperature baseline", self.add_baseline_lane)
        self.act_baseline.setToolTip("Add a lane with scatter off: plain temperature, same seed")
        self.act_match = bar.addAction("Match entropy", self.match_entropy)
        self.act_match.setToolTip("Set the baseline's temperature so its mean post-chain entropy equals the scatter lane's")
        self.act_fan = bar.addAction("Fan …", self.fan)
        self.act_fan.setToolTip("From the selected token, several continuations of each lane with different seeds")
        bar.addSeparator()
        presets_button = QToolButton()
        presets_button.setText("Presets")
        presets_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(presets_button)
        menu.addAction("Save the edited lane as …", self.save_preset)
        menu.addAction("Rename …", self.rename_preset)
        menu.addAction("Duplicate …", self.duplicate_preset)
        menu.addAction("Delete …", self.delete_preset)
        menu.addSeparator()
        menu.addAction("Import preset file …", self.import_presets)
        menu.addAction("Export preset file …", self.export_presets)
        presets_button.setMenu(menu)
        bar.addWidget(presets_button)
        self.act_export = bar.addAction("Copy as llama.cpp …", self.export_command)
        self.act_import = bar.addAction("Import flags …", self.import_flags)
        self.act_generate.triggered.connect(lambda: self.generate(continue_text=False))
        self.act_continue.triggered.connect(lambda: self.generate(continue_text=True))
        self.act_stop.triggered.connect(self.stop)
        self.act_live.triggered.connect(lambda: self.session.select(None))
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self, activated=lambda: self.generate(continue_text=False))
        QShortcut(QKeySequence("Esc"), self, activated=self.stop)

        self.controls = SettingsPanel()
        self.controls.settingsChanged.connect(self._on_settings)
        self.controls.openModelRequested.connect(self._open_model_dialog)
        self.controls.modelChosen.connect(self.load_model)
        left = QWidget()
        left_lay = QVBoxLayout(left)
        left_lay.setContentsMargins(4, 4, 4, 4)
        left_lay.addWidget(self.controls, 1)
        left_lay.addWidget(self.controls.error)
        self.controls.show_problem("")
        scroll = QScrollArea()
        scroll.setWidget(left)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(400)

        self.prompt = QPlainTextEdit(default_prompt())
        self.prompt.setMaximumHeight(90)
        self.prompt.setPlaceholderText("Prompt")
        self.lanes_view = LanesView(self.token_text)
        self.pre_post = PrePostPanel(self.token_text)
        self.entropy = EntropyPanel()
        self.collision = CollisionPanel()
        self.absorption = AbsorptionPanel(self.token_text)
        self.strips = MetricStrips()
        self.strips.stepClicked.connect(self.session.select)
        panels = QWidget()
        grid = QGridLayout(panels)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.pre_post, 0, 0)
        grid.addWidget(self.entropy, 0, 1)
        grid.addWidget(self.collision, 1, 0)
        grid.addWidget(self.absorption, 1, 1)
        grid.setRowStretch(0, 3)
        grid.setRowStretch(1, 2)
        upper = QSplitter(Qt.Orientation.Vertical)
        upper.addWidget(self.prompt)
        upper.addWidget(self.lanes_view)
        upper.setSizes([70, 330])
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(upper)
        right.addWidget(panels)
        right.addWidget(self.strips)
        right.setSizes([400, 360, 220])
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(scroll)
        split.addWidget(right)
        split.setSizes([420, 1080])
        self.setCentralWidget(split)

        status = QStatusBar()
        self.setStatusBar(status)
        self.status_model = QLabel("no model")
        self.status_speed = QLabel("")
        self.status_stop = QLabel("")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setRange(0, 100)
        self.progress.hide()
        status.addWidget(self.status_model)
        status.addWidget(self.progress)
        status.addPermanentWidget(self.status_speed)
        status.addPermanentWidget(self.status_stop)
        self._update_actions()

    # -- model -----------------------------------------------------------------

    def token_text(self, token: int) -> str:
        return self._token_texts[token] if 0 <= token < len(self._token_texts) else f"<{token}>"

    def _open_model_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a GGUF model", str(Path.home()), "GGUF models (*.gguf);;All files (*)")
        if path:
            self.load_model(path)

    def load_model(self, path: str | None) -> None:
        """Load a model in the background; the current one stays until the new one is ready."""
        if self.loader is not None:
            self.loader.cancel()
        self.loader = ModelLoader(path, gpu_layers=self.controls.gpu_layers.value() or None).start()
        self.progress.setValue(0)
        self.progress.show()
        self.status_model.setText(f"Loading {Path(path).name if path else 'the bundled model'} ...")
        self._update_actions()

    def use_model(self, model, *, owned: bool = False) -> None:
        """Show ``model`` (already loaded); the window closes it later only if it owns it."""
        self._on_loaded(model, owned=owned)
        self._update_actions()

    def _on_loaded(self, model, *, owned: bool = True) -> None:
        if self.worker is not None and self.worker.running:
            self.worker.stop()
            self.worker.join(5)
        old, self.model = self.model, model
        if old is not None and self._owns_model:
            old.close()
        self._owns_model = owned
        self._token_texts = [t.decode("utf-8", "replace") for t in model.vocab.token_texts()]
        info = model.info
        self.recent.add(info.path)
        self._refresh_recent()
        self.status_model.setText(f"{info.name} \u00b7 {info.architecture} \u00b7 {info.size_bytes / 2**20:.0f} MiB"
                                  f" \u00b7 {info.gpu_layers} GPU layers")
        self.controls.model_label.setText(f"{info.name}\n{info.path}\nvocabulary {info.n_vocab}, "
                                          f"trained context {info.n_ctx_train}")

    def _refresh_recent(self) -> None:
        box = self.controls.recent
        box.clear()
        for path in self.recent.paths():
            box.addItem(Path(path).name, path)

    # -- running -----------------------------------------------------------------

    def generate(self, *, continue_text: bool) -> None:
        if self.model is None:
            self.show_error("No model is loaded yet.")
            return
        if self.worker is not None and self.worker.running:
            return
        prompt = self.prompt.toPlainText()
        if continue_text:
            prompt += self.text.text_so_far()
        seed = self.controls.run_seed()
        configs = [
            LaneConfig(dataclasses.replace(state.settings, seed=seed), f"lane {i + 1}")
            for i, state in enumerate(self.lane_states)
        ]
        try:
            options = RunOptions(
                max_tokens=self.controls.max_tokens.value(),
                stop_strings=self.controls.stop_strings(),
                context=ContextOptions(n_ctx=self.controls.ctx_size.value()),
            )
            self.worker = GenerationWorker(self.model, prompt, configs, options)
        except ValueError as exc:
            self.show_error(str(exc))
            return
        if continue_text:
            self.prompt.setPlainText(prompt)
        self.session.clear()
        self._pending_text = []
        for col in self.lanes_view.columns:
            col.text.set_prompt(prompt)
            col.note.setText("")
            col.stats.setText("")
        self.last_stop = ""
        self.status_stop.setText("running")
        self.controls.show_problem("")
        self.worker.start()
        self._update_actions()

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop()

    def _on_settings(self, settings) -> None:
        if not self.lane_states:
            return
        lane = self.current_lane
        self.lane_states[lane].settings = settings
        self.lane_states[lane].preset = self._preset_name_for(settings)
        self._refresh_lane_presets()
        if self.worker is not None and self.worker.running and lane < len(self.worker.generation.lanes):
            self.worker.set_lane_settings(lane, settings)
        self._dirty = True

    def show_error(self, message: str) -> None:
        self.controls.show_problem(message)
        self.statusBar().showMessage(message, 8000)

    # -- polling and redraw ----------------------------------------------------------

    def _poll(self) -> None:
        if self.loader is not None:
            for ev in self.loader.drain():
                if isinstance(ev, LoadProgress):
                    self.progress.setValue(int(ev.fraction * 100))
                    if ev.message:
                        self.status_model.setText(ev.message)
                elif isinstance(ev, LoadDone):
                    self.loader = None
                    self.progress.hide()
                    self._on_loaded(ev.model)
                    self._update_actions()
                    break
                elif isinstance(ev, LoadFailed):
                    self.loader = None
                    self.progress.hide()
                    self.status_model.setText(self._model_status())
                    self.show_error(f"Could not load the model: {ev.message}")
                    self._update_actions()
                    break
        if self.worker is not None:
            batch = []
            for ev in self.worker.drain():
                if isinstance(ev, list):
                    batch.extend(ev)
                elif isinstance(ev, Finished):
                    self.tokens_per_s = ev.tokens_per_s
                    self._finish(ev.results)
                elif isinstance(ev, Failed):
                    self._finish(ev.results)
                    self.show_error(f"Generation stopped by an error: {ev.message}")
            if batch:
                self.session.add(batch)
                self._pending_text.extend(batch)  # shown with the next redraw, not token by token
                self._dirty = True
        running = self.worker is not None and self.worker.running
        if running != self._was_running:  # the thread ends a moment after its last event
            self._was_running = running
            self._update_actions()
        if self._dirty and (not running or time.monotonic() - self._last_redraw >= LIVE_REDRAW_S):
            self._dirty = False
            self.redraw(stats=not running)

    def _finish(self, results) -> None:
        if results:
            r = results[min(self.current_lane, len(results) - 1)]
            self.last_stop = r.stop_reason.value + (f" ({r.detail})" if r.detail else "")
        self._mark_divergence()
        self._dirty = True  # one full redraw, statistics included, once the run is over
        self.status_stop.setText(f"stopped: {self.last_stop}")
        self.status_speed.setText(f"{self.tokens_per_s:.1f} tokens/s")
        self._update_actions()

    def _model_status(self) -> str:
        if self.model is None:
            return "no model"
        i = self.model.info
        return f"{i.name} \u00b7 {i.gpu_layers} GPU layers"

    def _on_session(self, what: str) -> None:
        self._dirty = True

    def redraw(self, *, stats: bool = True) -> None:
        """Show the current lane's run and selected step in every panel (statistics too, unless live)."""
        self._last_redraw = time.monotonic()
        if self._pending_text:
            pending, self._pending_text = self._pending_text, []
            for col in self.lanes_view.columns:
                col.text.append_records([r for r in pending if r.lane == col.index])
        lane = self.current_lane
        records = self.session.lane(lane)
        rec = self.session.current(lane)
        params = self.lane_states[lane].settings.scatter if self.lane_states else self.controls.settings.scatter
        if stats:
            for col in self.lanes_view.columns:
                col.show_stats(self.session.lane(col.index))
        self.pre_post.show_record(rec)
        self.entropy.show_run(records, rec, params)
        self.collision.show_run(records, params)
        self.absorption.show_record(rec, params)
        self.strips.show_run(records, rec)
        if records and self.worker is not None and self.worker.running:
            wall = self.worker.generation.wall_s
            if wall > 0:
                self.status_speed.setText(f"{len(records) / wall:.1f} tokens/s")

    def _update_actions(self) -> None:
        running = self.worker is not None and self.worker.running
        ready = self.model is not None
        self.act_generate.setEnabled(ready and not running)
        self.act_continue.setEnabled(ready and not running and bool(self.text.records))
        self.act_stop.setEnabled(running)
        for act in (self.act_add_lane, self.act_baseline):
            act.setEnabled(not running and len(self.lane_states) < MAX_LANES)
        self.act_match.setEnabled(not running and len(self.lane_states) > 1)
        self.act_fan.setEnabled(ready and not running and bool(self.text.records))

    # -- lanes -----------------------------------------------------------------------

    @property
    def text(self):
        """The text pane of the lane being edited."""
        return self.lanes_view.columns[self.current_lane].text

    def preset_names(self) -> list[str]:
        return [p.name for p in builtin_presets()] + self.store.names()

    def _preset(self, name: str):
        return self.store.get(name)

    def _preset_name_for(self, settings) -> str:
        for name in self.preset_names():
            if dataclasses.replace(self._preset(name).settings, seed=settings.seed) == settings:
                return name
        return CUSTOM

    def add_lane(self, preset: str | None = None, settings=None) -> int:
        if len(self.lane_states) >= MAX_LANES:
            self.show_error(f"At most {MAX_LANES} lanes.")
            return -1
        if settings is None:
            base = self.lane_states[self.current_lane].settings if self.lane_states else self.controls.settings
            settings = dataclasses.replace(self._preset(preset).settings, seed=base.seed) if preset else base
        self.lane_states.append(LaneState(settings, preset or self._preset_name_for(settings)))
        columns = self.lanes_view.set_count(len(self.lane_states))
        col = columns[-1]
        col.presetChosen.connect(self._on_lane_preset)
        col.editRequested.connect(self.set_current_lane)
        col.removeRequested.connect(self.remove_lane)
        col.text.stepClicked.connect(self.session.select)
        self._refresh_lane_presets()
        self.set_current_lane(len(self.lane_states) - 1)
        self._update_actions()
        return len(self.lane_states) - 1

    def add_baseline_lane(self) -> int:
        base = self.lane_states[self.current_lane].settings if self.lane_states else self.controls.settings
        baseline = dataclasses.replace(self._preset("Off (llama.cpp defaults)").settings, seed=base.seed, temp=base.temp)
        return self.add_lane(settings=baseline)

    def remove_lane(self, index: int) -> None:
        if len(self.lane_states) <= 1 or (self.worker is not None and self.worker.running):
            return
        del self.lane_states[index]
        for col in self.lanes_view.columns:
            col.text.set_prompt(self.prompt.toPlainText())
        self.session.clear()
        self.lanes_view.set_count(len(self.lane_states))
        self._refresh_lane_presets()
        self.set_current_lane(min(self.current_lane, len(self.lane_states) - 1))
        self._update_actions()

    def set_current_lane(self, index: int) -> None:
        self.current_lane = index
        col = self.lanes_view.columns[index]
        if not col.edit.isChecked():
            col.edit.setChecked(True)
        for other in self.lanes_view.columns:
            if other is not col:
                other.edit.blockSignals(True)
                other.edit.setChecked(False)
                other.edit.blockSignals(False)
        self.controls.blockSignals(True)
        self.controls.set_settings(self.lane_states[index].settings, emit=False)
        self.controls.blockSignals(False)
        self._dirty = True

    def _on_lane_preset(self, lane: int, name: str) -> None:
        if name == CUSTOM:
            return
        state = self.lane_states[lane]
        state.settings = dataclasses.replace(self._preset(name).settings, seed=state.settings.seed)
        state.preset = name
        if lane == self.current_lane:
            self.set_current_lane(lane)
        if self.worker is not None and self.worker.running:
            self.worker.set_lane_settings(lane, state.settings)
        self._refresh_lane_presets()

    def _refresh_lane_presets(self) -> None:
        names = self.preset_names()
        for col, state in zip(self.lanes_view.columns, self.lane_states):
            col.set_presets(names, state.preset)
            preset = None if state.preset == CUSTOM else self._preset(state.preset)
            col.preset.setToolTip(preset.description if preset else "settings edited by hand")

    def _mark_divergence(self) -> None:
        tokens = [[r.token for r in self.session.lane(i)] for i in range(len(self.lane_states))]
        if len(tokens) < 2:
            return
        step = first_divergence(tokens)
        for col in self.lanes_view.columns:
            if step is None:
                col.note.setText("identical to the other lanes")
            else:
                col.text.mark_step(step)
                col.note.setText(f"lanes diverge at token {step}")

    def match_entropy(self) -> None:
        """Give the baseline lane the temperature that matches the scatter lane's mean entropy."""
        scatter_lanes = [i for i, s in enumerate(self.lane_states) if s.settings.scatter.enabled]
        baselines = [i for i, s in enumerate(self.lane_states) if not s.settings.scatter.enabled]
        if not scatter_lanes or not baselines:
            self.show_error("Match entropy needs a lane with scatter on and a baseline lane with scatter off.")
            return
        target = self.current_lane if self.current_lane in scatter_lanes else scatter_lanes[0]
        baseline = baselines[0]
        target_records, baseline_records = self.session.lane(target), self.session.lane(baseline)
        if not target_records or not baseline_records:
            self.show_error("Generate first: matching uses the recorded steps of both lanes.")
            return
        state = self.lane_states[baseline]
        result = match_entropy(target_records, baseline_records, state.settings, vocab=self.model.vocab if self.model else None)
        state.settings = dataclasses.replace(state.settings, temp=round(result.temperature, 4))
        state.preset = self._preset_name_for(state.settings)
        self._refresh_lane_presets()
        if baseline == self.current_lane:
            self.set_current_lane(baseline)
        reached = "" if result.reached else " (closest reachable)"
        self.last_match = result
        self.statusBar().showMessage(
            f"Baseline lane {baseline + 1}: temperature {result.temperature:.3f}{reached} matches lane {target + 1}'s "
            "mean entropy. Generate again to compare.", 15000)

    def fan(self, n: int | None = None) -> None:
        if self.model is None or not self.text.records:
            return
        if n is None:
            n, ok = QInputDialog.getInt(self, "Fan", "Continuations per lane", 4, 1, 16)
            if not ok:
                return
        step = self.session.selected if self.session.selected is not None else len(self.text.records) - 1
        prompts = []
        for i in range(len(self.lane_states)):
            recs = self.session.lane(i)[: step + 1]
            prompts.append(self.prompt.toPlainText() + "".join(r.text for r in recs))
        options = RunOptions(max_tokens=min(self.controls.max_tokens.value(), 48),
                             context=ContextOptions(n_ctx=self.controls.ctx_size.value()))
        try:
            self.fan_worker = FanWorker(self.model, prompts, [s.settings for s in self.lane_states], n, options).start()
        except ValueError as exc:
            self.show_error(str(exc))
            return
        self.fan_dialog = FanDialog(self.fan_worker, [f"Lane {i + 1}: {s.preset}" for i, s in enumerate(self.lane_states)], self)
        self.fan_dialog.show()

    # -- presets and llama.cpp flags ---------------------------------------------------

    def _ask_name(self, title: str, label: str, text: str = "") -> str | None:
        name, ok = QInputDialog.getText(self, title, label, text=text)
        return name if ok and name.strip() else None

    def _store_call(self, fn, *args) -> bool:
        try:
            fn(*args)
        except (ValueError, KeyError, PresetFileError) as exc:
            self.show_error(str(exc).strip("'\""))
            return False
        self._refresh_lane_presets()
        return True

    def save_preset(self, name: str | None = None) -> None:
        name = name or self._ask_name("Save preset", "Name for the edited lane's settings:")
        state = self.lane_states[self.current_lane]
        if name and self._store_call(self.store.save, name, state.settings, "saved from the playground"):
            state.preset = self.store.get(name).name
            self._refresh_lane_presets()

    def rename_preset(self) -> None:
        old = self._ask_name("Rename preset", "Preset to rename:", self.lane_states[self.current_lane].preset)
        new = old and self._ask_name("Rename preset", f"New name for {old!r}:")
        if new and self._store_call(self.store.rename, old, new):
            for state in self.lane_states:
                if state.preset == old:
                    state.preset = new
            self._refresh_lane_presets()

    def duplicate_preset(self) -> None:
        old = self._ask_name("Duplicate preset", "Preset to duplicate:", self.lane_states[self.current_lane].preset)
        new = old and self._ask_name("Duplicate preset", "Name of the copy:", f"{old} copy")
        if new:
            self._store_call(self.store.duplicate, old, new)

    def delete_preset(self) -> None:
        name = self._ask_name("Delete preset", "Preset to delete:", self.lane_states[self.current_lane].preset)
        if name and self._store_call(self.store.delete, name):
            for state in self.lane_states:
                if state.preset == name:
                    state.preset = CUSTOM
            self._refresh_lane_presets()

    def import_presets(self, path: str | None = None) -> None:
        path = path or QFileDialog.getOpenFileName(self, "Import presets", str(Path.home()), "JSON (*.json)")[0]
        if path and self._store_call(self.store.import_file, path):
            self.statusBar().showMessage(f"Imported presets from {path}", 8000)

    def export_presets(self, path: str | None = None) -> None:
        path = path or QFileDialog.getSaveFileName(self, "Export presets", str(Path.home() / "presets.json"), "JSON (*.json)")[0]
        if path and self._store_call(self.store.export_file, path):
            self.statusBar().showMessage(f"Exported presets to {path}", 8000)

    def export_command(self) -> None:
        state = self.lane_states[self.current_lane]
        path = self.model.info.path if self.model is not None else None
        self.export_dialog = ExportDialog(state.settings, path, self.prompt.toPlainText(), self)
        self.export_dialog.show()

    def import_flags(self) -> None:
        dialog = ImportDialog(self.lane_states[self.current_lane].settings, self)
        if dialog.exec() and dialog.result_settings is not None:
            self.apply_imported(dialog.result_settings)

    def apply_imported(self, settings) -> None:
        state = self.lane_states[self.current_lane]
        state.settings = settings
        state.preset = self._preset_name_for(settings)
        self.set_current_lane(self.current_lane)
        self._refresh_lane_presets()

    def closeEvent(self, event) -> None:
        self.timer.stop()
        if self.fan_worker is not None:
            self.fan_worker.stop()
            self.fan_worker.join(5)
        if self.worker is not None:
            self.worker.stop()
            self.worker.join(5)
        if self.loader is not None:
            self.loader.cancel()
            self.loader.join(10)
        if self.model is not None and self._owns_model:
            self.model.close()
        self.model = None
        super().closeEvent(event)
