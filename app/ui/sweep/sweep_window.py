"""The Sweep window: a form, Start / Resume / Cancel, progress with ETA, and the results as they come.

It composes widgets only: the sweep runs in ``playground.sweep`` (Qt-free; its
work on the engine thread, its events through the main window's bridge), and
every view redraws from that part's rows; the form's fields are the state's
(``state.jobs.sweep_form``), and Start builds their plan (``app.core.sweep.form``).
Clicking a point (in any plot or the table) gives the main window's edited lane
that point's settings.
"""
from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.changes import Change, Changed
from app.core.sweep.form import form_changes, form_plan
from app.core.sweep.report import clock, phases_line
from app.core.sweep.summary import LABELS, SUMMARY_METRICS, matched_comparison, summarise

from .form import SweepForm
from .frontier_plot import FrontierPlot
from .matched_table import MatchedTable
from .metric_plot import MetricPlot

VARIETY = ("diversity", "entropy", "distinct_1", "distinct_2", "distinct_3", "raw_rank")
#: While a sweep runs, its plots are redrawn at most this often (a summary bootstraps every point).
REDRAW_S = 2.0


class SweepWindow(QWidget):
    def __init__(self, state, playground, parent=None):
        super().__init__(parent, Qt.WindowType.Window)
        self.setWindowTitle("Sweep")
        self.resize(1280, 860)
        self.state, self.playground, self.sweep = state, playground, playground.sweep
        self.form = SweepForm(state)
        self.start_button = self._button("Start", lambda: self.start(resume=False))
        self.resume_button = self._button("Resume", lambda: self.start(resume=True))
        self.cancel_button = self._button("Cancel", self.sweep.cancel)
        self.open_button = self._button("Show a CSV …", self.open_file)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.eta = QLabel("")
        self.phases = QLabel("")  # each phase (generating, entropy matching, writing) with its progress
        self.phases.setWordWrap(True)
        self.message = QLabel("")
        self.metric_box = self._combo(SUMMARY_METRICS, "logprob")
        self.variety_box = self._combo(VARIETY, "diversity")
        self.sweep_plot, self.baseline_plot = MetricPlot("sweep"), MetricPlot("baseline")
        self.baseline_plot.plot.setYLink(self.sweep_plot.plot)
        self.frontier = FrontierPlot()
        self.table = MatchedTable()
        for view in (self.sweep_plot, self.baseline_plot, self.frontier):
            view.pointClicked.connect(self.open_point)
        self.table.pointActivated.connect(self.open_point)
        self._build()
        self._drawn_rows, self._drawn_at = -1, 0.0
        self._unsubscribe = None

    def _build(self) -> None:
        buttons = QHBoxLayout()
        for w in (self.start_button, self.resume_button, self.cancel_button, self.open_button):
            buttons.addWidget(w)
        buttons.addWidget(self.progress, 1)
        buttons.addWidget(self.eta)
        metrics = QWidget()
        lay = QVBoxLayout(metrics)
        lay.addLayout(self._labelled("Metric", self.metric_box))
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.sweep_plot)
        split.addWidget(self.baseline_plot)
        lay.addWidget(split, 1)
        frontier = QWidget()
        lay = QVBoxLayout(frontier)
        lay.addLayout(self._labelled("Variety axis", self.variety_box))
        lay.addWidget(self.frontier, 1)
        tabs = QTabWidget()
        tabs.addTab(frontier, "Frontier")
        tabs.addTab(metrics, "Metrics")
        tabs.addTab(self.table, "Matched entropy")
        self.tabs = tabs
        root = QVBoxLayout(self)
        root.addWidget(self.form)
        root.addLayout(buttons)
        root.addWidget(self.phases)
        root.addWidget(self.message)
        root.addWidget(tabs, 1)

    # -- actions ----------------------------------------------------------------------------------

    def start(self, resume: bool) -> None:
        try:
            plan = form_plan(self.state.jobs.sweep_form, self.state.run_settings.n_ctx)
        except ValueError as exc:
            self.message.setText(f"<span style='color:#b00'>{exc}</span>")
            return
        path = self.state.jobs.sweep_form.output
        overwrite = False
        if not resume and Path(path).exists():
            answer = QMessageBox.question(self, "Sweep", f"{path} exists. Overwrite it?")
            if answer != QMessageBox.StandardButton.Yes:
                return
            overwrite = True
        if not self.sweep.start(plan, path, resume=resume, overwrite=overwrite):
            self.message.setText(f"<span style='color:#b00'>{self.state.problem or 'the engine is busy'}</span>")
        self.refresh()

    def open_file(self, path: str | None = None) -> None:
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "A sweep's CSV", self.state.jobs.sweep_form.output, "CSV (*.csv)")
        if path and self.sweep.show_file(path):
            self.state.jobs.set_sweep_form(**form_changes(self.state.jobs.sweep.header["plan"]), output=str(path))
        elif path:
            self.message.setText(f"<span style='color:#b00'>{self.state.problem}</span>")
        self.refresh()

    def open_point(self, flags: str) -> None:
        self.sweep.open_point(flags)
        self.message.setText(self.state.status)

    # -- views ----------------------------------------------------------------------------------

    def _on_change(self, change: Change) -> None:
        if change.what in (Changed.SWEEP, Changed.BUSY, Changed.MODEL):
            self.refresh()

    def refresh(self) -> None:
        sweep = self.sweep
        running = sweep.running
        idle = not self.state.busy and self.state.model is not None
        self.start_button.setEnabled(idle)
        self.resume_button.setEnabled(idle)
        self.cancel_button.setEnabled(running)
        self.open_button.setEnabled(not running)
        runner = sweep.runner
        if runner is not None:
            p = runner.progress
            self.progress.setValue(int(p.fraction * 1000))
            done = p.skipped + p.done
            self.eta.setText(f"ETA {clock(p.eta_s)}" if running else f"{done}/{p.total}")
            self.phases.setText(phases_line(p) if running else "")
        if not self.message.text().startswith("<span") or running:
            self.message.setText(self.state.jobs.sweep.message)
        rows = len(self.state.jobs.sweep.rows)
        if rows != self._drawn_rows and (not running or time.monotonic() - self._drawn_at >= REDRAW_S):
            self.redraw()

    def redraw(self) -> None:
        sweep = self.state.jobs.sweep
        self._drawn_rows, self._drawn_at = len(sweep.rows), time.monotonic()
        if sweep.header is None or not sweep.rows:
            return
        names = [a["flag"].lstrip("-") for a in sweep.header["plan"]["sweep"]]
        points = summarise(sweep.header, sweep.rows)
        self.sweep_plot.draw(points, self.metric_box.currentData(), names)
        self.baseline_plot.draw(points, self.metric_box.currentData(), names)
        self.frontier.draw(points, self.variety_box.currentData(), names)
        self.table.draw(matched_comparison(points), names)

    # -- parts ------------------------------------------------------------------------------------

    def _button(self, text: str, slot) -> QPushButton:
        button = QPushButton(text)
        button.clicked.connect(lambda _=False: slot())
        return button

    def _combo(self, keys, current: str) -> QComboBox:
        box = QComboBox()
        for key in keys:
            box.addItem(LABELS.get(key, key), key)
        box.setCurrentIndex(box.findData(current))
        box.currentIndexChanged.connect(lambda _i: self.redraw())
        return box

    @staticmethod
    def _labelled(text: str, widget) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel(text))
        row.addWidget(widget)
        row.addStretch(1)
        return row

    def showEvent(self, event) -> None:
        """Listen to the state while shown (a hidden window keeps no binding; a sweep goes on without it)."""
        if self._unsubscribe is None:
            self._unsubscribe = self.state.subscribe(self._on_change)
        self._drawn_rows = -1
        self.refresh()
        super().showEvent(event)

    def hideEvent(self, event) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        super().hideEvent(event)
