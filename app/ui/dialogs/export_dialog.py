"""Copy as llama.cpp: the run of the edited lane as a llama.cpp command, a llama-server request,
``llama_cpp.Llama`` kwargs and the scatter C call, one tab each, each with its Copy button.

The command is llama-completion for plain text and llama-cli for chat (the
program box picks by the mode unless told).  A short prompt goes inline
(``-p``); a long one, or any prompt when "file" is chosen, goes to a file
beside the command: in the folder given here, else the folder the command is
saved to (Copy asks for one).  A file that holds other text is never
replaced (:mod:`app.core.llamacpp.prompt_file`).
"""
from __future__ import annotations

import html
import os

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.llamacpp import (
    CHAT_PROGRAM,
    INLINE_PROMPT_MAX,
    PLAIN_PROGRAM,
    PromptFileConflict,
    export_run,
    llama_kwargs,
    scatter_ext_call,
    server_request,
)
from app.fileio import atomic_write

SCATTER_BANNER = ("Needs a llama.cpp build with the scatter sampler: the --scatter-* flags and the scatter "
                  "stage are the patch's; upstream llama.cpp refuses those flags.")
WARN_STYLE = "background: #fff3cd; color: #664d03; border: 1px solid #ffe69c; padding: 4px;"
NOTE_STYLE = "color: #555;"


def _mono(edit: QPlainTextEdit) -> QPlainTextEdit:
    edit.setReadOnly(True)
    edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    return edit


def _notes_html(notes) -> str:
    return "<br>".join(f"&bull; {html.escape(n)}" for n in notes)


class ExportDialog(QDialog):
    def __init__(self, settings, model_path: str | None, prompt: str, parent=None, *, run_settings=None,
                 chat: bool = False, system: str | None = None, messages=None, token_texts=()):
        super().__init__(parent)
        self.setWindowTitle("Copy as llama.cpp")
        self.settings, self.model_path, self.prompt, self.token_texts = settings, model_path, prompt, token_texts
        self.run_settings, self.chat, self.system, self.messages = run_settings, chat, system, messages

        self.program = QComboBox()
        auto = CHAT_PROGRAM if chat else PLAIN_PROGRAM
        self.program.addItem(f"auto: {auto} ({'chat' if chat else 'plain text'})", None)
        self.program.addItem(f"{PLAIN_PROGRAM} (plain text)", PLAIN_PROGRAM)
        self.program.addItem(f"{CHAT_PROGRAM} (chat)", CHAT_PROGRAM)
        self.prompt_modes = QButtonGroup(self)
        mode_row = QHBoxLayout()
        for mode, text in (("auto", f"auto (inline up to {INLINE_PROMPT_MAX} characters)"), ("inline", "inline (-p)"),
                           ("file", "file (-f)")):
            button = QRadioButton(text)
            button.setProperty("mode", mode)
            button.setChecked(mode == "auto")
            self.prompt_modes.addButton(button)
            mode_row.addWidget(button)
        mode_row.addStretch(1)
        self.folder = QLineEdit()
        self.folder.setPlaceholderText("the folder the command is saved to")
        browse = QPushButton("Choose …")
        browse.clicked.connect(self.choose_folder)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(browse)
        self.use_seq = QCheckBox("--sampler-seq instead of --samplers")
        self.all_flags = QCheckBox("all flags, not only those that differ from llama.cpp's defaults")
        form = QFormLayout()
        form.addRow("Program:", self.program)
        form.addRow("Prompt:", mode_row)
        form.addRow("Prompt file folder:", folder_row)
        form.addRow("", self.use_seq)
        form.addRow("", self.all_flags)

        self.banner = QLabel(SCATTER_BANNER)
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(WARN_STYLE)

        self.tabs = QTabWidget()
        # llama.cpp command
        self.text = _mono(QPlainTextEdit())
        self.files_label = QLabel()
        self.files_label.setWordWrap(True)
        self.files_label.setStyleSheet(NOTE_STYLE)
        copy = QPushButton("Copy")
        copy.clicked.connect(lambda: self.copy_command())
        save = QPushButton("Save as script …")
        save.clicked.connect(lambda: self.save_command())
        self.tabs.addTab(self._tab(self.text, self.files_label, [save, copy]), "llama.cpp command")
        # llama-server
        self.server_launch = QLineEdit()
        self.server_launch.setReadOnly(True)
        self.server_endpoint = QLabel()
        self.server_json = _mono(QPlainTextEdit())
        self.server_notes = QLabel()
        self.server_notes.setTextFormat(Qt.TextFormat.RichText)
        self.server_notes.setWordWrap(True)
        self.server_notes.setStyleSheet(NOTE_STYLE)
        copy_json = QPushButton("Copy")
        copy_json.setToolTip("Copy the JSON body")
        copy_json.clicked.connect(lambda: self._to_clipboard(self.server_json.toPlainText()))
        server_top = QFormLayout()
        server_top.addRow("Start:", self.server_launch)
        server_top.addRow("Then POST:", self.server_endpoint)
        self.tabs.addTab(self._tab(self.server_json, self.server_notes, [copy_json], top=server_top), "llama-server")
        # llama_cpp.Llama
        self.llama_code = _mono(QPlainTextEdit())
        self.llama_notes = QLabel()
        self.llama_notes.setTextFormat(Qt.TextFormat.RichText)
        self.llama_notes.setWordWrap(True)
        self.llama_notes.setStyleSheet(NOTE_STYLE)
        copy_code = QPushButton("Copy")
        copy_code.clicked.connect(lambda: self._to_clipboard(self.llama_code.toPlainText()))
        self.tabs.addTab(self._tab(self.llama_code, self.llama_notes, [copy_code]), "llama_cpp.Llama")
        # C API
        self.c_call = _mono(QPlainTextEdit())
        c_note = QLabel("The scatter stage as the scatter build's C API builds it (for your own sampler chain).")
        c_note.setWordWrap(True)
        c_note.setStyleSheet(NOTE_STYLE)
        copy_c = QPushButton("Copy")
        copy_c.clicked.connect(lambda: self._to_clipboard(self.c_call.toPlainText()))
        self.tabs.addTab(self._tab(self.c_call, c_note, [copy_c]), "C API (scatter)")

        self.status = QLabel()
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(buttons)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.banner)
        lay.addWidget(self.tabs, 1)
        lay.addLayout(bottom)
        self.resize(900, 580)

        self.program.currentIndexChanged.connect(self.refresh)
        self.prompt_modes.buttonToggled.connect(lambda *_: self.refresh())
        self.folder.editingFinished.connect(self.refresh)
        for box in (self.use_seq, self.all_flags):
            box.toggled.connect(self.refresh)
        self.refresh()

    @staticmethod
    def _tab(view, notes: QLabel, buttons, top=None) -> QWidget:
        page = QWidget()
        lay = QVBoxLayout(page)
        if top is not None:
            lay.addLayout(top)
        lay.addWidget(view, 1)
        row = QHBoxLayout()
        row.addWidget(notes, 1)
        for button in buttons:
            row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        lay.addLayout(row)
        return page

    # -- what is exported ----------------------------------------------------------

    def _run(self) -> dict:
        chat = self.chat if self.program.currentData() is None else self.program.currentData() == CHAT_PROGRAM
        run = dict(prompt=self.prompt, model_path=self.model_path, chat=chat, system=self.system,
                   messages=self.messages, token_texts=self.token_texts)
        if self.run_settings is not None:
            run["run_settings"] = self.run_settings
        return run

    def prompt_mode(self) -> str:
        return self.prompt_modes.checkedButton().property("mode")

    def export(self):
        """The :class:`~app.core.llamacpp.RunExport` the dialog shows."""
        folder = self.folder.text().strip() or None
        return export_run(
            self.settings, prompt_mode=self.prompt_mode(), folder=folder, program=self.program.currentData(),
            order="seq" if self.use_seq.isChecked() else "samplers", only_changed=not self.all_flags.isChecked(),
            **self._run(),
        )

    def command(self) -> str:
        """The command tab's text: notes as ``#`` lines, then the command on one line."""
        return self.export().text

    def refresh(self, *_) -> None:
        e = self.export()
        self.text.setPlainText(e.text)
        if e.files:
            where = self.folder.text().strip()
            names = ", ".join(os.path.basename(f.path) for f in e.files)
            self.files_label.setText(
                f"Copy or Save writes {names} in {where}." if where
                else f"The command reads {names}: Copy asks for its folder, Save writes it beside the script.")
        else:
            self.files_label.setText("The prompt is inline: the command needs no other file.")
        server = server_request(self.settings, **self._run())
        self.server_launch.setText(server.launch)
        self.server_endpoint.setText(f"<code>{server.endpoint}</code> with this body (port 8080 by default)")
        self.server_json.setPlainText(server.json)
        self.server_notes.setText(_notes_html(server.notes))
        llama = llama_kwargs(self.settings, **self._run())
        self.llama_code.setPlainText(llama.code)
        self.llama_notes.setText(
            "Not expressible with llama_cpp.Llama:<br>" + _notes_html(llama.gaps) if llama.gaps
            else "Llama's fixed chain expresses these settings: the same text as the playground.")
        self.c_call.setPlainText(f"{scatter_ext_call(self.settings)};\n")
        self.banner.setVisible(e.needs_scatter_build or server.needs_scatter_build)

    # -- copy and save -------------------------------------------------------------

    def _to_clipboard(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.status.setText("Copied.")

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder for the prompt file", self.folder.text() or "")
        if folder:
            self.folder.setText(folder)
            self.refresh()

    def _write_files(self, export) -> bool:
        """Write the prompt files; False (with a message) if one cannot be."""
        try:
            written = [os.path.basename(f.path) for f in export.files if f.write()]
        except PromptFileConflict as exc:
            QMessageBox.warning(self, "Copy as llama.cpp", f"{exc}.\nExport again to use another name.")
            self.refresh()
            return False
        except OSError as exc:
            QMessageBox.warning(self, "Copy as llama.cpp", f"The prompt file could not be written: {exc}")
            return False
        if written:
            self.status.setText(f"Wrote {', '.join(written)}.")
        return True

    def copy_command(self, folder: str | None = None) -> bool:
        """Copy the command; a prompt file is written first (asking for its folder if none is set)."""
        if folder:
            self.folder.setText(folder)
            self.refresh()
        e = self.export()
        if e.files and not self.folder.text().strip():
            self.choose_folder()
            if not self.folder.text().strip():
                return False
            e = self.export()
        if e.files and not self._write_files(e):
            return False
        QGuiApplication.clipboard().setText(e.text)
        self.status.setText((self.status.text() + " " if e.files else "") + "Copied.")
        return True

    def save_command(self, path: str | None = None) -> bool:
        """Save the command as a shell script; the prompt files go to the folder field or beside it."""
        if path is None:
            start = os.path.join(self.folder.text().strip() or os.path.expanduser("~"), "run-llama.sh")
            path = QFileDialog.getSaveFileName(self, "Save the command", start, "Shell script (*.sh);;All files (*)")[0]
            if not path:
                return False
        if not self.folder.text().strip():
            self.folder.setText(os.path.dirname(os.path.abspath(path)))
            self.refresh()
        e = self.export()
        if e.files and not self._write_files(e):
            return False
        try:
            _write_script(path, "#!/bin/sh\n" + e.text + "\n")
        except OSError as exc:
            QMessageBox.warning(self, "Copy as llama.cpp", f"The script could not be written: {exc}")
            return False
        self.status.setText(f"Saved {os.path.basename(path)}" + (f" and {', '.join(os.path.basename(f.path) for f in e.files)}"
                                                                  if e.files else "") + ".")
        return True


def _write_script(path: str, text: str) -> None:
    """Write the script atomically (the save dialog has asked before replacing a file), executable."""
    atomic_write(path, text.encode("utf-8"), mode=0o755)
