"""Lanes and their settings: edits, presets, seeds, adding and removing lanes."""
from __future__ import annotations

import random

from app.core.presets import PresetNotFound, PresetStore
from app.core.state import PlaygroundState
from sampler import SamplerSettings

#: The built-in preset a "+ Baseline" lane starts from.
BASELINE_PRESET = "Off (llama.cpp defaults)"
MAX_SEED = 2**31 - 1


def check_in_vocabulary(biases, model) -> None:
    """ValueError naming a logit bias for a token past the loaded model's vocabulary (llama.cpp skips
    such an entry without a word, so the writer would think it works; no model: nothing to check)."""
    if model is None:
        return
    past = [token for token, _bias in biases if token >= model.n_vocab]
    if past:
        raise ValueError(f"--logit-bias: token {past[0]} is past the model's vocabulary "
                         f"(ids 0 to {model.n_vocab - 1})")


class LaneActions:
    def __init__(self, state: PlaygroundState, presets: PresetStore, runs):
        self.state = state
        self.presets = presets
        self.runs = runs  # RunActions: settings changed during a run go to the engine

    # -- settings ----------------------------------------------------------------------------

    def set_settings(self, index: int, settings: SamplerSettings, preset=...) -> None:
        """Use ``settings`` in a lane (and in the run in progress, from its next step)."""
        self.state.set_lane_settings(index, settings, preset)
        self.runs.send_settings(index)

    def edit(self, field: str, value, index: int | None = None) -> bool:
        """Change one setting of a lane (the edited lane by default); False if it was rejected.

        A rejected value changes nothing: the problem is reported and views are
        told to show the value still in use.
        """
        index = self.state.current_lane if index is None else index
        try:
            settings = self.state.lanes[index].settings.with_value(field, value)
            if field == "logit_bias":
                check_in_vocabulary(settings.logit_bias, self.state.model)
        except ValueError as exc:
            self.state.report(str(exc))
            self.state.settings_refused(index)
            return False
        self.state.report("")
        self.set_settings(index, settings)
        return True

    def apply_preset(self, index: int, name: str) -> None:
        """A lane takes a preset's settings, keeping its own seed."""
        try:
            preset = self.presets.get(name)
        except PresetNotFound as exc:
            self.state.report(str(exc))
            return
        seed = self.state.lanes[index].settings.seed
        self.set_settings(index, preset.settings.replace(seed=seed), preset.name)

    def label(self, index: int) -> str:
        """The lane's name if it has one (a served request's lane), else its preset's, marked when its settings
        changed since (the seed aside)."""
        lane = self.state.lanes[index]
        if lane.name:
            return lane.name
        if lane.preset is None:
            return "(custom)"
        try:
            preset = self.presets.get(lane.preset)
        except PresetNotFound:
            return f"{lane.preset} (deleted)"
        same = preset.settings.replace(seed=lane.settings.seed) == lane.settings
        return preset.name if same else f"{preset.name} (edited)"

    # -- lanes ---------------------------------------------------------------------------------

    def fresh_seed(self) -> int:
        """A seed no lane uses yet."""
        taken = {lane.settings.seed for lane in self.state.lanes}
        seed = random.randrange(MAX_SEED)
        while seed in taken:
            seed = random.randrange(MAX_SEED)
        return seed

    def add(self) -> int:
        """A copy of the edited lane with a seed of its own (so that it writes its own text)."""
        lane = self.state.lane()
        return self._add(lane.settings.replace(seed=self.fresh_seed()), lane.preset, select=True)

    def add_baseline(self) -> int:
        """A plain-temperature lane with the edited lane's seed and temperature; the edited lane stays."""
        lane = self.state.lane()
        base = self.presets.get(BASELINE_PRESET).settings
        settings = base.replace(seed=lane.settings.seed, temp=lane.settings.temp)
        return self._add(settings, BASELINE_PRESET, select=False)

    def _add(self, settings: SamplerSettings, preset: str | None, *, select: bool) -> int:
        if self.state.busy:
            return -1
        try:
            return self.state.add_lane(settings, preset, select=select)
        except ValueError as exc:
            self.state.report(str(exc))
            return -1

    def remove(self, index: int) -> None:
        if self.state.busy:
            return
        try:
            self.state.remove_lane(index)
        except ValueError as exc:
            self.state.report(str(exc))

    def new_seeds(self) -> None:
        """Fresh seeds for every lane; lanes that shared a seed still share one."""
        mapping: dict[int, int] = {}
        for i, lane in enumerate(self.state.lanes):
            seed = mapping.setdefault(lane.settings.seed, self.fresh_seed())
            self.set_settings(i, lane.settings.replace(seed=seed))
