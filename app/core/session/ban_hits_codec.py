"""The banned phrases each step met (``StepRecord.ban_hits``) in a session's records.

They sit in the records' JSON part as ``"ban_hits": {"RECORD_INDEX": [[phrase, about, rewound, kept], ...]}``,
only for the records that have some, and only when any has: a session without
them reads as before, and a session written before they existed reads with none.
"""
from __future__ import annotations

from app.engine.face.records import BanHit

KEY = "ban_hits"


def encode_ban_hits(records) -> dict:
    """What the records' JSON part gains (empty without hits)."""
    hits = {str(i): [list(h) for h in r.ban_hits] for i, r in enumerate(records) if r.ban_hits}
    return {KEY: hits} if hits else {}


def _hit(where: str, value) -> BanHit:
    ok = (isinstance(value, list) and len(value) == 4 and isinstance(value[0], str) and isinstance(value[1], str)
          and isinstance(value[2], int) and not isinstance(value[2], bool) and value[2] >= 0
          and isinstance(value[3], str))
    if not ok:
        raise ValueError(f"{where}: expected [phrase, about, rewound, kept], got {value!r:.60}")
    return BanHit(*value)


def decode_ban_hits(meta: dict, count: int) -> list[tuple[BanHit, ...]]:
    """Each record's hits (``count`` records); ValueError names the first bad entry."""
    out: list[tuple[BanHit, ...]] = [()] * count
    table = meta.get(KEY, {})
    if not isinstance(table, dict):
        raise ValueError(f"records.{KEY}: expected an object, got {type(table).__name__}")
    for key, hits in table.items():
        where = f"records.{KEY}[{key!r:.20}]"
        if not key.isdigit() or int(key) >= count or not isinstance(hits, list):
            raise ValueError(f"{where}: expected a record's index and a list of hits")
        out[int(key)] = tuple(_hit(f"{where}[{i}]", h) for i, h in enumerate(hits))
    return out
