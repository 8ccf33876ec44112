"""Chat mode and "Show special tokens" as checkable QActions, checked from the state.

For now they sit in the toolbar (``fill_toolbar``); ``view_actions`` is what a
View menu takes.  A change of the option, of the model's token kinds or of the
chat prompt redraws the lanes' texts.
"""
from __future__ import annotations

from PySide6.QtGui import QAction

from app.core.changes import Change, Changed


class ChatTokensController:
    def __init__(self, window, state, playground):
        self.window, self.state, self.playground = window, state, playground
        chat = playground.chat
        self.chat_mode = self._toggle(
            "Chat mode", "Format a system and a user message with the model's chat template and show "
            "the reply (off: plain completion of the prompt)", chat.set_chat_mode)
        self.show_special = self._toggle(
            "Special tokens", "Show special tokens: draw control, unused and marker tokens as small chips "
            "(off: hide them; the lanes' text is the same either way)", chat.set_show_special)
        self._unsubscribe = state.subscribe(self._on_change)
        self.update()

    def _toggle(self, text: str, tip: str, slot) -> QAction:
        action = QAction(text, self.window)
        action.setCheckable(True)
        action.setToolTip(tip)
        action.toggled.connect(lambda on: (slot(on), self.update()))  # a refusal puts the check back
        return action

    def view_actions(self) -> list[QAction]:
        return [self.chat_mode, self.show_special]

    def fill_toolbar(self, bar) -> None:
        bar.addSeparator()
        for action in self.view_actions():
            bar.addAction(action)

    def _on_change(self, change: Change) -> None:
        what = change.what
        if what in (Changed.CHAT, Changed.SHOW_SPECIAL):
            self.update()
        if what in (Changed.SHOW_SPECIAL, Changed.TOKEN_KINDS, Changed.CHAT, Changed.CHAT_PROMPT):
            self.window.lanes_view.show_texts()

    def update(self) -> None:
        for action, on in ((self.chat_mode, self.state.chat.settings.enabled), (self.show_special, self.state.chat.show_special)):
            if action.isChecked() != on:
                action.blockSignals(True)
                action.setChecked(on)
                action.blockSignals(False)

    def close_bindings(self) -> None:
        self._unsubscribe()
