"""Banned phrases as other tools can hold them: SillyTavern's ``"quoted"`` lines and KoboldCpp's
``banned_tokens`` are literal hard bans, so soft bans (a multiplier) and regular expressions stay behind,
named in the field's report."""
from __future__ import annotations


def literal_hard_bans(phrases) -> tuple[list, list]:
    """(the literal hard bans, the rest), each a list of ``sampler.phrases.BannedPhrase``."""
    kept = [p for p in phrases if p.hard and not p.regex]
    return kept, [p for p in phrases if p not in kept]


def left_note(left) -> str:
    """The report's words for the bans the target cannot hold ("" when none)."""
    if not left:
        return ""
    return "; not exported (only literal hard bans go there): " + ", ".join(p.shown for p in left)
