"""A lane's text as a tree of branches, so nothing the writer saw is ever lost.

A branch is a list of pieces (generated steps, or text the writer wrote) that
follows ``fork`` pieces of its parent; a root branch follows a prompt.  The
lane shows one branch (``current``): its text is the path from its root down
to it.  Generating again adds a new root (the old text stays a sibling, like a
swipe); continuing appends to the current branch; taking another token at a
step, or editing the text, forks a new branch at that point.

Steps are numbered along a path by the generated pieces before them; written
pieces take no step number.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from app.engine.face.records import LaneResult, StepRecord


@dataclass(frozen=True)
class Written:
    """Text the writer typed into a lane: no records, drawn untinted."""

    text: str


Piece = StepRecord | Written


@dataclass
class Branch:
    id: int
    parent: int | None  # None: a root, which follows ``prompt``
    fork: int  # how many of the parent's own pieces come before this branch's
    pieces: list[Piece] = field(default_factory=list)
    prompt: str = ""  # a root: the prompt it continues
    prompt_tokens: tuple[int, ...] = ()  # a root: the prompt's tokens, once a run said
    result: LaneResult | None = None  # how the last run on it ended

    def copy(self) -> Branch:
        return Branch(self.id, self.parent, self.fork, list(self.pieces), self.prompt, self.prompt_tokens, self.result)


def piece_text(piece: Piece) -> str:
    return piece.text


class TextTree:
    """Every branch of one lane, and the one it shows."""

    def __init__(self):
        self.branches: dict[int, Branch] = {}
        self.current: int | None = None
        self._next_id = 1
        self._records: tuple[tuple, list[StepRecord]] = ((), [])  # (the path it was read from, its records)

    # -- reading ---------------------------------------------------------------------------

    def path(self, branch_id: int | None = None) -> list[tuple[Branch, int]]:
        """(branch, how many of its own pieces are used) from the root down to a branch."""
        at = self.current if branch_id is None else branch_id
        out: list[tuple[Branch, int]] = []
        upto = None
        while at is not None:
            branch = self.branches[at]
            out.append((branch, len(branch.pieces) if upto is None else upto))
            upto, at = branch.fork, branch.parent
        return out[::-1]

    def pieces(self, branch_id: int | None = None) -> list[Piece]:
        return [p for branch, upto in self.path(branch_id) for p in branch.pieces[:upto]]

    def pieces_after(self, shown: int, branch_id: int | None = None) -> list[Piece]:
        """``pieces(branch_id)[shown:]`` without copying the first ``shown`` (a lane's text view, which
        has drawn them, asks at every live frame; a long run's pieces are thousands)."""
        out: list[Piece] = []
        for branch, upto in self.path(branch_id):
            if shown >= upto:
                shown -= upto
                continue
            out.extend(branch.pieces[shown:upto])
            shown = 0
        return out

    def records(self) -> list[StepRecord]:
        """The shown path's step records.  Views read them many times a frame, so they are kept until
        the path changes: keyed by the path's branch objects (held, so never reused) and how many of
        each one's pieces it uses.  Pieces are only ever appended to a branch (an undo restores copies),
        so a key that still matches means the same records; one that grew at its end adds only the new
        ones.  The list is shared: read it, never change it."""
        path = [(branch, upto) for branch, upto in self.path()]
        key, records = self._records
        if len(key) == len(path) and all(a is b and m == n for (a, m), (b, n) in zip(key[:-1], path[:-1])) \
                and path and key[-1][0] is path[-1][0] and key[-1][1] <= path[-1][1]:
            if key[-1][1] == path[-1][1]:
                return records
            branch, old, new = path[-1][0], key[-1][1], path[-1][1]
            records = records + [p for p in branch.pieces[old:new] if isinstance(p, StepRecord)]
        else:
            records = [p for branch, upto in path for p in branch.pieces[:upto] if isinstance(p, StepRecord)]
        self._records = (tuple(path), records)
        return records

    def text(self) -> str:
        return "".join(p.text for p in self.pieces())

    def root(self) -> Branch | None:
        path = self.path()
        return path[0][0] if path else None

    # -- changing ------------------------------------------------------------------------------

    def add_branch(self, parent: int | None, fork: int, prompt: str = "") -> Branch:
        branch = Branch(self._next_id, parent, fork, prompt=prompt)
        self._next_id += 1
        self.branches[branch.id] = branch
        self.current = branch.id
        return branch

    def locate(self, index: int) -> tuple[Branch, int]:
        """The branch holding the ``index``-th piece of the current path, and its own index there."""
        seen = 0
        for branch, upto in self.path():
            if index < seen + upto:
                return branch, index - seen
            seen += upto
        raise IndexError(f"piece {index} is beyond the lane's text ({seen} pieces)")

    def fork_at(self, index: int) -> Branch:
        """A new branch that keeps the current path's first ``index`` pieces and goes on from there."""
        if index == len(self.pieces()) and self.current is not None:
            branch = self.branches[self.current]
            return self.add_branch(branch.id, len(branch.pieces))
        holder, own = self.locate(index)
        return self.add_branch(holder.id, own)

    # -- alternatives (swipes) ---------------------------------------------------------------

    def branch_points(self) -> list[tuple[int, int | None, int]]:
        """Where the current path could go another way: (piece index on the path, branch, its own
        index), first to last.  ``branch`` None is the start, where every root is an alternative."""
        points: list[tuple[int, int | None, int]] = []
        if sum(1 for b in self.branches.values() if b.parent is None) > 1:
            points.append((0, None, 0))
        seen = 0
        path = self.path()
        for branch, upto in path:
            forks = sorted({c.fork for c in self.branches.values() if c.parent == branch.id and c.fork <= upto})
            for fork in forks:
                if len(self.options(branch.id, fork)) > 1:
                    points.append((seen + fork, branch.id, fork))
            seen += upto
        return points

    def options(self, branch_id: int | None, fork: int) -> list[int]:
        """The branches that go on from a point: the branch itself (if it has pieces past it), then
        the branches forking there, oldest first.  ``branch_id`` None: the roots."""
        if branch_id is None:
            return [b.id for b in self.branches.values() if b.parent is None]
        out = [c.id for c in self.branches.values() if c.parent == branch_id and c.fork == fork]
        if len(self.branches[branch_id].pieces) > fork:
            out.insert(0, branch_id)
        return out

    def switch(self, offset: int, at: int | None = None) -> bool:
        """Show the previous (-1) or next (+1) alternative at the last branch point at or before
        piece ``at`` (the end of the text if None); False when there is no other way to go."""
        target = self.switch_target(offset, at)
        if target is None:
            return False
        self.current = target
        return True

    def switch_target(self, offset: int, at: int | None = None) -> int | None:
        """The branch :meth:`switch` would show (None: no other way to go); changes nothing."""
        points = [p for p in self.branch_points() if at is None or p[0] <= at]
        if not points:
            return None
        _, branch_id, fork = points[-1]
        ids = self.options(branch_id, fork)
        taken = self.taken(branch_id, fork)
        return ids[(ids.index(taken) + offset) % len(ids)] if taken in ids else ids[0]

    def taken(self, branch_id: int | None, fork: int) -> int:
        """Which option at a point the current path takes."""
        path = self.path()
        if branch_id is None:
            return path[0][0].id
        for (branch, upto), nxt in zip(path, path[1:] + [(None, 0)]):
            if branch.id == branch_id:
                child = nxt[0]
                return child.id if child is not None and child.fork == fork and upto == fork else branch_id
        return branch_id

    # -- undo --------------------------------------------------------------------------------

    def snapshot(self) -> tuple:
        return ({k: b.copy() for k, b in self.branches.items()}, self.current, self._next_id)

    def restore(self, snap: tuple) -> None:
        branches, self.current, self._next_id = snap
        self.branches = {k: b.copy() for k, b in branches.items()}
