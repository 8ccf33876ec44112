"""A lane's settings and text (:class:`LaneText`), and the state's only ways to change that text.

:class:`LaneTextPart` is the part ``state.text`` of :class:`app.core.state.PlaygroundState`: every
change of a lane's text tree (a run's new root, fork or continuation, its
records, its end; a branch shown; a fork with the writer's text or with
adopted records; an undo restoring the trees) is one of its methods, which
changes the tree and announces it.  Actions, history and chat decide *what* to
change and call these; none of them touches ``lane.tree`` or emits for it.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from app.core.changes import Changed, StatePart
from app.core.text_tree import Branch, Piece, TextTree
from app.engine.face.records import LaneResult, StepRecord
from sampler import SamplerSettings


@dataclass
class LaneText:
    """A lane: settings (seed included), the preset it came from (None: by hand), and its text
    as a tree of branches (:mod:`app.core.text_tree`), one of which it shows."""

    settings: SamplerSettings
    preset: str | None = None
    tree: TextTree = field(default_factory=TextTree)
    revision: int = 0  # counts the times the shown text was replaced (views then redraw it whole)
    run_id: int | None = None  # the run appending to it
    run_branch: int | None = None  # the branch that run appends to
    name: str = ""  # what the lane is called instead of its preset ("/completion 14:03": a served request's lane)

    @property
    def records(self) -> list[StepRecord]:
        """The shown path's step records (kept by the tree until its path changes; do not change the list)."""
        return self.tree.records()

    @property
    def text(self) -> str:
        """What follows the prompt on the shown branch (generated and written)."""
        return self.tree.text()

    @property
    def prompt(self) -> str | None:
        """The prompt its text continues (None when it has no text yet)."""
        root = self.tree.root()
        return None if root is None else root.prompt

    @property
    def branch(self) -> Branch | None:
        return None if self.tree.current is None else self.tree.branches[self.tree.current]

    @property
    def last_result(self) -> LaneResult | None:
        branch = self.branch
        return None if branch is None else branch.result


class _TextOwner(Protocol):
    """What the text part reads and calls of the state that owns it."""

    lanes: list[LaneText]

    def emit(self, what: Changed, lane: int | None = None) -> None: ...
    def accepted(self) -> None: ...
    def select(self, step: int | None) -> None: ...


class LaneTextPart(StatePart):
    """``state.text``: built with the owning PlaygroundState, whose lanes' text trees it alone changes."""

    _state: _TextOwner  # the state adds and removes lanes; this part alone changes their text

    # -- runs --------------------------------------------------------------------------------

    def begin_new_root_run(self, run_id: int, index: int, prompt: str) -> Branch:
        """Lane ``index``'s run ``run_id`` starts a new root branch from ``prompt`` (the old text stays)."""
        branch = self._state.lanes[index].tree.add_branch(None, 0, prompt=prompt)
        self.begin_run(run_id, index, branch)
        return branch

    def begin_fork_run(self, run_id: int, index: int, at: int) -> Branch:
        """Lane ``index``'s run ``run_id`` goes on from a new branch keeping its first ``at`` pieces."""
        branch = self._state.lanes[index].tree.fork_at(at)
        self.begin_run(run_id, index, branch)
        return branch

    def begin_run(self, run_id: int, index: int, branch: Branch) -> None:
        """Lane ``index``'s run ``run_id`` will append to ``branch`` (now the shown one)."""
        lane = self._state.lanes[index]
        lane.tree.current = branch.id
        lane.run_id, lane.run_branch = run_id, branch.id
        lane.revision += 1
        self.emit(Changed.RECORDS, index)

    def _run_branch(self, index: int, run_id: int) -> Branch | None:
        if not 0 <= index < len(self._state.lanes) or self._state.lanes[index].run_id != run_id:
            return None
        lane = self._state.lanes[index]
        return None if lane.run_branch is None else lane.tree.branches.get(lane.run_branch)

    def set_starts(self, run_id: int, starts: dict[int, tuple[int, ...]]) -> None:
        """The tokens each lane's run started from (a new root learns its prompt's tokens)."""
        for index, tokens in starts.items():
            branch = self._run_branch(index, run_id)
            if branch is not None and branch.parent is None and not branch.pieces:
                branch.prompt_tokens = tuple(tokens)

    def set_run_prompt(self, run_id: int, prompt: str) -> None:
        """The prompt the lanes' runs ``run_id`` started from, as the engine built it (chat mode):
        a run that began a new root branch shows it as that root's prompt."""
        for index, lane in enumerate(self._state.lanes):
            branch = self._run_branch(index, run_id)
            if branch is not None and branch.parent is None:
                branch.prompt = prompt
                lane.revision += 1
        self.emit(Changed.RECORDS)

    def add_records(self, run_id: int, records) -> None:
        touched = set()
        for rec in records:
            branch = self._run_branch(rec.lane, run_id)
            if branch is not None:
                branch.pieces.append(rec)
                touched.add(rec.lane)
        for lane in sorted(touched):
            self.emit(Changed.RECORDS, lane)

    def end_runs(self, run_id: int, results) -> None:
        for result in results:
            branch = self._run_branch(result.lane, run_id)
            if branch is not None:
                branch.result = result
        for lane in self._state.lanes:
            if lane.run_id == run_id:
                lane.run_id = lane.run_branch = None
        self.emit(Changed.RUN_ENDED)

    # -- branches the writer makes or picks ------------------------------------------------------

    def show_branch(self, index: int, branch_id: int) -> None:
        """Lane ``index`` shows another of its branches."""
        lane = self._state.lanes[index]
        if lane.tree.current != branch_id:
            lane.tree.current = branch_id
            lane.revision += 1
            self._state.accepted()
            self.emit(Changed.RECORDS, index)
            self.emit(Changed.BRANCH, index)

    def fork_with(self, index: int, at: int, pieces: Iterable[Piece]) -> int:
        """Lane ``index`` shows a new branch keeping its first ``at`` pieces, then ``pieces`` (the
        writer's text, or a lookahead's records); the old text stays one switch away.  Its id."""
        return self._show_new(index, self._state.lanes[index].tree.fork_at(at), pieces)

    def graft(self, index: int, parent: int, fork: int, pieces: Iterable[Piece]) -> int:
        """Lane ``index`` shows a new branch of ``pieces`` forking from branch ``parent`` after its own
        ``fork`` pieces (a fan's continuation, adopted).  Its id."""
        return self._show_new(index, self._state.lanes[index].tree.add_branch(parent, fork), pieces)

    def _show_new(self, index: int, branch: Branch, pieces: Iterable[Piece]) -> int:
        branch.pieces.extend(pieces)
        self._state.lanes[index].revision += 1
        self._state.accepted()
        self.emit(Changed.RECORDS, index)
        self.emit(Changed.BRANCH, index)
        return branch.id

    def restore_texts(self, snapshots: tuple, selected: int | None) -> None:
        """Every lane's tree as a snapshot had it (undo, redo), and the step then selected."""
        for index, (lane, snap) in enumerate(zip(self._state.lanes, snapshots)):
            lane.tree.restore(snap)
            lane.revision += 1
            self.emit(Changed.RECORDS, index)
        self._state.select(selected)
