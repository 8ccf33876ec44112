"""Chat mode and special tokens in the window on the bundled Gemma 3 270M."""
from __future__ import annotations

from app.engine.face import token_kinds as tk
from app.ui.chat_box import CHAT


def test_chat_mode_on_gemma_draws_the_turn_markers_as_chips(qtbot, gemma_window, run_and_wait):
    w = gemma_window
    texts = w.state.token_texts
    assert w.state.chat.token_kind(texts.index("<start_of_image>")) == tk.USER_DEFINED
    assert w.state.chat.token_kind(texts.index("<end_of_turn>")) == tk.CONTROL
    w.chat_tokens.chat_mode.trigger()
    assert w.state.chat.settings.enabled and w.state.problem == "" and w.prompt_area.currentIndex() == CHAT
    assert "\u201cgemma\u201d template" in w.prompt_area.chat.template.text()  # the file carries no template
    assert "built-in" in w.prompt_area.chat.template.toolTip()
    w.prompt_area.chat.user.setPlainText("Write one short sentence about a cat.")
    run_and_wait(w)
    lane = w.state.lane()
    assert lane.prompt.startswith("<start_of_turn>user\nWrite one short sentence about a cat.<end_of_turn>")
    assert "<end_of_turn>" not in lane.text and "<start_of_turn>" not in lane.text
    pane = w.lanes_view.columns[0].text
    assert pane.chips.prompt_chips == ["<start_of_turn>", "<end_of_turn>", "<start_of_turn>"]
    w.chat_tokens.show_special.trigger()  # hidden: the prompt reads as plain text
    assert pane.chips.prompt_chips == [] and "<start_of_turn>" not in pane.toPlainText()
    assert pane.toPlainText().startswith("user\nWrite one short sentence about a cat.\nmodel\n")
