"""The lookahead at a fork: the alternatives' next tokens side by side, picked from the keyboard.

Keys 1-9 pick an alternative (it becomes a branch), Tab takes the top one, Esc
closes the lookahead and, in manual mode, leaves the mode.  It draws
``state.radar.lookahead`` and keeps nothing of its own; it shows itself when there
is something to show, stays while manual mode is on (so the keyboard stays
with it between forks), and hides otherwise.
"""
from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout

from app.core.changes import Change, Changed
from app.core.forks import LOOKAHEAD_COUNTS, LOOKAHEAD_LENGTHS

from .bind import show_value
from .token_format import TokenChips, records_html, token_html

KEYS = {getattr(Qt.Key, f"Key_{n}"): n - 1 for n in range(1, 10)}


class LookaheadPanel(QDialog):
    def __init__(self, state, lookahead, token_text, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Lookahead")
        self.setModal(False)
        self.resize(1100, 260)
        self.state, self.lookahead, self.token_text = state, lookahead, token_text
        self.chips = TokenChips(state)  # special tokens drawn as the lanes draw them
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.row = QHBoxLayout()
        self.cards: list[QPushButton] = []
        self.count, self.length = QSpinBox(), QSpinBox()
        for box, (lo, hi), field, tip in ((self.count, LOOKAHEAD_COUNTS, "count", "alternatives"),
                                          (self.length, LOOKAHEAD_LENGTHS, "length", "tokens each")):
            box.setRange(lo, hi)
            box.setSuffix(f" {tip}")
            box.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
            box.valueChanged.connect(lambda value, f=field: self.state.radar.set_lookahead_size(**{f: value}))
        self.render_size()
        self.again = QPushButton("Look again")
        self.again.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.again.clicked.connect(self.look_again)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        for widget in (self.count, self.length, self.again):
            top.addWidget(widget)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addLayout(self.row, 1)
        self.help = QLabel("1\u20139 pick \u00b7 Tab takes the top one \u00b7 Esc closes (and leaves manual mode)")
        self.help.setStyleSheet("color: #666")
        lay.addWidget(self.help)
        self._unsubscribe = state.subscribe(self._on_change)

    def _on_change(self, change: Change) -> None:
        if change.what in (Changed.LOOKAHEAD, Changed.MANUAL):
            self.render()
        elif change.what is Changed.LOOKAHEAD_SIZE:
            self.render_size()

    def render_size(self) -> None:
        """The spin boxes show the state's lookahead size (an equal value is not set again: no echo)."""
        size = self.state.radar.lookahead_size
        show_value(self.count, size.count)
        show_value(self.length, size.length)

    def render(self) -> None:
        view = self.state.radar.lookahead
        if view is None and not self.state.radar.manual:
            self.hide()
            return
        for card in self.cards:
            card.deleteLater()
        self.cards = []
        mode = " \u00b7 manual mode: generation waits for your pick" if self.state.radar.manual else ""
        if view is None:  # manual mode between two forks: the panel stays, and keeps the keyboard
            self.heading.setText("Manual mode: writing on to the next fork \u2026 (Esc leaves)")
        elif not view.previews:
            self.heading.setText(view.message or f"Looking ahead from step {view.step} \u2026{mode}")
        else:
            self.heading.setText(f"<b>Step {view.step} of lane {view.lane + 1}: where could it go?</b>{mode}")
        for i, preview in enumerate(view.previews if view is not None else ()):
            card = QPushButton()
            card.setText("")
            text = records_html(self.chips, preview.records) if preview.records else html.escape(preview.text)
            label = QLabel(f"<b>{i + 1}</b> &nbsp;<u>{token_html(self.chips, preview.token)}</u> "
                           f"<span style='color:#666'>{preview.p:.0%}</span><br>{text}")
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            QVBoxLayout(card).addWidget(label)
            card.setMinimumHeight(120)
            card.setToolTip(f"Take this direction (key {i + 1})")
            card.clicked.connect(lambda _c=False, n=i: self.lookahead.pick(n))
            card.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay with the panel
            self.row.addWidget(card, 1)
            self.cards.append(card)
        if not self.isVisible():
            self.show()
            self.raise_()
        self.activateWindow()  # the keys 1-9, Tab and Esc come here, wherever the writer was
        self.setFocus()

    def look_again(self) -> None:
        view = self.state.radar.lookahead
        if view is not None:
            self.lookahead.preview(view.lane, view.step)

    def event(self, event) -> bool:
        # Tab and the digits before the dialog's focus chain sees them (Tab would move the focus)
        if event.type() == QEvent.Type.KeyPress and self.handle_key(event.key()):
            return True
        return super().event(event)

    def handle_key(self, key) -> bool:
        if key == Qt.Key.Key_Tab:
            return self.lookahead.pick(0) or True
        if key in KEYS:
            return self.lookahead.pick(KEYS[key]) or True
        if key == Qt.Key.Key_Escape:
            self.close_lookahead()
            return True
        return False

    def close_lookahead(self) -> None:
        if self.state.radar.manual:
            self.lookahead.set_manual(False)
        else:
            self.lookahead.dismiss()

    def reject(self) -> None:  # the window's close button and Esc
        self.close_lookahead()
        super().reject()
