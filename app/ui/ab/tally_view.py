"""The result of a test: wins per side with the 95% Wilson interval, ties, the verdict, every round."""
from __future__ import annotations

import html

from PySide6.QtWidgets import QHBoxLayout, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from sampler import to_flags
from sampler.flags import quote

NOTE = (
    "Share: wins over the decisive rounds. Ties (both fine, both bad) are counted apart and left out "
    "of the share. Interval: the 95% Wilson score interval of the share. A side is ahead when its "
    "whole interval lies above 50%."
)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


class ABTallyView(QWidget):
    def __init__(self, state, ab, save_csv, parent=None):
        """``save_csv()`` asks where to write the CSV and writes it."""
        super().__init__(parent)
        self.state, self.ab = state, ab
        self.view = QTextBrowser()
        self.view.setOpenLinks(False)
        self.view.anchorClicked.connect(self._link)
        self.export = QPushButton("Export CSV \u2026")
        self.export.clicked.connect(lambda _checked=False: save_csv())  # clicked(bool) would pass False as a path
        self.again = QPushButton("New test")
        self.again.clicked.connect(self.ab.reset)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.export)
        row.addWidget(self.again)
        lay = QVBoxLayout(self)
        lay.addWidget(self.view, 1)
        lay.addLayout(row)

    def _link(self, url) -> None:
        text = url.toString()
        if text.startswith("round:"):
            self.show_round(int(text[6:]))
        elif text == "tally":
            self.render()

    def show_round(self, number: int) -> None:
        """A decided round read again: its prompt and both texts, side by side as they were shown, now
        named (which side each was, and the pick)."""
        r = next((r for r in self.ab.session.rounds if r.number == number), None)
        if r is None:
            return
        cells = []
        for place, side in zip(("Left", "Right"), r.order):
            text = html.escape(r.text(side))
            cells.append(f"<td width='50%' valign=top><b>{place}: {side} \u00b7 {html.escape(r.side(side).name)}</b>"
                         f"<p style='white-space: pre-wrap'>{text}</p></td>")
        self.view.setHtml(
            f"<p><a href='tally'>\u2190 back to the tally</a></p><h3>Round {r.number}: "
            f"picked {html.escape(r.pick.value if r.pick else '')}, credited {html.escape(r.outcome)}</h3>"
            f"<p style='color:#666'>{html.escape(r.prompt)}</p>"
            f"<table cellpadding=6 cellspacing=0 width='100%'><tr>{''.join(cells)}</tr></table>")

    def render(self) -> None:
        s = self.ab.session
        t = s.tally()
        plan = s.plan
        flags = {} if plan is None or plan.b is None else {
            k: quote(to_flags(side.settings, include_seed=False)) or "llama.cpp's defaults"
            for k, side in (("A", plan.a), ("B", plan.b))}
        rows = []
        for side in ("A", "B"):
            share = t.share(side)
            lo, hi = t.interval(side)
            lead = " \u2605" if t.leader == side else ""
            shown = "\u2013" if share is None else _pct(share)
            rows.append(
                f"<tr><td><b>{side}</b></td><td>{html.escape(t.name(side))}{lead}"
                f"<br><span style='color:#666'>{html.escape(flags.get(side, ''))}</span></td>"
                f"<td align=right>{t.wins(side)}</td>"
                f"<td align=right>{shown}</td>"
                f"<td align=right>{_pct(lo)} \u2013 {_pct(hi)}</td></tr>")
        head = "<tr><th></th><th align=left>settings</th><th>wins</th><th>share</th><th>95% interval</th></tr>"
        parts = [
            f"<h2>{html.escape(t.verdict())}</h2>",
            f"<p>{t.rounds} of {plan.rounds if plan else t.rounds} rounds decided: {t.decisive} decisive, "
            f"{t.both_fine} both fine, {t.both_bad} both bad.</p>",
            f"<table cellpadding=6 cellspacing=0 border=1>{head}{''.join(rows)}</table>",
            f"<p style='color:#666'>{NOTE}</p>",
            self._rounds(s.rounds),
        ]
        self.view.setHtml("".join(parts))
        self.export.setEnabled(bool(s.rounds))

    @staticmethod
    def _rounds(rounds) -> str:
        if not rounds:
            return ""
        items = "".join(
            f"<tr><td>{r.number}</td><td>{html.escape(r.prompt_id)}</td><td>{r.seed}</td>"
            f"<td>{r.left} | {r.right}</td><td>{html.escape(r.pick.value)}</td>"
            f"<td><b>{html.escape(r.outcome)}</b></td><td><a href='round:{r.number}'>read</a></td></tr>"
            for r in rounds)
        head = ("<tr><th>round</th><th>prompt</th><th>seed</th><th>left | right</th><th>pick</th><th>credited</th>"
                "<th>texts</th></tr>")
        return f"<h3>Rounds</h3><table cellpadding=4 cellspacing=0>{head}{items}</table>"
