"""Slop found in your own text: phrases recurring across this session's samples far more than the model
predicts, and constructions ("not X but Y") that recur, as patterns (:func:`app.core.bans.finder.survey`; the same
span of text counts once, and the note says how many independent samples the evidence rests on), ranked, each
added to the edited lane's banned phrases with one click.  Nothing is banned until the writer clicks."""
from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from app.core.bans.finder import MIN_RATIO, MIN_SAMPLES, session_samples, survey
from sampler.ban_lists import merge_phrases
from sampler.phrases import BannedPhrase


class SlopDialog(QDialog):
    def __init__(self, state, playground, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Find slop")
        self.state, self.playground = state, playground
        found = survey(session_samples(state.lanes, state.ab.session.rounds + state.taste.session.rounds))
        self.survey, self.proposals = found, found.proposals
        self.note = QLabel(f"{found.note} (branches, fans, A/B and taste rounds; the same span of text counts once). "
                           f"Phrases of 2 to 6 words in at least {MIN_SAMPLES} of them, at least {MIN_RATIO:g}x what "
                           "the model's probability predicts; constructions (\u201cnot X but Y\u201d) that recur, as "
                           "patterns. Add bans the edited lane's list.")
        self.note.setWordWrap(True)
        self.table = QTableWidget(len(self.proposals), 5)
        self.table.setHorizontalHeaderLabels(["phrase", "samples", "predicted", "x", ""])
        self.buttons: list[QPushButton] = []
        for row, p in enumerate(self.proposals):
            cells = ((f"{p.name}: /{p.phrase}/ (as in \u201c{p.example}\u201d)", f"{p.samples} / {p.of}", "", "pattern")
                     if p.regex else (p.phrase, f"{p.samples} / {p.of}", f"{p.expected:.2g}", f"{p.ratio:.0f}"))
            for col, text in enumerate(cells):
                self.table.setItem(row, col, QTableWidgetItem(text))
            button = QPushButton("Add")
            button.setToolTip(f"Ban the construction \u201c{p.name}\u201d (a regular expression) in the edited lane"
                              if p.regex else f"Ban {p.phrase!r} in the edited lane")
            button.clicked.connect(lambda _=False, r=row: self.add(r))
            self.table.setCellWidget(row, 4, button)
            self.buttons.append(button)
        self.table.resizeColumnsToContents()
        self.table.setMinimumSize(640, 360)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.note)
        lay.addWidget(self.table if self.proposals else QLabel("No phrase recurs more than the model predicts."), 1)
        lay.addWidget(close)

    def add(self, row: int) -> bool:
        """Add proposal ``row`` to the edited lane's banned phrases (a hard ban)."""
        current = self.state.lane().settings.banned_phrases
        p = self.proposals[row]
        merged = merge_phrases(current, (BannedPhrase(p.phrase, regex=p.regex),))
        ok = self.playground.lanes.edit("banned_phrases", merged)
        if ok:
            self.buttons[row].setEnabled(False)
            self.buttons[row].setText("Added")
        return ok
