"""The menu on a lane's text: take another token at this step, edit, switch branches."""
from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QMenu

ALTERNATIVES = 8


def token_menu(parent, state, playground, index: int, step: int) -> QMenu:
    """A menu for lane ``index`` (at ``step``, or anywhere if -1)."""
    menu = QMenu(parent)
    lane = state.lanes[index]
    rec = next((r for r in lane.records if r.step == step), None) if step >= 0 else None
    if rec is not None:
        sub = menu.addMenu(f"Continue from step {step} with …")
        sub.setEnabled(not state.busy)
        order = np.argsort(-rec.final_p, kind="stable")[:ALTERNATIVES]
        for i in order:
            token = int(rec.final_ids[i])
            mark = "\u25b6 " if token == rec.token else ""
            action = sub.addAction(f"{mark}{state.token_text(token)!r}  {rec.final_p[i]:.1%}")
            action.triggered.connect(lambda _c=False, t=token: playground.runs.branch_from(index, step, t))
        menu.addSeparator()
    menu.addAction("Edit the text …", lambda: parent.set_editing(True)).setEnabled(not state.busy)
    menu.addAction("Previous branch", lambda: playground.text.switch(index, -1))
    menu.addAction("Next branch", lambda: playground.text.switch(index, +1))
    return menu
