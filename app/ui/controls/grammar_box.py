"""The Chain page's Grammar box: a GBNF grammar or a JSON schema for the edited lane, typed, pasted or read from
a file, applied with Apply once llama.cpp has parsed it (its parse error is the window's one problem line,
and nothing is applied: :class:`app.actions.grammar.GrammarActions`).  Empty and applied: no grammar."""
from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
)

from sampler.flagrow import MAX_TEXT_CHARS

#: The box's kinds: (label, settings field).
KINDS = (("GBNF grammar", "grammar"), ("JSON schema", "json_schema"))


class GrammarBox(QGroupBox):
    def __init__(self, state, playground, parent=None):
        super().__init__("Grammar", parent)
        self.state, self.playground = state, playground
        self.kind = QComboBox()
        for label, field in KINDS:
            self.kind.addItem(label, field)
        self.text = QPlainTextEdit()
        self.text.setPlaceholderText('root ::= "yes" | "no"   (empty: no grammar)')
        self.text.setMaximumHeight(90)
        self.apply_button = QPushButton("Apply")
        self.apply_button.clicked.connect(self.apply)
        self.file_button = QPushButton("File…")
        self.file_button.clicked.connect(self.read_file)
        self._shown: tuple[str, str] | None = None  # the lane's grammar last shown: (field, text)
        self.status = QLabel()
        self.status.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.kind, 1)
        top.addWidget(self.file_button)
        top.addWidget(self.apply_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(self.text)
        lay.addWidget(self.status)
        self.setToolTip("Constrain the text with llama.cpp's grammar sampler (--grammar / --json-schema): the chain "
                        "picks first; a pick the grammar refuses is picked again among what it allows.")

    @property
    def field(self) -> str:
        return self.kind.currentData()

    def apply(self) -> None:
        self.playground.grammar.apply(self.field, self.text.toPlainText())

    def read_file(self, path: str | None = None) -> None:
        """Read a grammar or schema file into the box (a ``.json`` file picks the schema kind); Apply applies it."""
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "Grammar or JSON schema", "",
                                                  "Grammars and schemas (*.gbnf *.json);;All files (*)")
        if not path:
            return
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read(MAX_TEXT_CHARS + 1)
        except (OSError, UnicodeDecodeError) as exc:
            self.state.report(f"grammar file {path}: {getattr(exc, 'strerror', None) or exc}")
            return
        self.kind.setCurrentIndex(1 if path.lower().endswith(".json") else 0)
        self.text.setPlainText(text)

    def show_value(self, settings) -> None:
        """Show the lane's grammar (its kind and text) when it changed (another lane, an applied grammar, a
        preset): text typed and not applied yet stays otherwise."""
        field = "json_schema" if settings.json_schema else "grammar"
        text = settings.get(field)
        if (field, text) == self._shown:
            return
        self._shown = (field, text)
        self.status.setText(f"In use: {'a JSON schema' if field == 'json_schema' else 'a GBNF grammar'} "
                            f"({len(text)} characters)" if text else "No grammar in use.")
        self.kind.setCurrentIndex(1 if field == "json_schema" else 0)
        self.text.setPlainText(text)
