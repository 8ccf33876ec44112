"""The taste tuner: each round one ``Generate`` of two lanes at the most informative pair of settings.

Like the blind A/B (:mod:`app.actions.ab`): the same prompt and a fresh shared
seed for both sides, the sides unlabelled (the pair comes in a random order).
After each vote the posterior (:mod:`app.core.ab.taste.model`) is rebuilt from the
votes; the tuning ends when the best region is known to the plan's confidence,
when the rounds run out, or when the writer ends it.  It can stop at any
moment and go on later: the votes live in ``state.taste`` (changed only through
the state's methods, :mod:`app.core.ab.taste.state`) and in the session file
(:mod:`app.core.session.parts`), the round on show is simply written again.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from app.actions.ab import _failed, _now
from app.core.ab import ABDraw, ABPhase, Pick, PromptChoice
from app.core.ab.taste import Knob, TastePlan, TasteRound, TasteSession
from app.core.ab.taste.choose import next_pair
from app.core.ab.taste.knobs import MAX_TUNING_ROUNDS
from app.core.presets import PresetNotFound
from app.core.presets.preset import PresetFileError
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.options import LaneConfig

BUSY = "taste"


class TasteActions:
    def __init__(self, state, engine, runs, presets, *, clock: Callable[[], str] = _now, seed: int | None = None):
        self.state, self.engine, self.runs, self.presets = state, engine, runs, presets
        self.clock = clock
        self.draw = ABDraw(seed)
        self.rng = np.random.default_rng(seed)
        self._run_id: int | None = None
        self.handlers = {ev.StepsProduced: self._on_steps, ev.RunEnded: self._on_run_ended}

    @property
    def session(self) -> TasteSession:
        return self.state.taste

    def _busy(self) -> None:
        """The engine is busy with the tuning while it writes a round, and free otherwise."""
        writing = self.session.phase is ABPhase.GENERATING
        if writing or self.state.busy == BUSY:
            self.state.set_busy(BUSY if writing else "")

    def _phase(self, phase: ABPhase, message: str | None = None, *, drop: bool = False) -> None:
        """The tuning's phase and message (``drop``: the round on show goes too), and the engine's busy."""
        if drop:
            self.state.drop_taste_round(phase, message)
        else:
            self.state.set_taste_phase(phase, message)
        self._busy()

    def start(self, base: str, knobs: Sequence[tuple[str, float, float]], prompts: Sequence[PromptChoice],
              max_tokens: int | None = None, *, confidence: float = 0.9, precision: float = 0.1,
              max_rounds: int = 60) -> bool:
        """A new tuning of ``knobs`` (field, low, high) on top of preset ``base``; False (reported) if not."""
        if not self.runs.ready():
            if self.state.busy:
                self.state.report("The engine is busy; start tuning when it is done.")
            return False
        try:
            preset = self.presets.get(base)
            plan = TastePlan(preset.name, preset.settings, tuple(Knob(*k) for k in knobs), tuple(prompts),
                             max_tokens or self.state.run_settings.max_tokens, confidence, precision, max_rounds)
            self.runs.options(plan.max_tokens)
        except (PresetNotFound, ValueError) as exc:
            self.state.report(str(exc))
            return False
        self.state.report("")
        self.state.begin_taste(plan)
        self.next_round()
        return True

    def next_round(self) -> bool:
        """Write the next round when the tuning waits for one (also: go on with a resumed tuning)."""
        s = self.session
        if s.plan is None or s.phase is not ABPhase.WAITING:
            return False
        if s.settled:
            self._phase(ABPhase.DONE, "")
            return False
        if self.state.busy or self.state.model is None or self.state.load_id is not None:
            self._phase(ABPhase.WAITING, "The engine is busy: press Go on when it is done.")
            return False
        plan, number = s.plan, len(s.rounds) + 1
        pair = next_pair(s.model(), self.rng)
        if self.draw.order()[0] == "B":
            pair = pair[::-1]
        prompt, seed = plan.prompt_for(number - 1), self.draw.seed()
        left, right = plan.values(pair[0]), plan.values(pair[1])
        self.state.begin_taste_round(TasteRound(number, prompt.id, seed, left, right))
        self._busy()
        lanes = tuple(LaneConfig(plan.settings(v, seed), side, key=i)
                      for i, (side, v) in enumerate((("left", left), ("right", right))))
        self._run_id = self.engine.next_id()
        self.engine.submit(cmd.Generate(self._run_id, prompt.text, lanes, self.runs.options(plan.max_tokens)))
        return True

    def _on_steps(self, e: ev.StepsProduced) -> None:
        if e.run_id == self._run_id:
            self.state.count_taste_tokens(len(e.records))

    def _on_run_ended(self, e: ev.RunEnded) -> None:
        if e.run_id != self._run_id:
            return
        self._run_id = None
        s = self.session
        problem = _failed(e)
        if problem:
            self._phase(ABPhase.WAITING, f"Round {len(s.rounds) + 1} stopped: {problem}. Go on writes it again.",
                        drop=True)
            return
        texts = {r.lane: r.text for r in e.results}
        self.state.taste_round_written(texts.get(0, ""), texts.get(1, ""))
        self._busy()

    def choose(self, pick: Pick | str) -> bool:
        """The writer's vote on the round on show (ties too); then the next round, or the result."""
        s = self.session
        if s.phase is not ABPhase.CHOOSING or s.shown is None:
            return False
        self.state.decide_taste_round(pick, self.clock())
        self.next_round()
        return True

    def pause(self) -> None:
        """Stop now and keep every vote: the round being written is dropped, Go on writes a new one."""
        s = self.session
        if s.plan is None or s.phase is ABPhase.DONE:
            return
        if s.phase is ABPhase.GENERATING:
            self.engine.stop()
        self._run_id = None
        self._phase(ABPhase.WAITING, f"Paused after {len(s.rounds)} votes: Go on when you like.", drop=True)

    def finish(self) -> None:
        """End the tuning now: the result from the votes so far."""
        if self.session.plan is None:
            return
        self.pause()
        self._phase(ABPhase.DONE, "")

    def reopen(self) -> None:
        """Take more votes after the result (every earlier one is kept): the confidence asked for goes
        halfway to certainty (90 % -> 95 %, at most 99 %) and 20 more rounds are allowed, so the tuning
        goes on until it is surer or those rounds are spent."""
        s = self.session
        if s.plan is None or s.phase is not ABPhase.DONE:
            return
        plan = s.plan
        self.state.extend_taste(round(min(0.99, plan.confidence + (1 - plan.confidence) / 2), 4),
                                min(max(plan.max_rounds, len(s.rounds)) + 20, MAX_TUNING_ROUNDS))
        self.next_round()

    def reset(self) -> None:
        """Back to choosing knobs (the votes of this tuning are dropped)."""
        self.pause()
        self.state.reset_taste()
        self._busy()

    def save_preset(self, name: str) -> bool:
        """Keep the chosen settings as a user preset named ``name``; False (reported) if not."""
        s = self.session
        if s.plan is None or not s.rounds:
            self.state.report("Vote on a few rounds first: there is nothing to keep yet.")
            return False
        result = s.result()
        settings = s.plan.settings(result.values, s.plan.base.seed)
        spans = ", ".join(f"{k.flag} {v:g} ({lo:g}\u2013{hi:g})"
                          for k, v, (lo, hi) in zip(s.plan.knobs, result.values, result.intervals))
        try:
            self.presets.save(name.strip(), settings, f"Tuned by taste from {s.plan.base_name} over "
                                                      f"{result.votes} votes: {spans}")
        except (ValueError, OSError, PresetFileError) as exc:
            self.state.report(f"Could not keep the preset: {exc}")
            return False
        self.state.presets_changed()
        self.state.set_status(f"Preset {name.strip()!r} kept: {spans}")
        return True
