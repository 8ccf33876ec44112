"""What the bans did in a run, step by step, from its records (``StepRecord.ban_hits``).

For each step where a banned phrase began: the phrase, what the model was
about to write there (the text from where the phrase began, when it was
found), what it wrote instead (the run's final text from that step on, as
long), how many tokens went back, and, where the phrase stayed, why.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class BanEvent(NamedTuple):
    step: int
    phrase: str
    about: str  # what the model was about to write
    instead: str  # what the text holds there in the end
    rewound: int  # tokens taken back (0: the phrase stayed)
    kept: str  # why it stayed ("" : taken back)

    def line(self) -> str:
        """One line for a list."""
        what = f"kept: {self.kept}" if self.kept else f"{self.rewound} token{'s' * (self.rewound != 1)} back"
        about = f" about to write {self.about!r}" if self.about else ""
        return f"step {self.step}: {self.phrase}{about}, wrote {self.instead!r} ({what})"


def text_from(records: Sequence, i: int, chars: int) -> str:
    """The text of ``records[i:]``, cut to ``chars`` characters (at least one record's)."""
    out = ""
    for r in records[i:]:
        out += r.text
        if len(out) >= chars:
            break
    return out[:max(chars, 1)] if len(out) > chars else out


def ban_events(records: Sequence) -> list[BanEvent]:
    """Every ban hit of the run, in step order."""
    out = []
    for i, r in enumerate(records):
        for hit in r.ban_hits:
            instead = text_from(records, i, max(len(hit.about), 1))
            out.append(BanEvent(r.step, hit.phrase, hit.about, instead, hit.rewound, hit.kept))
    return out


def per_step(records: Sequence) -> tuple[list[int], list[int], list[int]]:
    """(steps, hits, tokens rewound) for the steps with hits."""
    steps, hits, rewound = [], [], []
    for r in records:
        if r.ban_hits:
            steps.append(r.step)
            hits.append(len(r.ban_hits))
            rewound.append(sum(h.rewound for h in r.ban_hits))
    return steps, hits, rewound
