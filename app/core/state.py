"""The playground's state, free of Qt: the one truth every widget binds to.

It holds the prompt, the lanes (:class:`app.core.lane_text.LaneText`: settings,
seed included, the preset they came from and the text tree of their runs), the
run options, the selected step, the model and the Model page's fields
(:class:`ModelForm`), what the engine is busy with and the ids of its run and
load.  Its parts are objects on it, each the only writer of its own fields
(:class:`app.core.changes.StatePart`): ``chat``, chat mode and special tokens
(app/core/chat.py); ``text``, every change of a lane's text (app/core/lane_text.py);
``jobs``, the fan and the sweep on show (app/core/jobs.py); ``radar``, the fork radar
(app/core/forks.py); ``ab``, the blind A/B test and its set-up (app/core/ab/state.py);
``taste``, the taste tuner and its set-up (app/core/ab/taste/state.py); ``session_file``,
the session's file, dirty flag and autosave failure (app/core/session_file.py); ``serving``, the
window's server, its served and override lanes (app/core/serving.py).  Every change, the parts' included, is
announced on the state's one bus to subscribers as a
:class:`app.core.changes.Change` of a :class:`app.core.changes.Changed` kind; widgets
redraw from the state and hold nothing of their own.  Methods that take user
values check them and raise ValueError (naming the value) before anything changes.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from types import EllipsisType

from app.core.ab.setup_choices import same_preset
from app.core.ab.state import ABPart
from app.core.ab.taste.state import TastePart
from app.core.changes import Change, Changed
from app.core.chat import ChatPart
from app.core.forks import RadarPart
from app.core.jobs import JobsPart
from app.core.lane_text import LaneText, LaneTextPart
from app.core.serving import ServingPart
from app.core.session_file import SessionFile
from app.engine.face.model_info import LoadRequest, ModelInfo
from app.engine.face.options import MAX_LANES, RunOptions
from app.engine.face.records import StepRecord
from sampler import SamplerSettings

Listener = Callable[[Change], None]


@dataclass(frozen=True)
class ModelForm:
    """The Model page's fields, as the writer left them (the page binds to them, holds none):
    what the next Load loads.  ``rpc`` and ``tensor_split`` stay as typed (parsed on Load, where
    a bad one is reported); ``recent`` lists the recently loaded models, newest first."""

    path: str | None = None  # the model loaded last (None: the bundled one)
    gpu_layers: int = -1  # -1: all the build can
    rpc: str = ""
    tensor_split: str = ""
    recent: tuple[str, ...] = ()


class PlaygroundState:
    """Prompt, lanes, run options, selection, model and engine status; emits a Change per edit."""

    def __init__(self, prompt: str = "", first_lane: SamplerSettings | None = None, preset: str | None = None):
        self._listeners: list[Listener] = []
        self.prompt = prompt
        self.lanes: list[LaneText] = [LaneText(first_lane or SamplerSettings(), preset)]
        self.current_lane = 0
        self.run_settings = RunOptions()
        self.selected: int | None = None  # the step every panel shows; None follows the newest
        self.model: ModelInfo | None = None
        self.model_form = ModelForm()
        #: The model the engine lost when its process crashed (None: none lost): the next run loads it again.
        self.lost_model: LoadRequest | None = None
        self.token_texts: tuple[str, ...] = ()
        self.busy = ""  # what the engine runs: "", "run", "fan", "task", "ab", "taste", "lookahead" or "sweep"
        self.loading = False
        #: The engine's jobs by id (its events carry the id, so a stopped job's late ones are told apart):
        #: the lanes' run in progress, the load in progress and what it loads, and the load the model came from.
        self.run_id: int | None = None
        self.load_id: int | None = None
        self.load_request: LoadRequest | None = None
        self.loaded_request: LoadRequest | None = None
        self.load_progress = (0.0, "")
        self.problem = ""
        self.status = ""  # the last run's end, or what a task found
        self.tokens_per_s = 0.0
        self.chat = ChatPart(self)  # token kinds, special tokens shown, chat mode (app/core/chat.py)
        self.text = LaneTextPart(self)  # every change of a lane's text (app/core/lane_text.py)
        self.ab = ABPart(self)  # the blind A/B test and its set-up (app/core/ab/state.py)
        self.taste = TastePart(self)  # the taste tuner and its set-up (app/core/ab/taste/state.py)
        self.jobs = JobsPart(self)  # the fan on show and the sweep on show (app/core/jobs.py)
        self.radar = RadarPart(self)  # fork radar, the lookahead on show, manual mode (app/core/forks.py)
        self.session_file = SessionFile(self)  # the session's file, dirty flag, autosave failure
        self.serving = ServingPart(self)  # the window's server (Run ▸ Serve): app/core/serving.py

    # -- listeners ---------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(change)`` on every change; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, what: Changed, lane: int | None = None) -> None:
        """Tell every subscriber; ``what`` must be a :class:`Changed` member (TypeError otherwise)."""
        change = Change(what, lane)
        for listener in list(self._listeners):
            listener(change)

    # -- prompt, options, problems ---------------------------------------------------

    def set_prompt(self, prompt: str) -> None:
        if prompt != self.prompt:
            self.prompt = prompt
            self.emit(Changed.PROMPT)

    def set_run_settings(self, **changes) -> None:
        """Change run options (checked first; ValueError names a bad one and changes nothing)."""
        new = self.run_settings.replace(**changes).within_window()
        if new != self.run_settings:
            self.run_settings = new
            self.accepted()
            self.emit(Changed.RUN_SETTINGS)

    def report(self, problem: str) -> None:
        """Show a problem (a rejected value, a failed load ...); "" clears it."""
        self.problem = problem
        self.emit(Changed.PROBLEM)

    def accepted(self) -> None:
        """An edit went through: a problem shown for an earlier one is stale, so it goes (refusals report)."""
        if self.problem:
            self.report("")

    def set_status(self, status: str, *, tokens_per_s: float | None = None) -> None:
        """The status line; ``tokens_per_s``: the speed of the run that just ended (kept otherwise)."""
        self.status = status
        self.tokens_per_s = self.tokens_per_s if tokens_per_s is None else tokens_per_s
        self.emit(Changed.STATUS)

    # -- lanes -------------------------------------------------------------------------

    def lane(self, index: int | None = None) -> LaneText:
        return self.lanes[self.current_lane if index is None else index]

    def add_lane(self, settings: SamplerSettings, preset: str | None = None, *, select: bool = True) -> int:
        if len(self.lanes) >= MAX_LANES:
            raise ValueError(f"lanes: at most {MAX_LANES}")
        self.lanes.append(LaneText(settings, preset))
        index = len(self.lanes) - 1
        self.accepted()
        self.emit(Changed.LANES)
        if select:
            self.set_current_lane(index)
        return index

    def remove_lane(self, index: int) -> None:
        if len(self.lanes) <= 1:
            raise ValueError("lanes: the last lane cannot be removed")
        del self.lanes[index]
        self.current_lane = min(self.current_lane, len(self.lanes) - 1)
        self.accepted()
        self.emit(Changed.LANES)
        self.emit(Changed.CURRENT_LANE)

    def replace_all(self, prompt: str, lanes: list[LaneText], run_settings: RunOptions, current_lane: int = 0,
                    selected: int | None = None) -> None:
        """Everything at once (an opened session); checked first: ValueError changes nothing."""
        if self.busy:
            raise ValueError("the engine is busy: stop it first")
        if not 1 <= len(lanes) <= MAX_LANES or not all(isinstance(lane, LaneText) for lane in lanes):
            raise ValueError(f"lanes: expected 1 to {MAX_LANES} lanes, got {len(lanes)}")
        if not isinstance(run_settings, RunOptions) or not 0 <= current_lane < len(lanes):
            raise ValueError(f"expected run settings and a lane from 1 to {len(lanes)}, got {current_lane + 1}")
        run_settings.within_window()
        revision = max(lane.revision for lane in self.lanes) + 1  # every view draws its lane's text again
        for lane in lanes:
            lane.revision, lane.run_id, lane.run_branch = revision, None, None
        self.prompt, self.lanes, self.run_settings = prompt, list(lanes), run_settings
        self.current_lane, self.selected = current_lane, selected
        for what in (Changed.PROMPT, Changed.RUN_SETTINGS, Changed.LANES, Changed.CURRENT_LANE, Changed.SELECTION):
            self.emit(what)
        for index in range(len(lanes)):
            self.emit(Changed.RECORDS, index)
            self.emit(Changed.BRANCH, index)

    def set_current_lane(self, index: int) -> None:
        if not 0 <= index < len(self.lanes):
            raise ValueError(f"lane: expected 1 to {len(self.lanes)}, got {index + 1}")
        if index != self.current_lane:
            self.current_lane = index
            self.emit(Changed.CURRENT_LANE)

    def set_lane_settings(self, index: int, settings: SamplerSettings, preset: str | None | EllipsisType = ...) -> None:
        """New settings for a lane; ``preset`` names the preset they came from (kept if omitted)."""
        if not isinstance(settings, SamplerSettings):
            raise TypeError(f"settings: expected SamplerSettings, got {type(settings).__name__}")
        lane = self.lanes[index]
        new_preset = lane.preset if preset is ... else preset
        if settings != lane.settings or new_preset != lane.preset:
            lane.settings, lane.preset = settings, new_preset
            self.accepted()
            self.emit(Changed.LANE_SETTINGS, index)

    def set_lane_name(self, index: int, name: str) -> None:
        """What lane ``index`` is called instead of its preset ("": its preset again)."""
        lane = self.lanes[index]
        if name != lane.name:
            lane.name = name
            self.emit(Changed.LANE_SETTINGS, index)

    def settings_refused(self, index: int) -> None:
        """A value for lane ``index`` was refused (reported already): its controls show the settings still in use."""
        if not 0 <= index < len(self.lanes):
            raise ValueError(f"lane: expected 1 to {len(self.lanes)}, got {index + 1}")
        self.emit(Changed.LANE_SETTINGS, index)

    def presets_changed(self) -> None:
        """The preset store changed (a preset saved, renamed, deleted or imported): preset lists read it again."""
        self.emit(Changed.PRESETS)

    def rename_preset(self, old: str, new: str | None) -> None:
        """Lanes that came from preset ``old`` (any case) now name ``new`` (None: the preset is gone); so do the
        A/B and taste set-ups' choices of it (a gone one stays chosen: Start reports it)."""
        for index, lane in enumerate(self.lanes):
            if same_preset(lane.preset, old):
                lane.preset = new
                self.emit(Changed.LANE_SETTINGS, index)
        if new is not None:
            self.ab.preset_renamed(old, new)
            self.taste.preset_renamed(old, new)

    # -- model and engine status ----------------------------------------------------------

    def set_busy(self, busy: str, run_id: int | None = None) -> None:
        """What the engine runs; ``run_id``: the lanes' run in progress (busy "run"; cleared otherwise)."""
        self.run_id = run_id if busy == "run" else None
        if busy != self.busy:
            self.busy = busy
            self.emit(Changed.BUSY)

    def begin_load(self, load_id: int, request: LoadRequest | None, message: str) -> None:
        """The engine loads ``request`` as job ``load_id`` (0, request None: the model it was given)."""
        self.load_id, self.load_request = load_id, request
        self.set_loading(True, message)

    def set_loading(self, loading: bool, message: str = "") -> None:
        """A load began or ended (an ended one's id is cleared: its late events are ignored)."""
        self.loading = loading
        self.load_id = self.load_id if loading else None
        self.load_progress = (0.0, message)
        self.emit(Changed.LOADING)

    def set_load_progress(self, fraction: float, message: str = "") -> None:
        self.load_progress = (fraction, message or self.load_progress[1])
        self.emit(Changed.LOAD_PROGRESS)

    def set_model(self, info: ModelInfo | None, token_texts: tuple[str, ...] = (), *,
                  lost: LoadRequest | None = None, request: LoadRequest | None = None) -> None:
        """The loaded model (None: none) and the ``request`` that loaded it; ``lost``: the load to
        repeat before the next run (a crash took it)."""
        self.model, self.token_texts = info, token_texts
        self.loaded_request = request if info is not None else None
        self.lost_model = lost if info is None else None
        self.emit(Changed.MODEL)

    def set_model_form(self, **changes) -> None:
        """Change fields of the Model page (:class:`ModelForm`); announced as MODEL_FORM."""
        new = dataclasses.replace(self.model_form, **changes)
        if not isinstance(new.gpu_layers, int) or new.gpu_layers < -1:
            raise ValueError(f"GPU layers: expected -1 (all) or more, got {new.gpu_layers!r}")
        if new != self.model_form:
            self.model_form = new
            self.emit(Changed.MODEL_FORM)

    def token_text(self, token: int) -> str:
        return self.token_texts[token] if 0 <= token < len(self.token_texts) else f"<{token}>"

    # -- runs and records -----------------------------------------------------------------

    def select(self, step: int | None) -> None:
        if step != self.selected:
            self.selected = step
            self.emit(Changed.SELECTION)

    def current_record(self, lane: int | None = None) -> StepRecord | None:
        """The selected record of a lane, or its newest when following."""
        records = self.lane(lane).records
        if not records:
            return None
        if self.selected is None:
            return records[-1]
        for rec in records:
            if rec.step == self.selected:
                return rec
        return records[min(max(self.selected, 0), len(records) - 1)]
