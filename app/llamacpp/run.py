"""One run as the exports see it: the lane's settings, the run options, the prompt or the chat."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from sampler.settings import SamplerSettings

#: The run options' defaults (``app.engine.face.options.RunOptions``).
DEFAULT_N_PREDICT = 200
DEFAULT_N_CTX = 4096
ROLES = ("system", "user", "assistant")


def _messages(messages) -> tuple[tuple[str, str], ...]:
    out = []
    for m in messages or ():
        role, content = (m["role"], m["content"]) if isinstance(m, Mapping) else m
        if role not in ROLES:
            raise ValueError(f"chat message: role must be one of {', '.join(ROLES)}, got {role!r}")
        if not isinstance(content, str):
            raise ValueError(f"chat message: content must be text, got {type(content).__name__}")
        out.append((role, content))
    return tuple(out)


@dataclass(frozen=True)
class RunSpec:
    """What an export reproduces.

    Plain mode continues ``prompt``.  Chat mode (``chat=True``) answers
    ``messages`` (``(role, content)`` pairs or ``{"role", "content"}``
    dicts, oldest first) after the ``system`` prompt; without messages,
    ``prompt`` is the one user message.  ``token_texts``: the model's token
    texts, if known (for banned phrases: :mod:`app.llamacpp.phrases`).
    """

    settings: SamplerSettings
    n_predict: int = DEFAULT_N_PREDICT
    n_ctx: int = DEFAULT_N_CTX
    prompt: str = ""
    stop: tuple[str, ...] = ()
    model_path: str | None = None
    chat: bool = False
    system: str | None = None
    messages: tuple[tuple[str, str], ...] = ()
    token_texts: tuple = ()

    def __post_init__(self):
        if not isinstance(self.settings, SamplerSettings):
            raise TypeError(f"settings: expected SamplerSettings, got {type(self.settings).__name__}")
        for name in ("n_predict", "n_ctx"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}: expected a whole number of at least 1, got {value!r}")
        object.__setattr__(self, "stop", tuple(self.stop))
        if any(not isinstance(s, str) or not s for s in self.stop):
            raise ValueError(f"stop strings: each must be non-empty text, got {self.stop!r}")
        if self.model_path is not None:
            object.__setattr__(self, "model_path", os.fspath(self.model_path))
        object.__setattr__(self, "messages", _messages(self.messages))

    @classmethod
    def make(cls, settings: SamplerSettings, run_settings=None, **fields) -> "RunSpec":
        """A spec from ``run_settings`` (anything with ``max_tokens``, ``n_ctx``, ``stop_strings``) and fields."""
        if run_settings is not None:
            fields.setdefault("n_predict", run_settings.max_tokens)
            fields.setdefault("n_ctx", run_settings.n_ctx)
            fields.setdefault("stop", tuple(run_settings.stop_strings))
        return cls(settings, **fields)

    def chat_messages(self) -> list[dict[str, str]]:
        """The whole conversation, the ``system`` prompt first, as OpenAI-style dicts."""
        turns = self.messages or (("user", self.prompt),)
        out = [{"role": "system", "content": self.system}] if self.system else []
        return out + [{"role": role, "content": content} for role, content in turns]

    def system_prompt(self) -> str:
        """The system prompt: ``system``, else the first system message ("" for none)."""
        if self.system:
            return self.system
        return next((content for role, content in self.messages if role == "system"), "")

    def user_message(self) -> str:
        """The last user message (what llama-cli's ``-p`` carries)."""
        users = [content for role, content in self.messages if role == "user"]
        return users[-1] if users else (self.prompt if not self.messages else "")

    def earlier_turns(self) -> int:
        """How many messages llama-cli's command line cannot carry (all but one system and the last user)."""
        if not self.messages:
            return 0
        systems = sum(1 for role, _ in self.messages if role == "system")
        carried = (1 if systems and not self.system else 0) + (1 if self.user_message() else 0)
        return len(self.messages) - carried
