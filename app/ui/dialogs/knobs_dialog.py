"""Knobs that did nothing: each stage's share of the lane's steps where it changed the kept set and where it
changed the chosen token (:mod:`sampler.knobs`), and a quiet mark by the controls of the idle ones."""
from __future__ import annotations

import html

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout

from sampler.emulated import fields_of_stage
from sampler.flagtable import ROW_BY_FIELD
from sampler.knobs import NEEDS_HISTORY, QUIET

IDLE_MARK = " ∘"
IDLE_STYLE = "color: #888;"


class KnobsDialog(QDialog):
    def __init__(self, effects, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Knobs that did nothing")
        rows = "".join(
            f"<tr><td style='padding:1px 8px'>{'∘ ' if e.idle else ''}<b>{html.escape(e.stage)}</b></td>"
            f"<td align='right' style='padding:1px 8px'>{e.kept_share:.1%}</td>"
            f"<td align='right' style='padding:1px 8px'>{e.token_share:.1%}</td>"
            f"<td style='padding:1px 8px'>{'measured without the history' if e.stage in NEEDS_HISTORY else ''}</td></tr>"
            for e in effects)
        n = effects[0].n_steps if effects else 0
        self.view = QTextBrowser()
        self.view.setHtml(
            f"<p>{n} steps of the edited lane, each run again without one stage (same draw).  Below {QUIET:.0%} on "
            "both (∘): the knob did nothing; it is marked by its control and listed in the next saved preset's "
            "report.</p><table cellspacing='0'><tr><th align='left' style='padding:1px 8px'>stage</th>"
            "<th style='padding:1px 8px'>kept set changed</th><th style='padding:1px 8px'>token changed</th><th></th>"
            f"</tr>{rows}</table>" if effects else
            "<p>No steps yet (or mirostat, which replaces the chain): run the lane first.</p>")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("The share of steps where each stage made a difference:"))
        layout.addWidget(self.view)
        layout.addWidget(buttons)
        self.resize(640, 420)


def mark_idle_controls(window, settings, idle: set[str]) -> None:
    """A quiet mark (∘, grey) beside the controls of the idle stages' knobs; the others lose theirs."""
    controls = getattr(getattr(window, "controls", None), "controls", {})
    for field, control in controls.items():
        label = getattr(control, "label", None)
        row = ROW_BY_FIELD.get(field)
        if label is None or row is None:
            continue
        quiet = row.stage in idle and field in fields_of_stage(row.stage)
        label.setText(row.label + (IDLE_MARK if quiet else ""))
        label.setStyleSheet(IDLE_STYLE if quiet else "")
        label.setToolTip("Did nothing in the edited lane's steps (Presets ▸ Knobs that did nothing)" if quiet else "")
