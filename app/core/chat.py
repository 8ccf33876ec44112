"""Chat mode and special tokens in the state (Qt-free), and what an export needs of a chat.

:class:`ChatPart` (chat mode and special tokens) is the part ``state.chat`` of
:class:`app.core.state.PlaygroundState`: the model's token kinds and chat template
(from the engine's ModelLoaded), whether views show special tokens, the chat
settings (``settings``: on/off, system and user messages) and the prompt the engine
formatted from them.  Like the rest of the state it checks values first
(ValueError, nothing changed) and announces each change on the state's bus:
``TOKEN_KINDS``, ``SHOW_SPECIAL``, ``CHAT``, ``CHAT_PROMPT``.

:func:`chat_for_export` is what "Copy as llama.cpp" reads for a chat.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from app.core.changes import Changed, StatePart
from app.engine.face.chat import ChatRequest, ChatTemplate, no_template_message
from app.engine.face.token_kinds import kind_of

if TYPE_CHECKING:
    from app.engine.face.model_info import ModelInfo


@dataclass(frozen=True)
class ChatSettings:
    """Chat mode (``enabled``) and its two messages; plain completion when off."""

    enabled: bool = False
    system: str = ""
    user: str = ""

    def __post_init__(self):
        if not isinstance(self.enabled, bool):
            raise ValueError(f"chat mode: expected on or off, got {self.enabled!r}")
        for name in ("system", "user"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} message: expected text, got {getattr(self, name)!r}")

    def request(self) -> ChatRequest:
        return ChatRequest(self.system, self.user)


class _ChatOwner(Protocol):
    """What the chat part reads of the state that owns it."""

    model: ModelInfo | None
    prompt: str

    def emit(self, what: Changed, lane: int | None = None) -> None: ...


class ChatPart(StatePart):
    """``state.chat``: built with the owning PlaygroundState, whose ``model`` and ``prompt`` it reads."""

    _state: _ChatOwner

    def __init__(self, state: _ChatOwner) -> None:
        super().__init__(state)
        self.token_kinds: bytes = b""
        self.chat_template: ChatTemplate | None = None
        self.show_special = True  # views draw special tokens as chips; False hides them
        self.settings = ChatSettings()
        self.chat_prompt = ""  # the engine's formatting of settings.request() ("" until it says)
        self._chat_prompt_for: ChatRequest | None = None

    # -- the model's vocabulary --------------------------------------------------------------

    def set_vocab_info(self, token_kinds: bytes, chat_template: ChatTemplate | None) -> str:
        """The loaded model's token kinds and chat template.  Chat mode goes off if the model has
        no template; the message saying so is returned ("" otherwise)."""
        self.token_kinds, self.chat_template = bytes(token_kinds), chat_template
        self.emit(Changed.TOKEN_KINDS)
        self._chat_prompt_for, self.chat_prompt = None, ""
        self.emit(Changed.CHAT_PROMPT)
        if self.settings.enabled and chat_template is None:
            self.settings = dataclasses.replace(self.settings, enabled=False)
            self.emit(Changed.CHAT)
            return self.no_template_message()
        return ""

    def token_kind(self, token: int) -> int:
        return kind_of(self.token_kinds, token)

    def set_show_special(self, show: bool) -> None:
        if not isinstance(show, bool):
            raise ValueError(f"show special tokens: expected on or off, got {show!r}")
        if show != self.show_special:
            self.show_special = show
            self.emit(Changed.SHOW_SPECIAL)

    # -- chat ---------------------------------------------------------------------------------

    def no_template_message(self) -> str:
        model = self._state.model
        if model is None:
            return "Load a model first: chat mode formats the messages with the model's chat template."
        return no_template_message(model.name, os.path.basename(model.path))

    def set_chat(self, **changes) -> None:
        """Change chat mode or its messages.  Turning it on needs a model with a chat template:
        otherwise ValueError (naming the model) and nothing changes."""
        new = dataclasses.replace(self.settings, **changes)
        if new.enabled and not self.settings.enabled and (self._state.model is None or self.chat_template is None):
            raise ValueError(self.no_template_message())
        if new != self.settings:
            self.settings = new
            self.emit(Changed.CHAT)

    def prompt_for_run(self) -> str:
        """The prompt a new run starts from as far as the GUI knows (the engine says exactly in
        RunStarted): the prompt box, or in chat mode the formatted chat ("" until formatted)."""
        if not self.settings.enabled:
            return self._state.prompt
        return self.chat_prompt if self.chat_prompt_is_current() else ""

    def chat_request(self) -> ChatRequest | None:
        """What a Generate sends: the chat request in chat mode, None for plain completion."""
        return self.settings.request() if self.settings.enabled else None

    def set_chat_prompt(self, request: ChatRequest, formatted: str) -> None:
        """The engine's formatting of ``request``; kept only while it is still the current one."""
        if self.settings.enabled and request == self.settings.request():
            self._chat_prompt_for, self.chat_prompt = request, formatted
            self.emit(Changed.CHAT_PROMPT)

    def chat_prompt_is_current(self) -> bool:
        return self.settings.enabled and self._chat_prompt_for == self.settings.request()


@dataclass(frozen=True)
class ChatExport:
    """A chat as an export needs it.

    ``messages``: (role, content) pairs, the system message first if there is one.
    ``has_template``: the model file carries a chat template llama.cpp can apply
    (llama-cli uses it by default).  ``builtin_template``: the name of llama.cpp's
    built-in template the playground used because the file has none (pass it as
    ``--chat-template``; without it llama-cli would fall back to ChatML); "" otherwise.
    ``formatted``: the prompt as the engine formatted it ("" until it has).
    """

    messages: tuple[tuple[str, str], ...]
    has_template: bool
    builtin_template: str
    formatted: str


def chat_for_export(state) -> ChatExport | None:
    """The chat of a PlaygroundState for an export; None in plain completion mode."""
    chat = state.chat
    if not chat.settings.enabled:
        return None
    template = chat.chat_template
    return ChatExport(
        messages=chat.settings.request().messages(),
        has_template=template is not None and template.from_file,
        builtin_template=template.name if template is not None and not template.from_file else "",
        formatted=chat.chat_prompt if chat.chat_prompt_is_current() else "",
    )
