"""What the playground's state announces: one :class:`Changed` member per kind of change.

Every edit of :class:`app.core.state.PlaygroundState` reaches its subscribers as a
:class:`Change` whose ``what`` is a member of :class:`Changed`.  An enum rather
than napari-style ``state.events.<name>`` signals: each view keeps one listener
that dispatches on the kind (often several kinds to one redraw), which an enum
reads plainly, and the set of kinds is one list here.

A name that is not a kind cannot slip through: ``Changed.RECORDZ`` is an
AttributeError where it is written, ``emit`` refuses anything that is not a
member (a string included), and comparing a member with a string raises
TypeError instead of quietly being False, so an old-style ``what == Changed.RECORDS``
fails on its first run rather than never matching.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol


class Changed(enum.Enum):
    """The kinds of change the state announces (the value says what it covers)."""

    PROMPT = "the prompt text"
    RUN_SETTINGS = "the run options"
    PROBLEM = "the problem line (a refused value, a failed load)"
    STATUS = "the status line (a run's end, what a task found)"
    LANES = "lanes added or removed"
    CURRENT_LANE = "the lane being edited"
    LANE_SETTINGS = "a lane's settings or the preset it names"
    PRESETS = "the saved presets"
    SESSION_FILE = "the session's file, whether it changed since, and how its autosave stands"
    BUSY = "what the engine is busy with"
    LOADING = "a model load began or ended"
    LOAD_PROGRESS = "a model load's progress"
    MODEL = "the loaded model"
    RECORDS = "a lane's text: its records or written pieces"
    BRANCH = "the branch a lane shows"
    RUN_ENDED = "a run ended"
    SELECTION = "the selected step"
    HISTORY = "what undo and redo can do"
    TOKEN_KINDS = "the model's token kinds and chat template"
    SHOW_SPECIAL = "whether views show special tokens"
    CHAT = "chat mode or its messages"
    CHAT_PROMPT = "the engine's formatting of the chat"
    FORKS = "the fork radar"
    LOOKAHEAD = "the lookahead on show"
    LOOKAHEAD_SIZE = "how many alternatives a lookahead shows and how long each is"
    MANUAL = "manual mode (the writer picks each token)"
    FAN = "the fan of continuations"
    SWEEP = "the sweep's rows or message"
    SWEEP_FORM = "the sweep window's form (what the next sweep runs)"
    AB = "the blind A/B test"
    AB_SETUP = "the blind A/B test's set-up (what the next test runs)"
    TASTE = "the taste tuner"
    TASTE_SETUP = "the taste tuner's set-up (what the next tuning runs)"
    MODEL_FORM = "the Model page's fields (path, GPU layers, RPC servers, tensor split, recent models)"
    SERVING = "the window's server: its address, requests, served lane, override lane and newest report"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            raise TypeError(f"compare a change with a Changed member, not the string {other!r}")
        return self is other

    def __hash__(self) -> int:
        return hash(self.name)


@dataclass(frozen=True)
class Change:
    """What changed: ``what`` names it, ``lane`` says which lane (None: not lane-specific)."""

    what: Changed
    lane: int | None = None

    def __post_init__(self):
        if not isinstance(self.what, Changed):
            raise TypeError(f"a change is a Changed member, got {self.what!r}")


class Announcer(Protocol):
    """What a part needs of the state that owns it: the one change bus (``PlaygroundState.emit``)."""

    def emit(self, what: Changed, lane: int | None = None) -> None: ...


class StatePart:
    """A part of the one state, reached as an attribute of ``app.core.state.PlaygroundState`` (``state.text``,
    ``state.chat`` ...).  It is built with the owning state, is the only writer of its own fields and announces
    each change through the state's :meth:`emit`: the state and all its parts share one bus, so a subscriber
    hears every change in the order it was made."""

    def __init__(self, state: Announcer) -> None:
        self._state = state

    def emit(self, what: Changed, lane: int | None = None) -> None:
        self._state.emit(what, lane)
