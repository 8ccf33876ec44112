"""Presets ▸ Import / Export for other tools: the per-field report of a file read (SillyTavern, KoboldCpp,
text-generation-webui, LM Studio, llama-server INI, llama.cpp command line) or of the edited lane's settings
written in one of those formats (:mod:`app.core.formats`).

Import shows what each field became and offers to apply the settings to the edited lane, or to save them
as a preset that keeps the report.  Export shows what each setting becomes and saves the file.
"""
from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
)

from app.core.formats import FORMATS, FormatError, Imported, Report, file_patterns, writable, write_preset
from app.core.formats.in_effect import effective_chain, in_effect
from app.core.formats.stock import nearest_stock, needs_fit
from app.fileio import atomic_write

#: Status -> (text colour, background) of its tag in the report (light enough for both themes' text).
STATUS_STYLE = {"exact": ("#0f5132", "#d1e7dd"), "converted": ("#084298", "#cfe2ff"),
                "emulated": ("#664d03", "#fff3cd"), "dropped": ("#842029", "#f8d7da"),
                "unknown": ("#41464b", "#e2e3e5")}


def file_filter() -> str:
    """The file dialogs' filter: every format's files, then all files."""
    return f"Presets ({' '.join(file_patterns())});;All files (*)"


def report_html(report: Report) -> str:
    """The report as rows: a coloured status tag, the field, what became of it."""
    rows = []
    for note in report.notes:
        fg, bg = STATUS_STYLE.get(note.status, ("#000", "#fff"))
        rows.append(f"<tr><td style='color:{fg}; background:{bg}; padding:1px 6px'>{note.status}</td>"
                    f"<td style='padding:1px 6px'><b>{html.escape(note.field)}</b></td>"
                    f"<td style='padding:1px 6px'>{html.escape(note.detail)}</td></tr>")
    return f"<p>{html.escape(report.summary())}</p><table cellspacing='0'>" + "".join(rows) + "</table>"


class ImportReportDialog(QDialog):
    """The report of one imported file; ``choice`` is "apply" or "save" (with ``name``) when accepted."""

    def __init__(self, path: str, imported: Imported, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Import {Path(path).name}")
        self.imported, self.choice = imported, None
        head = QLabel(f"Read as <b>{html.escape(imported.report.format)}</b>: what each field became.")
        self.view = QTextBrowser()
        self.view.setHtml(report_html(imported.report))
        self.name = QLineEdit(Path(path).stem.removesuffix(".preset"))
        self.name.setPlaceholderText("Name for the preset")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        apply_button = buttons.addButton("Apply to the edited lane", QDialogButtonBox.ButtonRole.AcceptRole)
        save_button = buttons.addButton("Save as preset and apply", QDialogButtonBox.ButtonRole.AcceptRole)
        apply_button.clicked.connect(lambda: self._done("apply"))
        save_button.clicked.connect(lambda: self._done("save"))
        buttons.rejected.connect(self.reject)
        name_row = QHBoxLayout()
        name_row.addWidget(QLabel("Preset name:"))
        name_row.addWidget(self.name, 1)
        layout = QVBoxLayout(self)
        for item in (head, self.view):
            layout.addWidget(item)
        layout.addLayout(name_row)
        layout.addWidget(buttons)
        self.resize(820, 560)

    def _done(self, choice: str) -> None:
        if choice == "save" and not self.name.text().strip():
            self.name.setFocus()
            return
        self.choice = choice
        self.accept()


def effect_html(ours: list[str], theirs: list[str], target: str, notes=()) -> str:
    """Our chain beside the target's, stage by stage, then the target's rules that made them differ."""
    rows = "".join(f"<tr><td style='padding:1px 8px'>{html.escape(a)}</td><td style='padding:1px 8px'>"
                   f"{html.escape(b)}</td></tr>" for a, b in zip(ours + [""] * len(theirs), theirs + [""] * len(ours))
                   if a or b)
    rules = "".join(f"<li>{html.escape(n.line())}</li>" for n in notes)
    return (f"<table cellspacing='0'><tr><th align='left'>here</th><th align='left'>in effect in {html.escape(target)}"
            f"</th></tr>{rows}</table>" + (f"<p>What {html.escape(target)} does with the file:</p><ul>{rules}</ul>"
                                            if rules else ""))


class ExportReportDialog(QDialog):
    """The edited lane's settings in a chosen format, with the report, and the chain that format's tool really
    runs beside ours; Save writes the file.  "Nearest stock llama.cpp" writes fitted stock settings instead."""

    def __init__(self, settings, parent=None, report_problem=None, records=()):
        super().__init__(parent)
        self.setWindowTitle("Export preset for another tool")
        self.settings, self.report_problem, self.saved_to = settings, report_problem or (lambda text: None), None
        self.records = records
        self.format = QComboBox()
        for name in writable():
            self.format.addItem(FORMATS[name].label, name)
        self.format.currentIndexChanged.connect(self._refresh)
        self.fit = QCheckBox("Nearest stock llama.cpp settings (fit temperature, min-p, top-p, top-n-sigma)")
        self.fit.setEnabled(needs_fit(settings))
        self.fit.setToolTip("The settings use a stage llama.cpp lacks: fit the stock ones that come closest "
                            "(mean KL over this lane's steps, or over standard steps)")
        self.fit.toggled.connect(self._refresh)
        self.effect = QTextBrowser()
        self.view = QTextBrowser()
        save = QPushButton("Save file …")
        save.clicked.connect(self.save)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(QLabel("Format:"))
        row.addWidget(self.format, 1)
        row.addWidget(save)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(self.effect)
        split.setSizes([560, 380])
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.fit)
        layout.addWidget(QLabel("What each setting of the edited lane becomes there, and the chain in effect:"))
        layout.addWidget(split, 1)
        layout.addWidget(close)
        self.resize(1000, 600)
        self._refresh()

    def chosen(self) -> str:
        return self.format.currentData()

    def _refresh(self) -> None:
        settings, fitted = self.settings, None
        try:
            if self.fit.isChecked():
                settings, _fit, fitted = nearest_stock(self.settings, self.records)
            self.data, report = write_preset(settings, self.chosen())
            target = FORMATS[self.chosen()].target
            _ours, theirs, notes = in_effect(settings, target, self.chosen())
            ours = effective_chain(self.settings)
        except (FormatError, ValueError) as exc:
            self.data = None
            self.view.setPlainText(str(exc))
            return
        self.view.setHtml((report_html(fitted) if fitted else "") + report_html(report))
        self.effect.setHtml(effect_html(ours, theirs, target, notes))

    def save(self, path: str | None = None) -> bool:
        if self.data is None:
            return False
        suffix = FORMATS[self.chosen()].extensions[0]
        path = path or QFileDialog.getSaveFileName(self, "Export preset", str(Path.home() / f"preset{suffix}"),
                                                   file_filter())[0]
        if not path:
            return False
        try:
            atomic_write(path, self.data)
        except OSError as exc:
            self.report_problem(f"{path}: could not be written ({exc.strerror or exc})")
            return False
        self.saved_to = path
        return True
