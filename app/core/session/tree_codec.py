"""A lane's text tree (:mod:`app.core.text_tree`) to JSON and back.

::

    {"current": 3, "next_id": 4, "branches": [
        {"id": 1, "parent": null, "fork": 0, "prompt": "...", "prompt_tokens": [2, 9259],
         "pieces": [[0, 16], " she said", [16, 32]],
         "result": {"lane": 0, "stop_reason": "MAX_TOKENS", "text": "...", "tokens": [...], "detail": "16"}}]}

A piece list holds runs of step records as ``[first, end)`` index pairs into
the session's record table, and the writer's text as strings.
"""
from __future__ import annotations

from app.core.text_tree import Branch, TextTree, Written
from app.engine.face.records import LaneResult, StepRecord, StopReason

BRANCH_KEYS = {"id", "parent", "fork", "prompt", "prompt_tokens", "pieces", "result"}


class PieceBudget:
    """How many record references the pieces of a whole session may make, all lanes together.

    A piece ``[first, end)`` costs a few bytes in the file however many records it names: a 107 KB
    file repeating ``[0, 2000]`` once unfolded into 3 GB of text.  The app's own files name each
    record once per lane that holds it, so ``records x lanes`` is their most.
    """

    def __init__(self, n_records: int, n_lanes: int):
        self.left = n_records * max(1, n_lanes)

    def take(self, where: str, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise ValueError(f"{where}: the pieces name more records than the session holds, lanes "
                             "counted (the same records over and over): not a file this program wrote")


class RecordTable:
    """The session's step records in order, each stored once (found by identity)."""

    def __init__(self):
        self.records: list[StepRecord] = []
        self._index: dict[int, int] = {}

    def index(self, rec: StepRecord) -> int:
        found = self._index.get(id(rec))
        if found is None:
            found = self._index[id(rec)] = len(self.records)
            self.records.append(rec)
        return found


def encode_pieces(pieces, table: RecordTable) -> list:
    out: list = []
    for piece in pieces:
        if isinstance(piece, Written):
            out.append(piece.text)
            continue
        i = table.index(piece)
        if out and isinstance(out[-1], list) and out[-1][1] == i:
            out[-1][1] = i + 1
        else:
            out.append([i, i + 1])
    return out


def _result_json(result: LaneResult | None):
    if result is None:
        return None
    return {"lane": result.lane, "stop_reason": result.stop_reason.name, "text": result.text,
            "tokens": list(result.tokens), "detail": result.detail}


def encode_tree(tree: TextTree, table: RecordTable) -> dict:
    branches, current, next_id = tree.snapshot()
    return {"current": current, "next_id": next_id, "branches": [
        {"id": b.id, "parent": b.parent, "fork": b.fork, "prompt": b.prompt, "prompt_tokens": list(b.prompt_tokens),
         "pieces": encode_pieces(b.pieces, table), "result": _result_json(b.result)}
        for b in branches.values()
    ]}


# -- reading ------------------------------------------------------------------------------------


def _int(where: str, value, lo: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or (lo is not None and value < lo):
        raise ValueError(f"{where}: expected a whole number{'' if lo is None else f' of at least {lo}'}, "
                         f"got {value!r:.60}")
    return value


def _str(where: str, value) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where}: expected text, got {value!r:.60}")
    return value


def _ints(where: str, value, lo: int | None = None) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a list of whole numbers, got {value!r:.60}")
    return tuple(_int(f"{where}[{i}]", v, lo) for i, v in enumerate(value))


def _object(where: str, value, keys: set[str]) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected an object, got {type(value).__name__}")
    unknown = sorted(set(value) - keys)
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    missing = sorted(keys - set(value))
    if missing:
        raise ValueError(f"{where}: missing key(s) {', '.join(map(repr, missing))}")
    return value


def decode_pieces(where: str, value, records: list[StepRecord], budget: PieceBudget | None = None) -> list:
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a list, got {type(value).__name__}")
    out: list = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            out.append(Written(item))
            continue
        if not (isinstance(item, list) and len(item) == 2):
            raise ValueError(f"{where}[{i}]: expected text or a [first, end) pair of record numbers, got {item!r:.60}")
        first, end = _int(f"{where}[{i}]", item[0], 0), _int(f"{where}[{i}]", item[1], 0)
        if not first < end <= len(records):
            raise ValueError(f"{where}[{i}]: records {first} to {end} are not among the {len(records)} stored")
        if budget is not None:
            budget.take(where, end - first)
        out.extend(records[first:end])
    return out


def decode_result(where: str, value) -> LaneResult | None:
    if value is None:
        return None
    d = _object(where, value, {"lane", "stop_reason", "text", "tokens", "detail"})
    reason = _str(f"{where}.stop_reason", d["stop_reason"])
    if reason not in StopReason.__members__:
        raise ValueError(f"{where}.stop_reason: unknown reason {reason!r:.60}")
    return LaneResult(_int(f"{where}.lane", d["lane"]), StopReason[reason], _str(f"{where}.text", d["text"]),
                      _ints(f"{where}.tokens", d["tokens"], 0), _str(f"{where}.detail", d["detail"]))


def decode_tree(where: str, value, records: list[StepRecord], budget: PieceBudget | None = None) -> TextTree:
    d = _object(where, value, {"current", "next_id", "branches"})
    if not isinstance(d["branches"], list):
        raise ValueError(f"{where}.branches: expected a list, got {type(d['branches']).__name__}")
    branches: dict[int, Branch] = {}
    for i, item in enumerate(d["branches"]):
        at = f"{where}.branches[{i}]"
        b = _object(at, item, BRANCH_KEYS)
        branch_id = _int(f"{at}.id", b["id"], 1)
        if branch_id in branches:
            raise ValueError(f"{at}.id: branch {branch_id} is there twice")
        parent = None if b["parent"] is None else _int(f"{at}.parent", b["parent"], 1)
        branches[branch_id] = Branch(
            branch_id, parent, _int(f"{at}.fork", b["fork"], 0), decode_pieces(f"{at}.pieces", b["pieces"], records, budget),
            _str(f"{at}.prompt", b["prompt"]), _ints(f"{at}.prompt_tokens", b["prompt_tokens"], 0),
            decode_result(f"{at}.result", b["result"]),
        )
    _check_links(where, branches)
    current = None if d["current"] is None else _int(f"{where}.current", d["current"], 1)
    if current is not None and current not in branches:
        raise ValueError(f"{where}.current: there is no branch {current}")
    next_id = _int(f"{where}.next_id", d["next_id"], 1)
    if branches and next_id <= max(branches):
        raise ValueError(f"{where}.next_id: {next_id} is already a branch's number")
    tree = TextTree()
    tree.restore((branches, current, next_id))
    return tree


def _check_links(where: str, branches: dict[int, Branch]) -> None:
    """Every parent exists, forks lie within the parent's pieces, and no branch is its own ancestor."""
    for b in branches.values():
        if b.parent is None:
            continue
        parent = branches.get(b.parent)
        if parent is None:
            raise ValueError(f"{where}: branch {b.id}'s parent {b.parent} is not there")
        if b.fork > len(parent.pieces):
            raise ValueError(f"{where}: branch {b.id} forks at piece {b.fork} of branch {b.parent}, "
                             f"which has {len(parent.pieces)}")
    for b in branches.values():
        seen, at = {b.id}, b.parent
        while at is not None:
            if at in seen:
                raise ValueError(f"{where}: branch {b.id} is its own ancestor")
            seen.add(at)
            at = branches[at].parent
