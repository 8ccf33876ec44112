"""The user's presets: save, rename, duplicate, delete, their JSON files, and another tool's preset imported
with its per-field report (applied to the edited lane, or saved and applied).  The window's Presets menu
(app/ui/controllers/presets.py, tool_presets.py) only asks for names and files; the command line's
``preset convert`` reads other tools' files through :func:`read_tool_preset`.

Each change goes to the store first (:class:`app.core.presets.PresetStore`, which checks it), then the state
is told (``presets_changed``, lanes that named a renamed or deleted preset); a refusal is one line through
``state.report`` and changes nothing.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from app.actions.lanes import LaneActions
from app.core.formats import FormatError, Imported, read_preset
from app.core.presets import Preset, PresetFileError, PresetStore
from app.core.state import PlaygroundState
from app.fileio import read_limited
from sampler.knobs import KnobEffect, knob_effects
from sampler.stockfit import steps_from_records

#: The largest preset file of another tool that is read.
MAX_TOOL_PRESET_BYTES = 16 * 2**20

T = TypeVar("T")


def read_tool_preset(path: str | os.PathLike, format: str | None = None) -> Imported:
    """Another tool's preset file (``format``: its name in :data:`app.core.formats.FORMATS`, default guessed
    from the name and content), with the report of each field; FormatError, one line naming the file or the bad
    field and its value, if not."""
    try:
        data = read_limited(path, MAX_TOOL_PRESET_BYTES)
    except (OSError, ValueError) as exc:
        raise FormatError(f"{path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    return read_preset(str(path), data, format)


class PresetActions:
    def __init__(self, state: PlaygroundState, presets: PresetStore, lanes: LaneActions):
        self.state = state
        self.store = presets
        self.lanes = lanes  # a saved or imported preset goes to the edited lane through them (and to its run)
        self.idle_lines: tuple[str, ...] = ()  # the last "knobs that did nothing", for the next saved preset

    def load(self) -> list[str]:
        """Read the store (a damaged entry is set aside by it): its problems, reported on one line."""
        problems = self.store.load()
        if problems:
            self.state.report("Presets: " + "; ".join(problems))
        return problems

    def _change(self, change: Callable[[], T]) -> T | None:
        """Make one change of the store; a refusal is reported and None returned."""
        try:
            result = change()
        except (ValueError, KeyError, OSError, PresetFileError) as exc:
            # A bare KeyError's str() quotes its message (PresetNotFound says its own); stripping quotes
            # off every message also took the closing quote of one that ends in a quoted name.
            self.state.report(str(exc.args[0]) if type(exc) is KeyError and exc.args else str(exc))
            return None
        self.state.accepted()
        self.state.presets_changed()
        return result

    # -- the user's presets ----------------------------------------------------------------------

    def save(self, name: str, *, description: str = "saved from the playground",
             report: tuple[str, ...] | None = None) -> Preset | None:
        """The edited lane's settings as preset ``name`` (a new one), which the lane names from now on.
        ``report``: lines kept with the preset (default: the knobs :meth:`idle_knobs` found doing nothing)."""
        report = self.idle_lines if report is None else report
        index = self.state.current_lane
        settings = self.state.lane(index).settings
        preset = self._change(lambda: self.store.save(name, settings, description, False, tuple(report)))
        if preset is not None:
            self.lanes.set_settings(index, settings, preset.name)
        return preset

    def rename(self, old: str, new: str) -> Preset | None:
        """A user preset's new name; lanes (and the A/B and taste set-ups) that named it follow."""
        renamed = self._change(lambda: self.store.rename(old, new))
        if renamed is not None:
            self.state.rename_preset(old, renamed.name)
        return renamed

    def duplicate(self, name: str, new: str) -> Preset | None:
        """A copy of a user or built-in preset under a new name."""
        return self._change(lambda: self.store.duplicate(name, new))

    def delete(self, name: str) -> bool:
        """Delete a user preset; lanes that named it keep their settings, named by none."""
        def delete() -> bool:
            self.store.delete(name)
            return True

        deleted = self._change(delete)
        if deleted:
            self.state.rename_preset(name, None)
        return bool(deleted)

    def import_file(self, path: str | os.PathLike) -> list[str] | None:
        """Add the presets of one of our presets files (all or none): their names as stored, or None."""
        names = self._change(lambda: self.store.import_file(path))
        if names is not None:
            self.state.set_status(f"Imported presets from {path}")
        return names

    def export_file(self, path: str | os.PathLike) -> bool:
        """Write every user preset to ``path``."""
        def export() -> bool:
            self.store.export_file(path)
            return True

        done = self._change(export)
        if done:
            self.state.set_status(f"Exported presets to {path}")
        return bool(done)

    def idle_knobs(self) -> list[KnobEffect]:
        """Each active stage's share of the edited lane's steps where it changed the kept set / the token
        (computed now, only when asked); the idle ones' lines go into the report of the next preset saved."""
        lane = self.state.lane()
        logits, _q = steps_from_records([r for r in lane.records if not r.forced])
        effects = knob_effects(lane.settings, list(logits)) if len(logits) else []
        self.idle_lines = tuple(f"{e.stage}: did nothing ({e.kept_share:.1%} of {e.n_steps} steps changed the kept "
                                f"set, {e.token_share:.1%} the token)" for e in effects if e.idle)
        return effects

    # -- another tool's presets -------------------------------------------------------------------

    def read_tool(self, path: str | os.PathLike) -> Imported | None:
        """Another tool's preset file with its report, or None (reported: one line naming the file and field)."""
        try:
            return read_tool_preset(path)
        except FormatError as exc:
            self.state.report(str(exc))
            return None

    def use_tool(self, path: str | os.PathLike, imported: Imported, *, save: bool, name: str | None = None) -> bool:
        """The edited lane takes an imported preset's settings (but keeps those the file leaves unset, its report's
        ``kept``: a llama.cpp line without ``-s`` keeps the lane's seed); with ``save`` it is first kept as preset
        ``name`` (default: the file's name) with the import's report.  False, and nothing changed, if it cannot be
        saved."""
        file_name = Path(path).name
        lane = self.state.lane()
        settings = imported.settings.replace(**{f: getattr(lane.settings, f) for f in imported.report.kept})
        preset_name = None
        if save:
            preset = self._change(lambda: self.store.save(
                name or Path(path).stem, settings, f"imported from {file_name} ({imported.report.format})",
                False, imported.report.lines()))
            if preset is None:
                return False
            preset_name = preset.name
        self.lanes.set_settings(self.state.current_lane, settings, preset_name)
        self.state.set_status(f"Imported {file_name} as {imported.report.format}: {imported.report.summary()}")
        return True

    def import_tool(self, path: str | os.PathLike, *, save: bool, name: str | None = None) -> bool:
        """:meth:`read_tool` then :meth:`use_tool` (no one is asked in between)."""
        imported = self.read_tool(path)
        return imported is not None and self.use_tool(path, imported, save=save, name=name)
