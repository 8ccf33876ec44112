"""Token kinds and chat requests on the engine thread, with the scripted fake backend."""
from __future__ import annotations

import pytest
from engine_events import collect

from app.engine.engine import Engine
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face import token_kinds as tk
from app.engine.face.chat import ChatRequest
from app.engine.face.model_info import LoadRequest
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.fake import BOS, EOS, SPECIAL, FakeModel, fake_loader
from app.engine.run.starts import tokenize_prompt
from sampler import SamplerSettings

OPTIONS = RunOptions(max_tokens=8, n_ctx=256, n_threads=1)
REQUEST = ChatRequest("Be brief.", "the cat sat")


@pytest.mark.parametrize("attr, kind", [
    (tk.ATTR_NORMAL, tk.NORMAL), (tk.ATTR_BYTE, tk.BYTE), (tk.ATTR_USER_DEFINED, tk.USER_DEFINED),
    (tk.ATTR_CONTROL, tk.CONTROL), (tk.ATTR_UNKNOWN, tk.UNKNOWN), (tk.ATTR_UNDEFINED, tk.UNDEFINED),
    (tk.ATTR_UNUSED | tk.ATTR_CONTROL, tk.UNUSED),  # Gemma's <unused0>
    (tk.ATTR_CONTROL | tk.ATTR_USER_DEFINED, tk.CONTROL),  # Gemma's </s>: CONTROL's early return wins
    (tk.ATTR_NORMAL | (1 << 7), tk.NORMAL),  # LSTRIP and the other flags do not change the kind
])
def test_kind_from_attributes(attr, kind):
    assert tk.kind_from_attr(attr) == kind


@pytest.mark.parametrize("kind, text, chip", [
    (tk.USER_DEFINED, "<start_of_image>", True), (tk.USER_DEFINED, "\n\n", False), (tk.USER_DEFINED, "\t", False),
    (tk.CONTROL, "<eos>", True), (tk.UNUSED, "<unused3>", True), (tk.UNKNOWN, "<unk>", True),
    (tk.NORMAL, "<start_of_image>", False), (tk.BYTE, "\x00", False),
])
def test_which_tokens_are_chips(kind, text, chip):
    assert tk.shows_as_chip(kind, text) is chip


def test_the_fake_renders_like_llama_cpp():
    vocab = FakeModel().vocab
    kinds = vocab.token_kinds()
    assert (kinds[BOS], kinds[EOS], kinds[SPECIAL]) == (tk.CONTROL, tk.CONTROL, tk.USER_DEFINED)
    assert vocab.piece(EOS, special=False) == b"" and vocab.piece(SPECIAL, special=False) == b"<start_of_image>"
    assert all(kinds[t] == tk.NORMAL for t in range(3, vocab.n_tokens))


def test_chat_request_messages():
    assert REQUEST.messages() == (("system", "Be brief."), ("user", "the cat sat"))
    assert ChatRequest("  ", "hi").messages() == (("user", "hi"),)


def start(loader=None) -> Engine:
    engine = Engine(loader or fake_loader()).start()
    engine.submit(cmd.LoadModel(1, LoadRequest(None)))
    return engine


def until(engine: Engine, done, timeout: float = 20.0) -> list:
    return collect(engine, done, timeout)


def generate(engine: Engine, run_id: int, lanes, chat=REQUEST) -> list:
    engine.submit(cmd.Generate(run_id, "once upon a time", lanes, OPTIONS, chat=chat))
    return until(engine, lambda e: isinstance(e, ev.RunEnded) and e.run_id == run_id)


def test_model_loaded_carries_the_kinds_and_the_chat_template():
    engine = start()
    try:
        loaded = until(engine, lambda e: isinstance(e, ev.ModelLoaded))[-1]
    finally:
        assert engine.shutdown(10)
    model = FakeModel()
    assert loaded.token_kinds == model.vocab.token_kinds() and len(loaded.token_kinds) == loaded.info.n_vocab
    assert loaded.chat_template == model.chat_template is not None


def test_a_chat_request_is_formatted_on_the_engine_thread():
    engine = start()
    try:
        events = generate(engine, 1, (LaneConfig(SamplerSettings(seed=1), key=0),))
    finally:
        assert engine.shutdown(10)
    model = FakeModel()
    expected = model.format_chat(REQUEST)
    started = next(e for e in events if isinstance(e, ev.RunStarted))
    assert started.chat_prompt == expected
    assert dict(started.starts)[0] == tuple(tokenize_prompt(model, expected))  # not the command's prompt
    assert not events[-1].error and len(events[-1].results[0].tokens) == 8


def test_without_a_template_a_chat_run_does_not_start_and_says_which_model():
    engine = start(fake_loader(chat_template=None))
    try:
        until(engine, lambda e: isinstance(e, ev.ModelLoaded))
        events = generate(engine, 1, (LaneConfig(SamplerSettings(seed=1), key=0),))
        assert not any(isinstance(e, ev.RunStarted) for e in events)
        assert "fake" in events[-1].error and "no chat template" in events[-1].error
        # lanes that all continue exact tokens need no formatting
        events = generate(engine, 2, (LaneConfig(SamplerSettings(seed=1), key=0, prefix=(BOS, 3, 4)),))
        assert not events[-1].error and next(e for e in events if isinstance(e, ev.RunStarted)).chat_prompt == ""
    finally:
        assert engine.shutdown(10)


def test_plain_generate_reports_no_chat_prompt():
    engine = start()
    try:
        events = generate(engine, 1, (LaneConfig(SamplerSettings(seed=1), key=0),), chat=None)
    finally:
        assert engine.shutdown(10)
    started = next(e for e in events if isinstance(e, ev.RunStarted))
    assert started.chat_prompt == "" and dict(started.starts)[0] == tuple(tokenize_prompt(FakeModel(), "once upon a time"))
