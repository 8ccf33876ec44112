"""The edited lane's grammar (the Chain page's Grammar box): a GBNF grammar or a JSON schema, applied only once
llama.cpp has taken it.

The text goes to the engine first (a ``CheckGrammar`` command: llama.cpp's own parser, over the loaded model's
vocabulary, a schema converted as llama.cpp converts it); an error comes back as llama.cpp's one line and
nothing is applied, else the lane's settings take it (the other grammar field cleared: llama.cpp keeps one
grammar).  An empty text is no grammar, applied at once.  The settings fields are ``grammar`` and
``json_schema`` (:mod:`sampler.grammar_text`), so presets, sessions and exports carry them like any setting.
"""
from __future__ import annotations

from app.core.state import PlaygroundState
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from sampler.flags import GRAMMAR_FIELDS


class GrammarActions:
    def __init__(self, state: PlaygroundState, engine, lanes):
        self.state, self.engine, self.lanes = state, engine, lanes
        self._checking: tuple[int, int, str, str] | None = None  # (task, lane, field, text) in flight
        self.handlers = {ev.TaskEnded: self._on_task}

    def apply(self, field: str, text: str, index: int | None = None) -> None:
        """Lane ``index`` (the edited one by default) takes ``text`` as its ``field`` ("grammar" or
        "json_schema") once llama.cpp has parsed it; an empty text clears the grammar now."""
        if field not in GRAMMAR_FIELDS:
            raise ValueError(f"grammar: expected one of {', '.join(GRAMMAR_FIELDS)}, got {field!r}")
        index = self.state.current_lane if index is None else index
        if not text:
            self._set(index, field, "")
            return
        task_id = self.engine.next_id()
        self._checking = (task_id, index, field, text)
        self.engine.submit(cmd.CheckGrammar(task_id, field, text))

    def _on_task(self, e: ev.TaskEnded) -> None:
        if self._checking is None or e.task_id != self._checking[0]:
            return
        _, index, field, text = self._checking
        self._checking = None
        if e.error:
            self.state.report(e.error)  # llama.cpp's line; the lane keeps its grammar
            self.state.settings_refused(index)
            return
        self._set(index, field, text)

    def _set(self, index: int, field: str, text: str) -> None:
        try:
            settings = self.state.lanes[index].settings.with_values({f: text if f == field else "" for f in GRAMMAR_FIELDS})
        except ValueError as exc:
            self.state.report(str(exc))
            self.state.settings_refused(index)
            return
        self.state.report("")
        self.lanes.set_settings(index, settings)
