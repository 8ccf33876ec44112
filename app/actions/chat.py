"""Chat mode and special tokens: the actions, and the engine events they follow.

The chat prompt is formatted on the engine thread only: a Generate in chat mode
carries the request (see ``RunActions._start``), and for the export the current
messages are formatted by a FormatChat command each time they change (one at a
time; a newer request follows when the last one returns).
"""
from __future__ import annotations

from app.core.state import PlaygroundState
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.chat import ChatRequest


class ChatActions:
    def __init__(self, state: PlaygroundState, engine, runs):
        self.state, self.engine, self.runs = state, engine, runs
        self._formatting: tuple[int, ChatRequest] | None = None  # the format task in flight
        self.handlers = {ev.ModelLoaded: self._on_loaded, ev.RunStarted: self._on_started, ev.TaskEnded: self._on_task}

    # -- what a user does ----------------------------------------------------------------

    def set_chat_mode(self, on: bool) -> bool:
        """Chat mode on or off; refused (a message naming the model, nothing changed) without a template."""
        try:
            self.state.chat.set_chat(enabled=bool(on))
        except ValueError as exc:
            self.state.report(str(exc))
            return False
        self.state.report("")
        self.refresh_prompt()
        return True

    def set_messages(self, *, system: str | None = None, user: str | None = None) -> None:
        changes = {k: v for k, v in (("system", system), ("user", user)) if v is not None}
        try:
            self.state.chat.set_chat(**changes)
        except ValueError as exc:
            self.state.report(str(exc))
            return
        self.refresh_prompt()

    def set_show_special(self, show: bool) -> None:
        self.state.chat.set_show_special(bool(show))

    # -- formatting for the export ---------------------------------------------------------

    def refresh_prompt(self) -> None:
        """Ask the engine to format the current messages (unless a format is on its way)."""
        state = self.state
        if not state.chat.settings.enabled or state.model is None or state.chat.chat_prompt_is_current() or self._formatting:
            return
        request = state.chat.settings.request()
        task_id = self.engine.next_id()
        self._formatting = (task_id, request)
        self.engine.submit(cmd.FormatChat(task_id, request))

    def _on_task(self, e: ev.TaskEnded) -> None:
        if self._formatting is None or e.task_id != self._formatting[0]:
            return
        request, self._formatting = self._formatting[1], None
        if e.error:
            self.state.report(e.error)
            return
        self.state.chat.set_chat_prompt(request, e.result)
        self.refresh_prompt()  # the messages may have changed meanwhile

    # -- engine events ---------------------------------------------------------------------

    def _on_loaded(self, e: ev.ModelLoaded) -> None:
        if self.state.model is not e.info:
            return  # a load that a newer one replaced (RunActions kept the model it announced)
        self._formatting = None
        message = self.state.chat.set_vocab_info(e.token_kinds, e.chat_template)
        if message:
            self.state.report(message)
        self.refresh_prompt()

    def _on_started(self, e: ev.RunStarted) -> None:
        if e.chat_prompt and e.run_id == self.state.run_id:
            self.state.text.set_run_prompt(e.run_id, e.chat_prompt)
