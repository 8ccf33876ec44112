"""The taste tuner: a :class:`app.actions.pairs.PairsRunner` whose pairs come from the taste model, its state
``state.taste`` (:class:`app.core.ab.taste.state.TastePart`).

Like the blind A/B: the same prompt and a fresh shared seed for both sides, the
sides unlabelled (the pair comes in a random order).  After each vote the
posterior (:mod:`app.core.ab.taste.model`) is rebuilt from the votes; the tuning
ends when the best region is known to the plan's confidence, when the rounds run
out, or when the writer ends it.  It can stop at any moment and go on later: the
votes live in ``state.taste`` and in the session file (:mod:`app.core.session.parts`),
the round on show is simply written again.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from app.core.ab import ABPhase, PromptChoice
from app.core.ab.taste import Knob, TastePlan
from app.core.ab.taste.knobs import MAX_TUNING_ROUNDS
from app.core.presets.preset import PresetFileError

from .choosers import TasteModelChooser
from .pairs import PairsRunner, Words, now

BUSY = "taste"
WORDS = Words(start="start tuning", go_on="Go on", again="Go on writes it again.")


class TasteActions(PairsRunner):
    def __init__(self, state, engine, runs, presets, *, clock: Callable[[], str] = now, seed: int | None = None):
        super().__init__(state.taste, TasteModelChooser(seed), BUSY, WORDS, state, engine, runs, presets, clock=clock)

    def start(self, base: str, knobs: Sequence[tuple[str, float, float]], prompts: Sequence[PromptChoice],
              max_tokens: int | None = None, *, confidence: float = 0.9, precision: float = 0.1,
              max_rounds: int = 60) -> bool:
        """A new tuning of ``knobs`` (field, low, high) on top of preset ``base``; False (reported) if not."""
        def plan() -> TastePlan:
            preset = self.presets.get(base)
            return TastePlan(preset.name, preset.settings, tuple(Knob(*k) for k in knobs), tuple(prompts),
                             max_tokens or self.state.run_settings.max_tokens, confidence, precision, max_rounds)
        if not self._begin(plan):
            return False
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
        self.part.extend(round(min(0.99, plan.confidence + (1 - plan.confidence) / 2), 4),
                         min(max(plan.max_rounds, len(s.rounds)) + 20, MAX_TUNING_ROUNDS))
        self.next_round()

    def reset(self) -> None:
        """Back to choosing knobs (the votes of this tuning are dropped)."""
        self.pause()
        self.part.reset()
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
