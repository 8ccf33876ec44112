"""The window's server as the state holds it (Run ▸ Serve): whether it serves and where, how many
requests it answered, which lane shows them, which lane overrides them, and what became of the newest
request's sampler fields.

:class:`ServingPart` is the part ``state.serving`` of :class:`app.core.state.PlaygroundState`; the
window's serve workflow (``app/actions/serving.py``) changes it, the status bar and the lanes read it,
and each change is announced as ``Changed.SERVING``.  Lanes are held as the lane objects themselves
(never their index, which moves when a lane before them is removed); a lane that is gone (removed, or a
session opened over it) is simply no longer found (:meth:`ServingPart.index_of`).
"""
from __future__ import annotations

from app.core.changes import Announcer, Changed, StatePart


class ServingPart(StatePart):
    """``state.serving``: off (``address`` empty), starting, or serving at ``address``."""

    def __init__(self, state: Announcer) -> None:
        super().__init__(state)
        self.address = ""  # "http://127.0.0.1:8080" while serving
        self.starting = False
        self.requests = 0  # requests that started a run since the server started
        self.served_lane: object | None = None  # the lane the requests run in (a LaneText)
        self.override_lane: object | None = None  # the lane whose settings replace a request's
        self.report = ""  # the newest request's per-field report, one line per field

    @property
    def on(self) -> bool:
        return bool(self.address)

    def index_of(self, lanes: list, lane: object | None) -> int | None:
        """Where ``lane`` is among ``lanes`` now (None: not there)."""
        return next((i for i, x in enumerate(lanes) if x is lane), None) if lane is not None else None

    def set_starting(self) -> None:
        self.starting, self.address = True, ""
        self.emit(Changed.SERVING)

    def set_address(self, address: str) -> None:
        """Serving at ``address`` ("" : stopped, or it never started)."""
        self.starting, self.address = False, address
        if address:
            self.requests = 0
        self.emit(Changed.SERVING)

    def request_started(self, lane: object, report: str) -> None:
        """A request began its run in ``lane``: it is counted, and its report is the one shown."""
        self.requests += 1
        self.served_lane, self.report = lane, report
        self.emit(Changed.SERVING)

    def set_override_lane(self, lane: object | None) -> None:
        """``lane``'s settings replace every request's (None: requests run with their own)."""
        if lane is not self.override_lane:
            self.override_lane = lane
            self.emit(Changed.SERVING)
