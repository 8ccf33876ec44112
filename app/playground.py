"""The playground's actions, free of Qt: each changes the state and sends the engine
a command; :meth:`Playground.handle` applies what the engine reports.

Everything here runs on one thread (the window's, or a test's); the engine's
work runs on the engine thread.  Rejected values never change the state: the
problem is reported through ``state.report`` and views show the state's
values again.
"""
from __future__ import annotations

from app.actions.ab import ABActions
from app.actions.analysis import AnalysisActions
from app.actions.chat import ChatActions
from app.actions.files import FileActions
from app.actions.grammar import GrammarActions
from app.actions.lanes import LaneActions
from app.actions.lookahead import LookaheadActions
from app.actions.presets import PresetActions
from app.actions.runs import RunActions
from app.actions.sweep import SweepActions
from app.actions.taste import TasteActions
from app.actions.text import TextActions
from app.core.history import History
from app.core.presets import PresetStore
from app.core.recent import RecentModels
from app.core.session import Autosave
from app.core.state import PlaygroundState


class Playground:
    """``runs`` (model, generate, continue, branch, stop), ``text`` (edits, branches, undo),
    ``lanes`` (settings, presets, seeds), ``analysis`` (fan, match entropy), ``chat`` (chat mode,
    special tokens), ``ab`` (blind A/B tests), ``taste`` (the taste tuner), ``lookahead`` (lookahead at a fork,
    manual mode), ``sweep`` (sweeps), ``grammar`` (the edited lane's grammar),
    ``files`` (session files and the last session kept in ``autosave``),
    ``preset_actions`` (the user's presets and other tools' ones), over one state and one engine."""

    def __init__(self, state: PlaygroundState, engine, presets: PresetStore, recent: RecentModels | None = None,
                 autosave: Autosave | None = None):
        self.state = state
        self.engine = engine
        self.presets = presets
        self.history = History(state)
        self.runs = RunActions(state, engine, self.history, recent)
        self.text = TextActions(state, self.history)
        self.lanes = LaneActions(state, presets, self.runs)
        self.files = FileActions(state, autosave)
        self.preset_actions = PresetActions(state, presets, self.lanes)
        self.analysis = AnalysisActions(state, engine, self.runs, self.lanes, self.history)
        self.chat = ChatActions(state, engine, self.runs)
        self.sweep = SweepActions(state, engine, self.runs, self.lanes)
        self._handlers: dict[type, list] = {}
        for part in (self.runs, self.analysis, self.chat, self.sweep):
            self.listen(part.handlers)
        self.ab = ABActions(state, engine, self.runs, presets)
        self.listen(self.ab.handlers)
        self.taste = TasteActions(state, engine, self.runs, presets)
        self.listen(self.taste.handlers)
        self.lookahead = LookaheadActions(state, engine, self.runs, self.history)  # after runs: see its RunEnded
        self.listen(self.lookahead.handlers)
        self.grammar = GrammarActions(state, engine, self.lanes)
        self.listen(self.grammar.handlers)

    def listen(self, handlers: dict) -> None:
        """Also give these events (type -> handler) to a part that runs work of its own."""
        for kind, handler in handlers.items():
            self._handlers.setdefault(kind, []).append(handler)

    def handle(self, event) -> None:
        """Apply one engine event to the state: every part that listens for its kind gets it
        (each keeps only the events of the work it started)."""
        for handler in self._handlers.get(type(event), ()):
            handler(event)

    def handle_all(self) -> int:
        """Apply every event the engine has produced so far; how many there were."""
        events = self.engine.drain()
        for event in events:
            self.handle(event)
        return len(events)
