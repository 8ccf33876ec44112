"""Blind rounds stream: in the A/B test and the taste tuner the two panes fill as the texts are written (as a lane
streams), blind (the round's own left/right order, no side named, no panel), and end as the finished texts."""
from __future__ import annotations

import pytest

from app.core.ab import ABPhase


def start_ab(window) -> None:
    window.actions.ab.trigger()
    dialog = window.actions.ab_dialog
    dialog.setup.side_a.setCurrentText("Creative writing")
    dialog.setup.side_b.setCurrentText("Off (llama.cpp defaults)")
    dialog.setup.rounds.setValue(2)
    dialog.setup.tokens.setValue(120)
    assert dialog.setup.begin()


def start_taste(window) -> None:
    window.actions.taste.trigger()
    dialog = window.actions.taste_dialog
    dialog.setup.tokens.setValue(120)
    dialog.setup.rounds.setValue(3)
    assert dialog.setup.begin()


@pytest.mark.parametrize("test", ["ab", "taste"])
def test_both_panes_stream_blind_while_the_round_is_written(window, qtbot, test):
    window.bridge.engine.model.step_delay_s = 0.01  # a round takes more than a second: it can be watched
    (start_ab if test == "ab" else start_taste)(window)
    dialog = getattr(window.actions, f"{test}_dialog")
    part = getattr(window.state, test)
    page = dialog.round
    seen: list[tuple[str, str]] = []
    picks_on: list[bool] = []

    def panes() -> tuple[str, str]:
        return page.texts[0].toPlainText(), page.texts[1].toPlainText()

    def streaming() -> bool:
        if part.session.phase is ABPhase.GENERATING:
            seen.append(panes())
            picks_on.append(any(b.isEnabled() for b in page.buttons.values()))
        return part.session.phase is not ABPhase.GENERATING

    qtbot.waitUntil(streaming, timeout=60_000)
    mid = [p for p in seen if p[0] and p[1]]
    assert mid, "the panes stayed blank until both texts were done"
    assert not any(picks_on), "a pick before both texts were done"
    shown = part.session.shown
    assert part.session.phase is ABPhase.CHOOSING and panes() == shown.shown_texts
    for left, right in mid:  # each streamed pane is the start of its finished text, on its own side
        assert shown.shown_texts[0].startswith(left) and shown.shown_texts[1].startswith(right)
    assert len({p for p in mid}) > 1, "the panes grew step by step"
    words = page.heading.text() + page.status.text()
    assert "Creative" not in words and "Off" not in words  # blind
    dialog.close()
    qtbot.waitUntil(lambda: not window.state.busy, timeout=30_000)
