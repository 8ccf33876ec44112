"""A model's chat template through llama.cpp's template API (engine thread only).

* The template is the file's ``tokenizer.chat_template`` (``llama_model_chat_template``).
* ``llama_chat_apply_template`` does not run Jinja: it recognises a template among
  its built-in formats by name or by marks in the text, and returns -1 for one it
  does not know; such a model has no usable template.  Given no template at all
  (NULL) it formats as ChatML, whatever the model: never passed here.
* A model whose file carries none (the bundled Gemma 3 270M) gets llama.cpp's
  built-in template for its family (:data:`app.engine.face.chat.BUILTIN_FALLBACKS`) only
  if that template's turn markers are single control tokens of its vocabulary and
  its end marker ends generation; otherwise it has no template.
"""
from __future__ import annotations

import ctypes

import llama_cpp as ll

from app.engine.face.chat import BUILTIN_FALLBACKS, ChatRequest, ChatTemplate, ChatTemplateError, no_template_message
from app.engine.face.token_kinds import CONTROL, kind_from_attr

_PROBE = ChatRequest("s", "u")


def apply_template(template: str, messages, add_assistant: bool = True) -> str | None:
    """``llama_chat_apply_template(template, messages)``; None when llama.cpp does not know the template."""
    encoded = [(role.encode("utf-8"), content.encode("utf-8")) for role, content in messages]
    chat = (ll.llama_chat_message * max(1, len(encoded)))()
    for i, (role, content) in enumerate(encoded):
        chat[i].role, chat[i].content = role, content
    tmpl = template.encode("utf-8")
    size = 2 * sum(len(r) + len(c) for r, c in encoded) + 256
    for _ in range(2):
        buf = ctypes.create_string_buffer(size)
        n = ll.llama_chat_apply_template(tmpl, chat, len(encoded), add_assistant, buf, size)
        if n < 0:
            return None
        if n <= size:
            return buf.raw[:n].decode("utf-8", "replace")
        size = n
    raise RuntimeError("llama_chat_apply_template: the formatted chat did not fit twice")


def file_template(handle) -> str | None:
    raw = ll.llama_model_chat_template(handle, None)
    return raw.decode("utf-8", "replace") if raw else None


def _single_control_token(vocab, text: str) -> int | None:
    tokens = vocab.tokenize(text.encode("utf-8"), add_special=False, parse_special=True)
    if len(tokens) != 1 or kind_from_attr(ll.llama_vocab_get_attr(vocab.ptr, tokens[0])) != CONTROL:
        return None
    return tokens[0]


def choose_template(in_file: str | None, architecture: str, vocab) -> ChatTemplate | None:
    """The template a model is formatted with: its file's, else a checked built-in one, else None."""
    if in_file:
        return ChatTemplate("model", in_file) if apply_template(in_file, _PROBE.messages()) is not None else None
    fallback = BUILTIN_FALLBACKS.get(architecture)
    if fallback is None:
        return None
    start, end = _single_control_token(vocab, fallback.start), _single_control_token(vocab, fallback.end)
    if start is None or end is None or not vocab.is_eog(end):
        return None
    return ChatTemplate("builtin", fallback.name, fallback.name)


def format_chat(template: ChatTemplate | None, request: ChatRequest, model_name: str) -> str:
    """The prompt for ``request`` in ``template`` (ChatTemplateError naming the model when there is none)."""
    text = apply_template(template.text, request.messages()) if template is not None else None
    if text is None:
        raise ChatTemplateError(no_template_message(model_name))
    return text
