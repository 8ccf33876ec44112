"""One run as the exports see it: the lane's settings, the run options, the prompt or the chat."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from app.engine.face.options import RunOptions
from sampler.settings import SamplerSettings

ROLES = ("system", "user", "assistant")
#: The settings that count tokens back.  Other tools' "the whole context" (KoboldCpp's range 0 or below,
#: text-generation-webui's 0) is 2147483647 here, but llama.cpp has no such value: this llama.cpp refuses -1
#: (arg.cpp: "invalid dry-penalty-last-n"; llama-server likewise) and its penalties and DRY allocate memory in
#: proportion to the number (about 16 GiB for 2147483647).  What it means there is the context size.
LAST_N_FIELDS = ("penalty_last_n", "dry_penalty_last_n")


def within_context(settings: SamplerSettings, n_ctx: int) -> tuple[SamplerSettings, list[str]]:
    """``settings`` with every look-back longer than the context written as the context size (the same
    tokens: no run has more than ``n_ctx``), and one note for each such field."""
    longer = {f: settings.get(f) for f in LAST_N_FIELDS if settings.get(f) > n_ctx}
    notes = [f"{f} {value} (the whole context) is written as the context size, {n_ctx}: llama.cpp takes no "
             "'whole context' value, and allocates memory for the number it is given" for f, value in longer.items()]
    return (settings.replace(**dict.fromkeys(longer, n_ctx)) if longer else settings), notes


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
    """What an export reproduces: the lane's settings, the run's options (the one RunOptions the
    window and the engine use: tokens, stop strings, context) and what the run starts from.

    Plain mode continues ``prompt``.  Chat mode (``chat=True``) answers
    ``messages`` (``(role, content)`` pairs or ``{"role", "content"}``
    dicts, oldest first) after the ``system`` prompt; without messages,
    ``prompt`` is the one user message.  ``token_texts``: the model's token
    texts, if known (for banned phrases: :mod:`app.core.llamacpp.phrases`).
    """

    settings: SamplerSettings
    options: RunOptions = RunOptions()
    prompt: str = ""
    model_path: str | None = None
    chat: bool = False
    system: str | None = None
    messages: tuple[tuple[str, str], ...] = ()
    token_texts: tuple = ()

    def __post_init__(self):
        if not isinstance(self.settings, SamplerSettings):
            raise TypeError(f"settings: expected SamplerSettings, got {type(self.settings).__name__}")
        if not isinstance(self.options, RunOptions):
            raise TypeError(f"options: expected RunOptions, got {type(self.options).__name__}")
        if self.model_path is not None:
            object.__setattr__(self, "model_path", os.fspath(self.model_path))
        object.__setattr__(self, "messages", _messages(self.messages))

    @classmethod
    def make(cls, settings: SamplerSettings, run_settings: RunOptions | None = None, *, n_predict: int | None = None,
             n_ctx: int | None = None, stop=None, **fields) -> RunSpec:
        """A spec from the run's options (``run_settings``, default RunOptions()) with llama.cpp's names for
        the changes to them (``n_predict``, ``n_ctx``, ``stop``; checked there: ValueError names a bad one)."""
        changes: dict[str, object] = {k: v for k, v in (("max_tokens", n_predict), ("n_ctx", n_ctx)) if v is not None}
        if stop is not None:
            changes["stop_strings"] = tuple(stop)
        options = (run_settings or RunOptions()).replace(**changes)
        return cls(settings, options, **fields)

    @property
    def n_predict(self) -> int:
        return self.options.max_tokens

    @property
    def n_ctx(self) -> int:
        return self.options.n_ctx

    @property
    def stop(self) -> tuple[str, ...]:
        return self.options.stop_strings

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
