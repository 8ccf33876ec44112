"""Chat mode and special tokens in the Qt-free state and actions (fake engine)."""
from __future__ import annotations

import pytest

from app.core.chat import ChatSettings, chat_for_export
from app.core.presets import PresetStore
from app.core.state import PlaygroundState
from app.engine.engine import Engine
from app.engine.face.chat import ChatRequest, ChatTemplate
from app.engine.face.commands import Fan
from app.engine.face.model_info import ModelInfo
from app.engine.fake import FakeModel, fake_loader
from app.playground import Playground
from sampler import SamplerSettings
from session_helpers import pump

INFO = ModelInfo("/m/tiny.gguf", "Tiny", "tiny", 1, 1, 3, 16, "", 0)


def changes_of(state) -> list:
    seen = []
    state.subscribe(lambda c: seen.append(c.what))
    return seen


def test_chat_mode_is_refused_without_a_model_or_a_template():
    state = PlaygroundState("p")
    with pytest.raises(ValueError, match="Load a model first"):
        state.chat.set_chat(enabled=True)
    state.set_model(INFO, ("a", "b", "c"))
    state.chat.set_vocab_info(b"\0\0\0", None)
    seen = changes_of(state)
    with pytest.raises(ValueError, match=r"Tiny \(tiny.gguf\) has no chat template"):
        state.chat.set_chat(enabled=True, user="hello")
    assert state.chat.settings == ChatSettings() and seen == []  # nothing changed, nothing announced


def test_chat_settings_are_checked():
    with pytest.raises(ValueError, match="user message"):
        ChatSettings(user=3)
    with pytest.raises(ValueError, match="chat mode"):
        ChatSettings(enabled="yes")
    state = PlaygroundState("p")
    with pytest.raises(ValueError, match="show special"):
        state.chat.set_show_special("no")
    assert state.chat.show_special is True


def test_the_export_gets_the_messages_and_the_template_kind():
    state = PlaygroundState("p")
    state.set_model(INFO, ("a", "b", "c"))
    state.chat.set_vocab_info(b"\0\0\0", ChatTemplate("builtin", "gemma", "gemma"))
    assert chat_for_export(state) is None  # plain completion
    state.chat.set_chat(enabled=True, system="", user="Hi")
    exported = chat_for_export(state)
    assert exported.messages == (("user", "Hi"),) and not exported.has_template
    assert exported.builtin_template == "gemma" and exported.formatted == ""
    state.chat.set_chat_prompt(ChatRequest("", "stale"), "old")  # for messages no longer current: ignored
    assert chat_for_export(state).formatted == ""
    state.chat.set_chat_prompt(ChatRequest("", "Hi"), "<t>Hi")
    assert chat_for_export(state).formatted == "<t>Hi" and state.chat.prompt_for_run() == "<t>Hi"
    state.chat.set_chat(user="Hi!")
    assert chat_for_export(state).formatted == "" and state.chat.prompt_for_run() == ""


@pytest.fixture
def pg(tmp_path):
    state = PlaygroundState("once upon a time", SamplerSettings(seed=5))
    state.set_run_settings(max_tokens=6, n_ctx=256)
    engine = Engine(fake_loader()).start()
    playground = Playground(state, engine, PresetStore(tmp_path / "presets.json"))
    playground.runs.load_model(None)
    pump(playground, lambda: bool(state.chat.token_kinds))
    yield playground
    assert engine.shutdown(10)



def test_a_chat_run_and_a_fan_start_from_the_formatted_chat(pg):
    state = pg.state
    assert pg.chat.set_chat_mode(True)
    pg.chat.set_messages(system="Be brief.", user="the cat")
    expected = FakeModel().format_chat(ChatRequest("Be brief.", "the cat"))
    pg.runs.generate()
    pump(pg, lambda: not state.busy)
    lane = state.lane()
    assert lane.prompt == expected and len(lane.records) == 6
    sent = []
    submit = pg.engine.submit
    pg.engine.submit = lambda command: (sent.append(command), submit(command))
    pg.analysis.fan_out(2, 3)
    pump(pg, lambda: not state.busy)
    assert pg.state.jobs.fan.done and len(pg.state.jobs.fan.results) == 2
    fans = [c for c in sent if isinstance(c, Fan)]
    chat_tokens = pg.engine.model.vocab.tokenize(expected.encode(), add_special=True, parse_special=True)
    # the formatted chat's tokens, then the lane's own
    assert [f.lanes[0].prefix for f in fans] == [tuple(chat_tokens) + tuple(r.token for r in lane.records)]
    pump(pg, state.chat.chat_prompt_is_current)
    assert state.chat.chat_prompt == expected


def test_the_format_task_follows_the_latest_messages(pg):
    state = pg.state
    pg.chat.set_chat_mode(True)
    for text in ("a", "ab", "abc", "abcd"):
        pg.chat.set_messages(user=text)
    pump(pg, state.chat.chat_prompt_is_current)
    assert state.chat.chat_prompt == FakeModel().format_chat(ChatRequest("", "abcd"))
