"""The playground window: prompt, controls, tinted text and the five live panels."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog, QGridLayout, QLabel, QMainWindow, QMessageBox, QPlainTextEdit, QProgressBar, QScrollArea,
    QSplitter, QStatusBar, QToolBar, QVBoxLayout, QWidget,
)

from app.builtin_presets import default_prompt
from app.engine.context import ContextOptions
from app.engine.generation import RunOptions
from app.engine.lane import LaneConfig
from app.engine.loader import LoadDone, LoadFailed, LoadProgress, ModelLoader
from app.engine.worker import Failed, Finished, GenerationWorker

from .panels import AbsorptionPanel, CollisionPanel, EntropyPanel, MetricStrips, PrePostPanel
from .recent import RecentModels
from .session import Session
from .settings_panel import SettingsPanel
from .text_pane import TokenTextPane

REDRAW_MS = 16  # at most ~60 redraws a second


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
        self._token_texts: list[str] = []
        self._dirty = False
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
        self.text = TokenTextPane(self.token_text)
        self.text.stepClicked.connect(self.session.select)
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
        upper.addWidget(self.text)
        upper.setSizes([80, 220])
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(upper)
        right.addWidget(panels)
        right.addWidget(self.strips)
        right.setSizes([300, 420, 260])
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
        settings = self.controls.settings
        try:
            options = RunOptions(
                max_tokens=self.controls.max_tokens.value(),
                stop_strings=self.controls.stop_strings(),
                context=ContextOptions(n_ctx=self.controls.ctx_size.value()),
            )
            self.worker = GenerationWorker(self.model, prompt, [LaneConfig(settings, "lane 0")], options)
        except ValueError as exc:
            self.show_error(str(exc))
            return
        if continue_text:
            self.prompt.setPlainText(prompt)
        self.session.clear()
        self.text.set_prompt(prompt)
        self.last_stop = ""
        self.status_stop.setText("running")
        self.worker.start()
        self._update_actions()

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop()

    def _on_settings(self, settings) -> None:
        if self.worker is not None and self.worker.running:
            self.worker.set_lane_settings(0, settings)
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
                self.text.append_records([r for r in batch if r.lane == 0])
                self._dirty = True
        running = self.worker is not None and self.worker.running
        if running != self._was_running:  # the thread ends a moment after its last event
            self._was_running = running
            self._update_actions()
        if self._dirty:
            self._dirty = False
            self.redraw()

    def _finish(self, results) -> None:
        if results:
            r = results[0]
            self.last_stop = r.stop_reason.value + (f" ({r.detail})" if r.detail else "")
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

    def redraw(self) -> None:
        records = self.session.lane(0)
        rec = self.session.current(0)
        params = self.controls.settings.scatter
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

    def closeEvent(self, event) -> None:
        self.timer.stop()
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
