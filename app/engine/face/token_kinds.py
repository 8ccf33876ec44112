"""What kind of token each vocabulary entry is, from llama.cpp's token attributes (no llama.cpp here).

llama.cpp gives every token attribute bits (``llama_vocab_get_attr``, the
``LLAMA_TOKEN_ATTR_*`` values of ``llama.h``).  ``llama_token_to_piece``
renders a token by them (``src/llama-vocab.cpp``, 0.3.36):

* with ``special`` false, a token with UNKNOWN or CONTROL renders as nothing
  (that is how the engine builds its records' text, so ``<eos>`` or
  ``<end_of_turn>`` never reach the text);
* USER_DEFINED tokens always render as their text, ``special`` or not;
* NORMAL tokens render as their text (SentencePiece's ``▁`` back to spaces),
  BYTE tokens as their one byte;
* anything else (UNUSED on its own, no attribute) renders as nothing.

Gemma 3 stores ``<start_of_image>`` and ``<end_of_image>`` as USER_DEFINED, next
to runs of newlines, spaces and tabs and HTML tags: so llama.cpp prints
``<start_of_image>`` as text when a model samples it.  The views draw such
markers as chips (:func:`shows_as_chip`); the records keep llama.cpp's text.

The engine reports one kind code per token (a ``bytes``, index = token id).
"""
from __future__ import annotations

# llama.h's enum llama_token_attr
ATTR_UNDEFINED = 0
ATTR_UNKNOWN = 1 << 0
ATTR_UNUSED = 1 << 1
ATTR_NORMAL = 1 << 2
ATTR_CONTROL = 1 << 3
ATTR_USER_DEFINED = 1 << 4
ATTR_BYTE = 1 << 5

# the kind codes the engine reports (one byte per token)
NORMAL = 0
BYTE = 1
USER_DEFINED = 2
CONTROL = 3
UNUSED = 4
UNKNOWN = 5
UNDEFINED = 6

NAMES = {
    NORMAL: "normal", BYTE: "byte", USER_DEFINED: "user-defined", CONTROL: "control", UNUSED: "unused",
    UNKNOWN: "unknown", UNDEFINED: "no attribute",
}

#: Kinds that llama.cpp renders as nothing when it is not asked for special tokens.
SILENT = frozenset({CONTROL, UNUSED, UNKNOWN, UNDEFINED})


def kind_from_attr(attr: int) -> int:
    """The kind of a token from its attribute bits; the bit that decides how it renders wins.

    Gemma's ``<unused0>`` is UNUSED|CONTROL: unused.  Its ``</s>`` is CONTROL|USER_DEFINED:
    control (llama.cpp's early return for CONTROL comes first, so it renders as nothing).
    """
    attr = int(attr)
    if attr & ATTR_UNUSED:
        return UNUSED
    if attr & ATTR_UNKNOWN:
        return UNKNOWN
    if attr & ATTR_CONTROL:
        return CONTROL
    if attr & ATTR_USER_DEFINED:
        return USER_DEFINED
    if attr & ATTR_BYTE:
        return BYTE
    if attr & ATTR_NORMAL:
        return NORMAL
    return UNDEFINED


def kind_name(kind: int) -> str:
    return NAMES.get(kind, f"kind {kind}")


def kind_of(kinds: bytes, token: int) -> int:
    """The kind of ``token`` in a model's kind array (NORMAL when the array does not cover it)."""
    return kinds[token] if 0 <= token < len(kinds) else NORMAL


def shows_as_chip(kind: int, text: str) -> bool:
    """Whether a view draws the token as a marked chip instead of prose.

    Control, unused, unknown and attribute-less tokens (llama.cpp renders them as
    nothing) and user-defined tokens with visible characters (``<start_of_image>``,
    ``[multimodal]``, an atomic ``<b>``: llama.cpp renders them as text, but they are
    markers of the vocabulary, not words).  User-defined runs of newlines, spaces
    or tabs are layout and stay prose.
    """
    if kind in SILENT:
        return True
    return kind == USER_DEFINED and bool(text.strip())
