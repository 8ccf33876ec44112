"""Token kinds and chat formatting on the bundled Gemma 3 270M, held to llama.cpp itself.

What llama.cpp says is asked here through the bindings directly
(``llama_vocab_get_attr``, ``llama_token_to_piece``, ``llama_chat_apply_template``),
never through the engine's own code path.
"""
from __future__ import annotations

import ctypes
import time

import llama_cpp as ll
import pytest

from app.engine.engine import Engine
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face import token_kinds as tk
from app.engine.face.chat import ChatRequest
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.face.records import StopReason
from sampler import SamplerSettings


def token_id(model, text: str) -> int:
    tokens = model.vocab.tokenize(text.encode(), add_special=False, parse_special=True)
    assert len(tokens) == 1, f"{text!r} is not one token: {tokens}"
    return tokens[0]


def llama_piece(model, token: int, special: bool) -> bytes:
    buf = ctypes.create_string_buffer(256)
    n = ll.llama_token_to_piece(model.vocab.ptr, token, buf, len(buf), 0, special)
    assert n >= 0
    return buf.raw[:n]


@pytest.fixture(scope="module")
def kinds(default_model):
    return default_model.vocab.token_kinds()


def test_start_of_image_is_user_defined_so_llama_cpp_renders_it_as_text(default_model, kinds):
    token = token_id(default_model, "<start_of_image>")
    attr = ll.llama_vocab_get_attr(default_model.vocab.ptr, token)
    assert attr & ll.LLAMA_TOKEN_ATTR_USER_DEFINED and not attr & (ll.LLAMA_TOKEN_ATTR_CONTROL | ll.LLAMA_TOKEN_ATTR_UNKNOWN)
    assert kinds[token] == tk.USER_DEFINED
    # why it was printed in a story: user-defined tokens render as their text even without ``special``
    assert llama_piece(default_model, token, special=False) == b"<start_of_image>"
    assert tk.shows_as_chip(kinds[token], "<start_of_image>")  # ... so the views draw it as a chip


@pytest.mark.parametrize("text, attr_bit, kind, chip", [
    ("<end_of_turn>", ll.LLAMA_TOKEN_ATTR_CONTROL, tk.CONTROL, True),
    ("<start_of_turn>", ll.LLAMA_TOKEN_ATTR_CONTROL, tk.CONTROL, True),
    ("<unused0>", ll.LLAMA_TOKEN_ATTR_UNUSED, tk.UNUSED, True),
    ("<end_of_image>", ll.LLAMA_TOKEN_ATTR_USER_DEFINED, tk.USER_DEFINED, True),
    ("\n\n", ll.LLAMA_TOKEN_ATTR_USER_DEFINED, tk.USER_DEFINED, False),  # layout: stays prose
    (" the", ll.LLAMA_TOKEN_ATTR_NORMAL, tk.NORMAL, False),
])
def test_other_kinds_are_what_llama_cpp_says(default_model, kinds, text, attr_bit, kind, chip):
    token = token_id(default_model, text)
    attr = ll.llama_vocab_get_attr(default_model.vocab.ptr, token)
    assert attr & attr_bit and kinds[token] == kind
    assert tk.shows_as_chip(kind, text) is chip
    rendered = llama_piece(default_model, token, special=False)
    assert (rendered == b"") is (kind in tk.SILENT)


def test_every_kind_follows_llama_cpp_rendering(default_model, kinds):
    """Silent kinds render as nothing without ``special``; the others render something (a sample of tokens)."""
    assert len(kinds) == default_model.vocab.n_tokens
    for token in list(range(0, 300)) + list(range(255960, 256010)) + list(range(1000, 262144, 997)):
        rendered = llama_piece(default_model, token, special=False)
        assert (rendered == b"") is (kinds[token] in tk.SILENT), (token, kinds[token], rendered)


def apply_template_directly(handle, messages) -> str:
    """llama_chat_apply_template through the bindings: the file's template, else llama.cpp's "gemma"."""
    tmpl = ll.llama_model_chat_template(handle, None) or b"gemma"  # the bundled file carries none
    chat = (ll.llama_chat_message * len(messages))()
    for i, (role, content) in enumerate(messages):
        chat[i].role, chat[i].content = role.encode(), content.encode()
    buf = ctypes.create_string_buffer(4096)
    n = ll.llama_chat_apply_template(tmpl, chat, len(messages), True, buf, len(buf))
    assert 0 < n <= len(buf)
    return buf.raw[:n].decode()


def test_chat_formatting_is_llama_cpps(default_model):
    request = ChatRequest("You are terse.", "Name a colour.")
    expected = apply_template_directly(default_model.handle, [("system", "You are terse."), ("user", "Name a colour.")])
    assert default_model.format_chat(request) == expected
    assert expected.startswith("<start_of_turn>user\n") and expected.endswith("<start_of_turn>model\n")
    in_file = ll.llama_model_chat_template(default_model.handle, None)
    assert default_model.chat_template.source == ("model" if in_file else "builtin")
    assert default_model.chat_template.from_file or default_model.chat_template.name == "gemma"


def test_a_chat_run_stops_at_end_of_turn_or_the_limit_with_no_marker_in_its_text(default_model):
    end_of_turn = token_id(default_model, "<end_of_turn>")
    assert ll.llama_vocab_is_eog(default_model.vocab.ptr, end_of_turn)  # it ends generation in llama.cpp
    engine = Engine(model=default_model, owns_model=False).start()
    try:
        request = ChatRequest("", "Write one short sentence about a cat.")
        options = RunOptions(max_tokens=24, n_ctx=512)
        engine.submit(cmd.Generate(1, "not this prompt", (LaneConfig(SamplerSettings(seed=3), key=0),), options,
                                   chat=request))
        events, deadline = [], time.monotonic() + 120
        while not any(isinstance(e, ev.RunEnded) for e in events):
            assert time.monotonic() < deadline, "the run did not end"
            events += engine.drain()
            time.sleep(0.01)
    finally:
        assert engine.shutdown(10)
    started = next(e for e in events if isinstance(e, ev.RunStarted))
    ended = next(e for e in events if isinstance(e, ev.RunEnded))
    assert not ended.error
    assert started.chat_prompt == default_model.format_chat(request)
    start_tokens = dict(started.starts)[0]
    assert start_tokens.count(token_id(default_model, "<start_of_turn>")) == 2  # parsed as control tokens
    assert start_tokens.count(end_of_turn) == 1
    result = ended.results[0]
    assert result.stop_reason in (StopReason.EOG, StopReason.MAX_TOKENS)
    if result.stop_reason is StopReason.EOG:
        assert ll.llama_vocab_is_eog(default_model.vocab.ptr, result.tokens[-1])
    else:
        assert len(result.tokens) == 24
    for marker in ("<end_of_turn>", "<start_of_turn>"):
        assert marker not in result.text


GEMMA_LIKE_JINJA = ("{{ bos_token }}{% for message in messages %}<start_of_turn>{{ message['role'] }}\n"
                    "{{ message['content'] | trim }}<end_of_turn>\n{% endfor %}")


def test_which_template_a_model_gets(default_model):
    from app.engine.llama.chat_template import choose_template

    vocab = default_model.vocab
    builtin = choose_template(None, "gemma3", vocab)  # no template in the file: llama.cpp's "gemma", checked
    assert (builtin.source, builtin.name) == ("builtin", "gemma")
    assert choose_template(None, "llama", vocab) is None  # no fallback for that family
    assert choose_template("{{ something llama.cpp does not know }}", "gemma3", vocab) is None
    own = choose_template(GEMMA_LIKE_JINJA, "whatever", vocab)  # a file's own template comes first
    assert own.from_file and own.text == GEMMA_LIKE_JINJA


def test_a_files_own_template_is_applied_by_llama_cpp(default_model):
    from app.engine.llama.chat_template import choose_template, format_chat

    template = choose_template(GEMMA_LIKE_JINJA, "gemma3", default_model.vocab)
    messages = [("system", "S."), ("user", "U?")]
    chat = (ll.llama_chat_message * 2)()
    for i, (role, content) in enumerate(messages):
        chat[i].role, chat[i].content = role.encode(), content.encode()
    buf = ctypes.create_string_buffer(1024)
    n = ll.llama_chat_apply_template(GEMMA_LIKE_JINJA.encode(), chat, 2, True, buf, len(buf))
    assert format_chat(template, ChatRequest("S.", "U?"), "m") == buf.raw[:n].decode()
