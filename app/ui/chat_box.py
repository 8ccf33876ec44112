"""The prompt area: the plain prompt box, or in chat mode a system and a user message.

Both are bound to the state (``state.prompt``; ``state.chat.settings``); the area shows
the page the state's chat mode asks for and keeps nothing of its own.
"""
from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QStackedWidget, QVBoxLayout, QWidget

from app.core.changes import Change, Changed

from .focus_keys import tab_moves_focus

PLAIN, CHAT = 0, 1
NOTE_STYLE = "font-size: 11px;"  # the palette's text colour: readable in either theme
FIELD_MIN_PX = 36  # a field one line high at the least: the window must fit 1280 x 720 with 4 lanes


def _titled(title: str, field: QWidget, note: QLabel | None = None) -> QVBoxLayout:
    head = QHBoxLayout()
    label = QLabel(title)
    label.setStyleSheet(NOTE_STYLE + " font-weight: bold;")
    head.addWidget(label)
    head.addStretch(1)
    head.addSpacing(12)
    if note is not None:
        head.addWidget(note)
    column = QVBoxLayout()
    column.setSpacing(1)
    column.addLayout(head)
    column.addWidget(field, 1)
    return column


class ChatPromptBox(QWidget):
    """Two fields, system and user, and a line naming the template they are formatted with."""

    def __init__(self, state, playground, parent=None):
        super().__init__(parent)
        self.state = state
        chat = playground.chat
        self.system = QPlainTextEdit(state.chat.settings.system)
        self.system.setPlaceholderText("System message (optional)")
        self.system.setToolTip("The system message (Gemma's template merges it into the user's turn)")
        self.system.textChanged.connect(lambda: chat.set_messages(system=self.system.toPlainText()))
        self.user = QPlainTextEdit(state.chat.settings.user)
        self.user.setPlaceholderText("User message")
        self.user.setToolTip("The user's message; the lanes show the model's reply")
        self.user.textChanged.connect(lambda: chat.set_messages(user=self.user.toPlainText()))
        for field in (self.system, self.user):
            field.setMinimumHeight(FIELD_MIN_PX)
            tab_moves_focus(field)  # Tab and Ctrl+Tab move on: the keyboard can leave the field
        self.template = QLabel("")
        self.template.setStyleSheet(NOTE_STYLE)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(_titled("System message", self.system), 2)
        lay.addLayout(_titled("User message", self.user, self.template), 3)
        self.show_state()

    def show_state(self) -> None:
        chat = self.state.chat.settings
        for field, text in ((self.system, chat.system), (self.user, chat.user)):
            if field.toPlainText() != text:
                field.blockSignals(True)
                field.setPlainText(text)
                field.blockSignals(False)
        template = self.state.chat.chat_template
        name = self.state.model.name if self.state.model is not None else "no model"
        if template is None:
            short = "no chat template"
        else:
            short = "the model's own template" if template.from_file else f"llama.cpp's \u201c{template.name}\u201d template"
        self.template.setText(short)
        self.template.setToolTip(f"{name}: {template.describe() if template else 'no chat template'}")


class PromptArea(QStackedWidget):
    """The plain prompt box (``prompt``, made by the window) or the chat box, as the state says."""

    def __init__(self, prompt: QPlainTextEdit, state, playground, parent=None):
        super().__init__(parent)
        self.state = state
        self.prompt = prompt
        self.chat = ChatPromptBox(state, playground)
        self.insertWidget(PLAIN, prompt)
        self.insertWidget(CHAT, self.chat)
        self.setMaximumHeight(110)
        self._unsubscribe = state.subscribe(self._on_change)
        self._show()

    def minimumSizeHint(self):
        """The page shown decides (a stacked widget would take the larger of the two)."""
        page = self.currentWidget()
        hint = page.minimumSizeHint()
        if page.minimumHeight():  # an explicit minimum wins over the page's own hint, as in a layout
            hint.setHeight(page.minimumHeight())
        return hint

    def _on_change(self, change: Change) -> None:
        if change.what in (Changed.CHAT, Changed.TOKEN_KINDS, Changed.MODEL):
            self._show()

    def _show(self) -> None:
        self.setCurrentIndex(CHAT if self.state.chat.settings.enabled else PLAIN)
        self.chat.show_state()
        self.updateGeometry()

    def close_bindings(self) -> None:
        self._unsubscribe()
