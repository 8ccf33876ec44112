"""More things a session keeps, beside the prompt, the lanes and the run settings: one entry each.

A part is saved under ``"parts": {name: value}`` in ``session.json``.  To keep
something more (the A/B rounds, say), add one :class:`SessionPart` to
:data:`PARTS`::

    SessionPart("ab", to_json=lambda state: state.ab.to_json(), from_json=AbRounds.from_json,
                apply=lambda state, rounds: state.set_ab(rounds or AbRounds()))

Loading checks every part (``from_json``) before the state changes at all,
then applies each (``apply`` gets None when the file has no such part, e.g.
one saved before the part existed, so the part starts empty).  A reader
skips, and names, a part it does not know (one a newer version added);
adding a part therefore needs no new format version.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.core.ab.taste.session import TasteSession
from app.core.state import PlaygroundState


@dataclass(frozen=True)
class SessionPart:
    name: str
    #: JSON-ready value of the part (None: nothing to keep, the part is left out of the file).
    to_json: Callable[[PlaygroundState], object]
    #: The part's value from its JSON; ValueError names what is wrong.  Must not touch any state.
    from_json: Callable[[object], object]
    #: Put a value ``from_json`` made into the state (None: the file has no such part).
    apply: Callable[[PlaygroundState, object], None]


def _apply_taste(state: PlaygroundState, taste: object) -> None:
    state.taste.load(taste if isinstance(taste, TasteSession) else None)  # None: the file has none


#: Every part a session saves and loads, in order.
PARTS: list[SessionPart] = [
    # the taste tuner's plan and votes (app.core.ab.taste.session): a loaded tuning waits for "Go on"
    SessionPart("taste", to_json=lambda state: state.taste.session.to_json(), from_json=TasteSession.from_json,
                apply=_apply_taste),
]
