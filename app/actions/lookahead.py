"""Lookahead at a fork and manual mode, free of Qt.

* :meth:`LookaheadActions.preview` asks the engine for the ``count`` (``state.radar.lookahead_size``) most likely
  survivors at a step of a lane (2 to 6; at a fork its strong alternatives come
  first, and any other step can be looked at too), each followed by a few tokens (one batch that
  shares the prefix's KV cache: :mod:`app.engine.run.lookahead`).  ``state.radar.lookahead``
  then holds them.
* :meth:`LookaheadActions.pick` makes one of them a branch of the lane's text
  tree (its step records as they were made); the old text stays a branch too.
* Manual mode (``state.radar.manual``): a run stops at the first fork of the edited
  lane (under ``state.radar.forks``) and offers the lookahead there; a pick adopts
  that branch and generation goes on from its end, to the next fork.  Leaving
  the mode keeps every branch.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from app.core.forks import is_fork, top_candidates
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.options import LaneConfig
from app.engine.face.records import StepRecord

from .runs import start_parts

BUSY = "lookahead"


@dataclass(frozen=True)
class LookaheadView:
    """What the window shows: the lane, the fork's step, its place among the lane's pieces, the previews
    (``LookaheadPreview``; empty while they are being made) and a message.  Frozen: a new view replaces
    the one on show (``state.radar.show_lookahead``), none is changed in place."""

    lane: int
    step: int
    at: int
    previews: tuple = ()
    message: str = ""


class LookaheadActions:
    def __init__(self, state, engine, runs, history):
        self.state, self.engine, self.runs, self.history = state, engine, runs, history
        self._look_id: int | None = None
        self._fork: tuple[int, int] | None = None  # manual mode: (lane, step) where the run stopped
        self.handlers = {ev.LookaheadEnded: self._on_ended, ev.StepsProduced: self._on_steps,
                         ev.RunEnded: self._on_run_ended}

    def _show(self, view: LookaheadView | None) -> None:
        self.state.radar.show_lookahead(view)

    def preview(self, index: int | None = None, step: int | None = None, count: int | None = None,
                length: int | None = None) -> bool:
        """Look ahead at ``step`` of lane ``index`` (default: the edited lane, the selected step), ``count``
        alternatives of ``length`` tokens each (default: the state's ``lookahead_size``)."""
        size = self.state.radar.lookahead_size
        count, length = count or size.count, length or size.length
        index = self.state.current_lane if index is None else index
        step = self.state.selected if step is None else step
        if step is None:
            self.state.report("Select a step to look ahead from (click a token).")
            return False
        if not self.runs.ready():
            return False
        lane = self.state.lanes[index]
        pieces = lane.tree.pieces()
        at = next((i for i, p in enumerate(pieces) if isinstance(p, StepRecord) and p.step == step), None)
        if at is None:
            self.state.report(f"Lane {index + 1} has no step {step} to look ahead from.")
            return False
        rec = pieces[at]
        tokens = [t for t, _p in top_candidates(rec, count)]  # at a fork its strong ones come first
        if len(tokens) < 2:
            self.state.report(f"Step {step} had a single candidate: nothing to look ahead at.")
            return False
        config = LaneConfig(lane.settings, f"lane {index + 1}", key=index, prefix=start_parts(lane.tree, pieces[:at]),
                            first_step=step, chain_state=rec.chain_state)
        self._look_id = self.engine.next_id()
        self._show(LookaheadView(index, step, at))
        self.state.set_busy(BUSY)
        self.engine.submit(cmd.Lookahead(self._look_id, config, tuple(tokens), length, self.runs.options(length)))
        return True

    def _on_ended(self, e: ev.LookaheadEnded) -> None:
        if e.look_id != self._look_id or self.state.radar.lookahead is None:
            return
        self._look_id = None
        self.state.set_busy("")
        message = e.error or ("stopped" if e.cancelled else "")
        view = self.state.radar.lookahead
        previews = self._offered_p(view, e.previews)
        self._show(dataclasses.replace(view, previews=previews, message=message))

    def _offered_p(self, view: LookaheadView, previews: tuple) -> tuple:
        """Each preview with its token's probability at the fork, as the writer was offered it.  The preview's
        own first step samples the chain again, and a random stage there (XTC) may remove the very token
        it was forced to take: the panel said 0 % for the top pick."""
        lane = self.state.lanes[view.lane]
        pieces = lane.tree.pieces()
        fork = pieces[view.at] if view.at < len(pieces) else None
        if not isinstance(fork, StepRecord) or fork.step != view.step:
            return previews
        offered = dict(top_candidates(fork, len(fork.final_ids)))
        return tuple(dataclasses.replace(p, p=offered[p.token]) if p.token in offered else p for p in previews)

    def pick(self, i: int) -> bool:
        """Preview ``i`` (from 0) becomes a branch at the fork; in manual mode generation goes on."""
        view = self.state.radar.lookahead
        if view is None or not 0 <= i < len(view.previews) or self.state.busy:
            return False
        lane = self.state.lanes[view.lane]
        if len(lane.tree.pieces()) <= view.at:
            self.state.report("The lane's text changed since the lookahead; look again.")
            self._show(None)
            return False
        self.history.checkpoint()
        records = [dataclasses.replace(r, lane=view.lane) for r in view.previews[i].records]
        self._show(None)
        self.state.text.fork_with(view.lane, view.at, records)
        if self.state.radar.manual:
            self.runs.continue_run()
        return True

    def dismiss(self) -> None:
        if self._look_id is not None:
            self.engine.stop()
            self._look_id = None
            self.state.set_busy("")
        self._show(None)

    # -- manual mode ------------------------------------------------------------------------

    def set_manual(self, on: bool) -> None:
        """Manual mode on or off (off also closes the lookahead on show; every branch stays)."""
        if self.state.radar.set_manual(on):
            self._fork = None
            if not on:
                self.dismiss()

    def _on_steps(self, e: ev.StepsProduced) -> None:
        if not self.state.radar.manual or self._fork is not None or e.run_id != self.state.run_id:
            return
        lane = self.state.current_lane
        for rec in e.records:
            if rec.lane == lane and not rec.forced and is_fork(rec, self.state.radar.forks):
                self._fork = (lane, rec.step)
                self.engine.stop()  # the steps already on their way stay in the old branch
                return

    def _on_run_ended(self, e: ev.RunEnded) -> None:
        fork, self._fork = self._fork, None
        if fork is not None and self.state.radar.manual and self.preview(*fork):
            # the run stopped for the pick, not cancelled: the status says so (it said "stopped: cancelled")
            self.state.set_status(f"Manual mode: lane {fork[0] + 1} waits at step {fork[1]} for your pick "
                                  "(1-9, Tab: the top one, Esc leaves)")
