"""Edit ▸ Compare two lanes … (Ctrl+Shift+D): two lanes' texts side by side, the words that differ marked.

The texts are split into words, spaces and punctuation; :mod:`difflib` finds
the longest runs they share; what is left are the differences, tinted in both
panes (the same colour on both sides for a word replaced, one side's only for
words the other lacks).  Both panes scroll together.  The dialog reads the
lanes when it opens and whenever their text or the lanes chosen change.
"""
from __future__ import annotations

import difflib
import html
import re

from PySide6.QtWidgets import QComboBox, QDialog, QHBoxLayout, QLabel, QTextBrowser, QVBoxLayout

from app.core.changes import Change, Changed

from .. import theme as themes

_WORDS = re.compile(r"\w+|\s+|[^\w\s]", re.UNICODE)


def words(text: str) -> list[str]:
    """``text`` as words, runs of white space and single punctuation marks (they join back into it)."""
    return _WORDS.findall(text)


def word_diff(a: str, b: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]], float]:
    """Each text as (piece, differs) runs, and the share of words the two have in common (0 to 1)."""
    wa, wb = words(a), words(b)
    matcher = difflib.SequenceMatcher(None, wa, wb, autojunk=False)
    left, right = [], []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        same = op == "equal"
        if i2 > i1:
            left.append(("".join(wa[i1:i2]), not same))
        if j2 > j1:
            right.append(("".join(wb[j1:j2]), not same))
    return left, right, matcher.ratio()


def runs_html(runs, background: str, foreground: str) -> str:
    out = []
    for text, differs in runs:
        body = html.escape(text)
        marked = f"<span style='background:{background}; color:{foreground}'>{body}</span>"
        out.append(marked if differs and text.strip() else body)
    return f"<div style='white-space: pre-wrap'>{''.join(out)}</div>"


class LaneDiffDialog(QDialog):
    def __init__(self, state, label, parent=None):
        """``label(index)`` names a lane's preset (the playground's ``lanes.label``)."""
        super().__init__(parent)
        self.setWindowTitle("Compare two lanes")
        self.resize(1100, 640)
        self.state, self.label = state, label
        self.pick = (QComboBox(), QComboBox())
        self.panes = (QTextBrowser(), QTextBrowser())
        self.summary = QLabel()
        heads, texts = QHBoxLayout(), QHBoxLayout()
        for box, pane in zip(self.pick, self.panes):
            box.currentIndexChanged.connect(lambda _i: self.render())
            heads.addWidget(box, 1)
            texts.addWidget(pane, 1)
        a, b = (pane.verticalScrollBar() for pane in self.panes)
        a.valueChanged.connect(lambda v: b.setValue(int(v * b.maximum() / max(a.maximum(), 1))))
        lay = QVBoxLayout(self)
        lay.addLayout(heads)
        lay.addLayout(texts, 1)
        lay.addWidget(self.summary)
        self.fill_lanes(0, 1 if len(state.lanes) > 1 else 0)
        self._unsubscribe = state.subscribe(self._on_change)
        self.finished.connect(lambda _r: self._unsubscribe())

    def fill_lanes(self, first: int, second: int) -> None:
        for box, chosen in zip(self.pick, (first, second)):
            box.blockSignals(True)
            box.clear()
            for i in range(len(self.state.lanes)):
                box.addItem(f"Lane {i + 1} \u00b7 {self.label(i)}", i)
            box.setCurrentIndex(min(chosen, box.count() - 1))
            box.blockSignals(False)
        self.render()

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.LANES:
            self.fill_lanes(self.pick[0].currentIndex(), self.pick[1].currentIndex())
        elif change.what in (Changed.RECORDS, Changed.BRANCH, Changed.RUN_ENDED):
            self.render()

    def render(self) -> None:
        lanes = [self.state.lanes[box.currentData()] for box in self.pick if box.currentData() is not None]
        if len(lanes) < 2:
            return
        left, right, ratio = word_diff(lanes[0].text, lanes[1].text)
        mark = themes.current().blend(themes.SKY_BLUE, 0.5)
        colours = (mark.name(), themes.text_on(mark).name())
        for pane, runs in zip(self.panes, (left, right)):
            bar = pane.verticalScrollBar().value()
            pane.setHtml(runs_html(runs, *colours))
            pane.verticalScrollBar().setValue(bar)
        differing = sum(1 for text, d in left if d and text.strip()) + sum(1 for text, d in right if d and text.strip())
        self.summary.setText(f"{ratio:.0%} of the words in common; {differing} stretches differ (tinted)."
                             if lanes[0].text or lanes[1].text else "Both lanes are empty: generate first.")
