"""Chat requests and chat templates as plain data (no llama.cpp here: see chat_template.py)."""
from __future__ import annotations

from dataclasses import dataclass


class ChatTemplateError(ValueError):
    """The model has no chat template that llama.cpp can apply; the message names the model."""


@dataclass(frozen=True)
class ChatRequest:
    """A system message (may be empty) and a user message; the model's reply comes next.

    ``turns``: a whole conversation instead of the one user message, as (role, content) pairs in order
    (a server's multi-turn ``messages``); the system message, if any, still comes first.
    """

    system: str = ""
    user: str = ""
    turns: tuple[tuple[str, str], ...] = ()

    def messages(self) -> tuple[tuple[str, str], ...]:
        """(role, content) pairs in order; an empty system message is left out."""
        out = (("system", self.system),) if self.system.strip() else ()
        return out + (self.turns or (("user", self.user),))


@dataclass(frozen=True)
class ChatTemplate:
    """The chat template a model is formatted with.

    ``source``: ``"model"`` (the file's ``tokenizer.chat_template``) or ``"builtin"``
    (llama.cpp's built-in template ``name``, for a model family whose file carries none).
    ``text``: what ``llama_chat_apply_template`` is given (the file's template, or the name).
    ``name``: what llama-cli's ``--chat-template`` takes ("" for the file's own template).
    """

    source: str
    text: str
    name: str = ""

    @property
    def from_file(self) -> bool:
        return self.source == "model"

    def describe(self) -> str:
        if self.from_file:
            return "the model's own chat template"
        return f"llama.cpp's built-in \u201c{self.name}\u201d template (the model file has none)"


@dataclass(frozen=True)
class BuiltinFallback:
    """llama.cpp's built-in template for a family, and the turn markers it writes.

    Used only when each marker is one control token of the model's vocabulary
    and the end marker ends generation there, so a reply stops at its turn's end.
    """

    name: str
    start: str
    end: str


_GEMMA = BuiltinFallback("gemma", "<start_of_turn>", "<end_of_turn>")
#: general.architecture -> the fallback (Gemma 3 270M, the bundled model, has no template in its file).
BUILTIN_FALLBACKS = {"gemma": _GEMMA, "gemma2": _GEMMA, "gemma3": _GEMMA, "gemma3n": _GEMMA}


def no_template_message(model_name: str, path: str = "") -> str:
    where = f" ({path})" if path else ""
    return (f"{model_name}{where} has no chat template that llama.cpp can apply, so chat mode is off; "
            "plain completion works as before.")
