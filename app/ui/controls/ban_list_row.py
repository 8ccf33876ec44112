"""Under the banned phrases: import a list (the antislop sampler's JSON, a text list, regular expressions),
save the lane's list, and find slop in this session's own samples (:mod:`app.core.bans.finder`)."""
from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QMenu, QToolButton, QWidget

from app.core.bans.files import import_list, save_list

FILTER = "Ban lists (*.json *.txt);;All files (*)"


class BanListRow(QWidget):
    def __init__(self, state, playground, parent=None):
        super().__init__(parent)
        self.state, self.playground = state, playground
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        imp = QToolButton()
        imp.setText("Import list")
        imp.setToolTip("Add the phrases of a list file to the lane's banned phrases: the antislop sampler's JSON "
                       "(phrase and multiplier), the playground's own, or a text file (one a line)")
        imp.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(imp)
        menu.addAction("Phrases…", lambda: self.import_from(self._ask_open(), regex=False))
        menu.addAction("Regular expressions…", lambda: self.import_from(self._ask_open(), regex=True))
        imp.setMenu(menu)
        save = QToolButton()
        save.setText("Save list…")
        save.setToolTip("Save the lane's banned phrases as a list file (what llama.cpp cannot express, for another tool)")
        save.clicked.connect(lambda: self.save_to(self._ask_save()))
        slop = QToolButton()
        slop.setText("Find slop…")
        slop.setToolTip("Phrases that recur across this session's samples far more than the model predicts")
        slop.clicked.connect(self.find_slop)
        for b in (imp, save, slop):
            lay.addWidget(b)
        lay.addStretch(1)

    def _ask_open(self) -> str:
        return QFileDialog.getOpenFileName(self, "Import a ban list", "", FILTER)[0]

    def _ask_save(self) -> str:
        return QFileDialog.getSaveFileName(self, "Save the ban list", "bans.json", FILTER)[0]

    def import_from(self, path: str, regex: bool = False) -> bool:
        if not path:
            return False
        try:
            merged = import_list(path, self.state.lane().settings.banned_phrases, regex)
        except ValueError as exc:
            self.state.report(str(exc))
            return False
        return self.playground.lanes.edit("banned_phrases", merged)

    def save_to(self, path: str) -> bool:
        if not path:
            return False
        try:
            save_list(path, self.state.lane().settings.banned_phrases)
        except ValueError as exc:
            self.state.report(str(exc))
            return False
        return True

    def find_slop(self) -> None:
        from ..dialogs.slop_dialog import SlopDialog

        SlopDialog(self.state, self.playground, self).exec()
