"""The end of a tuning: the chosen settings, each knob's interval, how sure, the preference surface,
and keeping the settings as a preset (or taking more votes, or a new tuning)."""
from __future__ import annotations

import html

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from sampler import to_flags
from sampler.flags import quote

from .taste_plot import TastePlot


class TasteResultPage(QWidget):
    def __init__(self, state, taste, parent=None):
        super().__init__(parent)
        self.state, self.taste = state, taste
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.plot = TastePlot()
        self.name = QLineEdit()
        self.name.setPlaceholderText("preset name")
        self.keep = QPushButton("Keep as preset")
        self.keep.clicked.connect(self.save)
        self.more = QPushButton("More rounds")
        self.more.setToolTip("Go on voting until surer (the confidence halfway to 100 %); every vote so far is kept")
        self.more.clicked.connect(self.taste.reopen)
        self.again = QPushButton("New tuning")
        self.again.clicked.connect(self.taste.reset)
        self.message = QLabel()
        row = QHBoxLayout()
        for widget in (self.name, self.keep, self.more, self.again):
            row.addWidget(widget)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.plot, 1)
        lay.addLayout(row)
        lay.addWidget(self.message)

    def render(self) -> None:
        s = self.taste.session
        if s.plan is None:
            return
        plan, result = s.plan, s.result()
        rows = "".join(
            f"<tr><td>{html.escape(k.label)} <span style='color:#666'>{html.escape(k.flag)}</span></td>"
            f"<td align=right><b>{v:g}</b></td><td align=right>{lo:g} \u2013 {hi:g}</td>"
            f"<td align=right>{k.low:g} \u2013 {k.high:g}</td></tr>"
            for k, v, (lo, hi) in zip(plan.knobs, result.values, result.intervals))
        flags = quote(to_flags(plan.settings(result.values, plan.base.seed), include_seed=False))
        self.summary.setText(
            f"<h2>Your setting, from {result.votes} votes on top of {html.escape(plan.base_name)}</h2>"
            f"<table cellpadding=5 cellspacing=0 border=1><tr><th align=left>knob</th><th>chosen</th>"
            f"<th>{plan.confidence:.0%} interval</th><th>searched</th></tr>{rows}</table>"
            f"<p>{result.certainty:.0%} sure the best setting is within {plan.precision:.0%} of each range of "
            f"the chosen one.</p><p style='color:#666'>{html.escape(flags)}</p>")
        if not self.name.text():
            self.name.setText(f"{plan.base_name} (tuned)")
        self.keep.setEnabled(bool(s.rounds))
        self.plot.show_session(s)

    def save(self) -> bool:
        ok = self.taste.save_preset(self.name.text())
        self.message.setText(self.state.status if ok else self.state.problem)
        return ok
