"""A taste tuning's rounds as plain frozen data: what was shown, what the writer voted.

The settings of a round are kept as the knobs' *values* (what really ran), so
a resumed tuning rebuilds its posterior from them whatever grid a later
version uses.  Ties ("both fine", "both bad") are votes like the others.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..rounds import Pick, check_texts


@dataclass(frozen=True)
class TasteRound:
    """One round: ``left`` and ``right`` are the knobs' values shown on each side (key 1, key 2),
    both written from ``prompt`` with ``seed``; ``pick`` and ``decided_at`` once voted."""

    number: int
    prompt_id: str
    seed: int
    left: tuple[float, ...]
    right: tuple[float, ...]
    text_left: str = ""
    text_right: str = ""
    pick: Pick | None = None
    decided_at: str = ""

    def with_texts(self, text_left: str, text_right: str) -> TasteRound:
        """This round with both texts written (the left one is lane 0's, the right one lane 1's)."""
        check_texts(("left text", "right text"), (text_left, text_right))
        return dataclasses.replace(self, text_left=text_left, text_right=text_right)

    @property
    def shown_texts(self) -> tuple[str, str]:
        """The texts as shown: the left one, the right one."""
        return self.text_left, self.text_right

    def to_json(self) -> dict:
        return {"number": self.number, "prompt_id": self.prompt_id, "seed": self.seed,
                "left": list(self.left), "right": list(self.right), "text_left": self.text_left,
                "text_right": self.text_right, "pick": self.pick.value if self.pick else None,
                "decided_at": self.decided_at}

    @classmethod
    def from_json(cls, data, knobs: int) -> TasteRound:
        """A round from its JSON; ValueError names what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"taste round: expected an object, got {type(data).__name__}")
        try:
            left, right = (tuple(float(v) for v in data[k]) for k in ("left", "right"))
            pick = None if data.get("pick") is None else Pick(data["pick"])
            number, seed = int(data["number"]), int(data["seed"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"taste round {data.get('number', '?')}: {exc}") from None
        if len(left) != knobs or len(right) != knobs:
            raise ValueError(f"taste round {number}: expected {knobs} knob values a side")
        return cls(number, str(data.get("prompt_id", "")), seed, left, right, str(data.get("text_left", "")),
                   str(data.get("text_right", "")), pick, str(data.get("decided_at", "")))
