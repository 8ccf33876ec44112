"""Special tokens as chips and chat mode, in the window on the fake backend.

The fake's <start_of_image> is user-defined, as in Gemma 3: llama.cpp renders it
as its text, so the lane's text holds it; the pane draws it as a chip, or
nothing when "Show special tokens" is off.  <eos> is a control token: no text,
a chip at the end.  The fake has a simple chat template; a fake without one
refuses chat mode.
"""
from __future__ import annotations

import pytest

from app.core.chat import ChatSettings, chat_for_export
from app.engine.engine import Engine
from app.engine.face import token_kinds as tk
from app.engine.face.chat import ChatRequest
from app.engine.fake import EOS, FAKE_CHAT_TEMPLATE, SPECIAL, FakeModel, fake_loader
from app.ui.chat_box import CHAT, PLAIN
from app.ui.token_format import CHIP_PROPERTY


def _window(qtbot, loader, max_tokens=16):
    """A window on ``loader``'s fake model, loaded, as the ``window`` fixture makes one."""
    from app.ui.main_window import MainWindow

    w = MainWindow(load_default=False, engine=Engine(loader))
    qtbot.addWidget(w)
    w.show()
    w.playground.runs.load_model(None)
    qtbot.waitUntil(lambda: w.state.model is not None and bool(w.state.chat.token_kinds), timeout=10_000)
    w.state.set_run_settings(max_tokens=max_tokens, n_ctx=512)
    return w


@pytest.fixture
def special_window(qtbot, config):
    """<start_of_image> made likely (its logit raised), so runs hold several."""
    w = _window(qtbot, fake_loader(special_bias=3.0), max_tokens=40)
    yield w
    w.close()


def chips_in_document(pane) -> list[tuple[int, str]]:
    """(token id, text) of every chip fragment in the pane's document."""
    found = []
    block = pane.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            value = frag.charFormat().property(CHIP_PROPERTY)
            if value is not None:
                found.append((int(value), frag.text()))
            it += 1
        block = block.next()
    return found


def test_the_kinds_arrive_with_the_model(window):
    kinds = window.state.chat.token_kinds
    assert len(kinds) == window.state.model.n_vocab
    assert window.state.chat.token_kind(SPECIAL) == tk.USER_DEFINED and window.state.chat.token_kind(EOS) == tk.CONTROL
    assert window.state.chat.token_kind(4) == tk.NORMAL  # " cat"


def test_a_special_token_is_a_chip_and_hidden_when_the_option_is_off(qtbot, special_window, run_and_wait):
    w = special_window
    run_and_wait(w)
    lane = w.state.lane()
    special_steps = {r.step for r in lane.records if r.token == SPECIAL}
    assert len(special_steps) >= 2, "the raised logit should give several <start_of_image>"
    assert all(r.text == "<start_of_image>" for r in lane.records if r.token == SPECIAL)  # llama.cpp's text
    text = lane.text
    assert text.count("<start_of_image>") == len(special_steps)
    pane = w.lanes_view.columns[0].text
    assert set(pane.chips.drawn) == special_steps and not pane.chips.hidden
    chips = chips_in_document(pane)
    assert [token for token, _ in chips].count(SPECIAL) == len(special_steps)
    assert all("<start_of_image>" in chip_text for token, chip_text in chips if token == SPECIAL)
    rec = next(r for r in lane.records if r.token == SPECIAL)
    tip = pane.alternatives_html(rec)
    assert f"special token</b> {SPECIAL}" in tip and "user-defined" in tip
    ordinary = next(r for r in lane.records if r.token != SPECIAL)
    assert "special token" not in pane.alternatives_html(ordinary)

    w.chat_tokens.show_special.trigger()  # off
    assert w.state.chat.show_special is False and not w.chat_tokens.show_special.isChecked()
    assert pane.chips.hidden == special_steps and not pane.chips.drawn
    assert chips_in_document(pane) == [] and "<start_of_image>" not in pane.toPlainText()
    assert lane.text == text and w.state.lane().text == text  # the state's text is the same either way

    w.chat_tokens.show_special.trigger()  # on again
    assert set(pane.chips.drawn) == special_steps and w.state.lane().text == text


def test_an_end_of_generation_token_is_a_chip_not_text(qtbot, config, run_and_wait):
    w = _window(qtbot, fake_loader(eos_bias=8.0), max_tokens=64)
    try:
        run_and_wait(w)
        lane = w.state.lane()
        last = lane.records[-1]
        assert last.token == EOS and last.text == "" and "<eos>" not in lane.text
        pane = w.lanes_view.columns[0].text
        assert pane.chips.drawn[last.step] == (EOS, tk.CONTROL)
        assert "<eos>" in pane.toPlainText()
    finally:
        w.close()


def test_plain_completion_is_the_default(window, run_and_wait):
    assert window.state.chat.settings == ChatSettings() and not window.chat_tokens.chat_mode.isChecked()
    assert window.prompt_area.currentIndex() == PLAIN and chat_for_export(window.state) is None
    run_and_wait(window)
    assert window.state.lane().prompt == window.state.prompt


def test_chat_mode_swaps_the_prompt_box_and_the_lane_shows_the_reply(qtbot, window, run_and_wait):
    prompt = window.state.prompt
    window.chat_tokens.chat_mode.trigger()
    assert window.state.chat.settings.enabled and window.prompt_area.currentIndex() == CHAT
    box = window.prompt_area.chat
    box.system.setPlainText("Be quiet.")
    box.user.setPlainText("The cat sat on the mat.")
    assert window.state.chat.settings == ChatSettings(True, "Be quiet.", "The cat sat on the mat.")
    assert "the model's own template" in box.template.text()
    expected = FakeModel().format_chat(ChatRequest("Be quiet.", "The cat sat on the mat."))
    qtbot.waitUntil(window.state.chat.chat_prompt_is_current, timeout=10_000)  # formatted by the engine, for the export
    assert window.state.chat.chat_prompt == expected
    exported = chat_for_export(window.state)
    assert exported.messages == (("system", "Be quiet."), ("user", "The cat sat on the mat."))
    assert exported.has_template and exported.builtin_template == "" and exported.formatted == expected

    run_and_wait(window)
    lane = window.state.lane()
    assert lane.prompt == expected and window.state.prompt == prompt  # the prompt box is kept for plain mode
    assert len(lane.records) == 16 and not lane.text.startswith(expected)  # the text is the reply alone
    pane = window.lanes_view.columns[0].text
    assert pane.toPlainText().startswith(expected)  # the formatted prompt, dimmed, then the reply

    window.chat_tokens.chat_mode.trigger()  # off: the prompt box again, the messages kept
    assert window.prompt_area.currentIndex() == PLAIN and window.prompt.toPlainText() == prompt
    assert window.state.chat.settings == ChatSettings(False, "Be quiet.", "The cat sat on the mat.")


def test_a_model_without_a_chat_template_refuses_chat_mode(qtbot, config):
    w = _window(qtbot, fake_loader(chat_template=None))
    try:
        before = w.state.chat.settings
        w.chat_tokens.chat_mode.trigger()
        assert w.state.chat.settings == before and not w.state.chat.settings.enabled
        assert not w.chat_tokens.chat_mode.isChecked() and w.prompt_area.currentIndex() == PLAIN
        assert "fake (bundled-fake.gguf) has no chat template" in w.state.problem
    finally:
        w.close()


def test_loading_a_model_without_a_template_turns_chat_mode_off(qtbot, config):
    def loader(request, progress):
        plain = request.path is not None and "plain" in request.path
        return FakeModel(request.path or "chatty.gguf", chat_template=None if plain else FAKE_CHAT_TEMPLATE)

    w = _window(qtbot, loader)
    try:
        w.chat_tokens.chat_mode.trigger()
        assert w.state.chat.settings.enabled
        model = w.state.model
        w.playground.runs.load_model("/models/plain.gguf")
        qtbot.waitUntil(lambda: w.state.model is not model and not w.state.loading, timeout=10_000)
        assert not w.state.chat.settings.enabled and not w.chat_tokens.chat_mode.isChecked()
        assert "plain.gguf" in w.state.problem and w.prompt_area.currentIndex() == PLAIN
    finally:
        w.close()


def test_special_tokens_in_the_prompt_are_chips_too(window):
    window.prompt.setPlainText("the cat<start_of_image> sat")  # parsed as the one token, as llama.cpp does
    pane = window.lanes_view.columns[0].text
    assert pane.chips.prompt_chips == ["<start_of_image>"]
    assert [token for token, _ in chips_in_document(pane)] == [SPECIAL]
    window.chat_tokens.show_special.trigger()
    assert pane.chips.prompt_chips == [] and pane.toPlainText() == "the cat sat"
