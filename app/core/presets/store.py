"""User presets, kept in a JSON file that several windows and processes may write at once.

Every change takes an inter-process lock (``presets.json.lock``, through ``filelock``), re-reads the
file under it (skipped when the file's signature is the one this store last read or wrote), applies
the one change, writes atomically (through a symbolic link: at its target) and lets go: two windows
saving at once both keep their preset.  Stale temporary files of a killed write are removed under the
same lock.  Reading is tolerant: a bad entry is set aside in ``presets.json.rejected-<time>`` (as it
was) and listed, every valid preset is kept; a file that is not a presets file is renamed to
``presets.json.corrupt-<time>``, its bytes untouched.  A newer version's file is left alone and writes
are refused.  When the lock cannot be taken, :meth:`PresetStore.load` still reads the file (repairing
nothing) and reports why, so the window can start.

Names are unique ignoring case; the built-in presets' names and keys are reserved.
"""
from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from filelock import FileLock

from app.core.config import config_dir
from app.fileio import aside_name, atomic_write, file_signature, read_limited, remove_stale_temps, same_file
from sampler import SamplerSettings

from . import codec
from .builtin import builtin_by_fold, builtin_presets
from .lock import LockGuard
from .names import Presets, new_name, unique_name, user_preset
from .preset import Preset, PresetFileError, PresetNotFound, clean_name, fold

FILE_NAME = "presets.json"
MAX_FILE_BYTES = 16 * 1024 * 1024
LOCK_TIMEOUT_S = 10.0
#: A store that just let go of the lock waits this long before taking it again,
#: so that another window waiting for it gets its turn (the lock is polled, not queued).
LOCK_COURTESY_S = 0.01


def default_path() -> Path:
    return config_dir() / FILE_NAME


class PresetStore:
    """The user's presets in ``path``; read on first use, re-read under the lock for every change."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()
        self._lock = FileLock(str(self.path) + ".lock", timeout=LOCK_TIMEOUT_S)
        self._presets: Presets = {}
        self._loaded = False
        self._blocked: str | None = None  # why writing would damage something
        self._released_at: float | None = None  # time.monotonic() when this store last let go of the lock
        self.problems: list[str] = []  # the problems the last read reported
        #: (the file's signature, its presets) as this store last read or wrote it without a problem.
        self._known: tuple[tuple | None, Presets] = (None, {})

    # -- reading ---------------------------------------------------------------------

    def load(self) -> list[str]:
        """(Re)read the file; return the problems found (empty when all is well).

        Never raises for a bad or unreadable file: if even the lock cannot be
        taken, the file is read as it is (nothing repaired) and that is a problem.
        """
        try:
            with self._locked():
                self._presets = self._read()
        except PresetFileError as exc:
            self._presets = self._read(repair=False)
            self.problems.insert(0, f"{exc}; read without the lock, nothing repaired")
        self._loaded = True
        return list(self.problems)

    def _locked(self):
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PresetFileError(self.path, f"its folder cannot be made ({exc.strerror or exc})") from None
        if self._released_at is not None:
            wait = self._released_at + LOCK_COURTESY_S - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        return LockGuard(self._lock, self.path, self)

    def _read(self, repair: bool = True) -> Presets:
        """The file's presets (the lock held when ``repair``); problems go to ``self.problems``.

        ``repair``: remove stale temporary files, set bad entries and unreadable files aside.
        """
        self.problems, self._blocked = [], None
        if repair:
            remove_stale_temps(self.path)
        signature = file_signature(self.path)
        if signature is not None and signature == self._known[0]:
            return dict(self._known[1])  # the file as this store last read or wrote it: no need to decode it
        try:
            decoded = codec.decode(read_limited(self.path, MAX_FILE_BYTES), strict=True)
        except FileNotFoundError:
            return {}
        except codec.NewerVersion as exc:
            self._blocked = f"{exc}; it is left as it is and not written"
            self.problems.append(f"{self.path}: {self._blocked}")
            return {}
        except (OSError, ValueError) as exc:
            reason = f"cannot be read ({exc.strerror or exc})" if isinstance(exc, OSError) else str(exc)
            self.problems.append(f"{self.path}: {reason}")
            if repair:
                self._move_aside()
            return {}
        presets = self._rename_reserved(decoded.presets)
        if decoded.bad and repair:
            self._set_aside(decoded.bad, presets)
        else:
            self.problems.extend(f"{self.path}: {b.reason} — left out" for b in decoded.bad)
        if not self.problems:
            self._known = (signature, dict(presets))
        return presets

    def _set_aside(self, bad: list[codec.BadEntry], good: Presets) -> None:
        """Move bad entries to a file of their own, then rewrite the file with the good ones."""
        target = aside_name(self.path, "rejected")
        try:
            atomic_write(target, codec.encode_rejected(bad))
            atomic_write(self.path, codec.encode(good.values()))
            where = f"kept in {target.name}"
        except (OSError, ValueError, RecursionError) as exc:
            where = f"could not be kept aside ({getattr(exc, 'strerror', None) or exc})"
            self._blocked = f"bad entries {where}; not writing over them"
        for b in bad:
            self.problems.append(f"{self.path}: {b.reason} — left out, {where}")

    def _move_aside(self) -> None:
        backup = aside_name(self.path, "corrupt")
        try:
            os.rename(self.path, backup)
        except OSError as exc:
            self._blocked = f"the unreadable file could not be moved aside ({exc.strerror or exc}); not overwriting it"
            self.problems.append(f"{self.path}: {self._blocked}")
            return
        self.problems.append(f"{self.path}: moved aside to {backup.name}; starting with no user presets")

    def _rename_reserved(self, presets: list[Preset]) -> Presets:
        out: Presets = {}
        taken = {fold(p.name) for p in presets}
        for p in presets:
            if fold(p.name) in builtin_by_fold():  # a hand edit, or a built-in added in a newer version
                new = unique_name(p.name, taken | set(out))
                self.problems.append(f"{self.path}: preset {p.name!r} has the name of a built-in preset; loaded as {new!r}")
                p = dataclasses.replace(p, key=new, name=new)
            out[fold(p.name)] = p
        return out

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self.load()

    def names(self) -> list[str]:
        """The user presets' names, in file order (built-ins not included)."""
        self._ensure_loaded()
        return [p.name for p in self._presets.values()]

    def presets(self) -> list[Preset]:
        self._ensure_loaded()
        return list(self._presets.values())

    def all_presets(self) -> list[Preset]:
        """The built-in presets, then the user's."""
        return list(builtin_presets()) + self.presets()

    def get(self, name: str) -> Preset:
        """A user preset by name (ignoring case), else a built-in one by name or key."""
        self._ensure_loaded()
        key = fold(name) if isinstance(name, str) else None
        found = self._presets.get(key) or (builtin_by_fold().get(key) if key is not None else None)
        if found is None:
            raise PresetNotFound(name)
        return found

    def __contains__(self, name) -> bool:
        self._ensure_loaded()
        return isinstance(name, str) and fold(name) in self._presets

    def __len__(self) -> int:
        self._ensure_loaded()
        return len(self._presets)

    # -- writing ---------------------------------------------------------------------

    def _change(self, change: Callable[[Presets], tuple[Presets, object]]):
        """Under the lock: re-read, ``change(current) -> (new presets, result)``, write, keep."""
        with self._locked():
            current = self._read()
            if self._blocked:
                raise PresetFileError(self.path, self._blocked)
            presets, result = change(current)
            try:
                atomic_write(self.path, codec.encode(presets.values()))
            except OSError as exc:  # the file is as it was: what the store knows of it still holds
                raise PresetFileError(self.path, f"could not be written ({exc.strerror or exc})") from exc
            self._presets, self._loaded = presets, True
            self._known = (file_signature(self.path), dict(presets))
        return result

    def save(self, name: str, settings: SamplerSettings, description: str = "", overwrite: bool = False,
             report: tuple[str, ...] = ()) -> Preset:
        """Store ``settings`` under ``name``; an existing user preset is replaced only with ``overwrite``.
        ``report``: the import report of another tool's file, kept with the preset."""
        if not isinstance(settings, SamplerSettings):
            raise TypeError(f"settings: expected SamplerSettings, got {type(settings).__name__}")
        if not isinstance(description, str):
            raise ValueError(f"description: expected text, got {description!r}")

        clean = clean_name(name)
        report = tuple(report)
        codec.check_storable(Preset(clean, clean, description, settings, builtin=False, report=report))  # it must load back

        def change(current: Presets):
            clean = new_name(name, current, overwrite=overwrite)
            preset = Preset(clean, clean, description, settings, builtin=False, report=report)
            return {**current, fold(clean): preset}, preset  # an overwritten preset keeps its place

        return self._change(change)

    def rename(self, old: str, new: str) -> Preset:
        """Give a user preset a new name (it keeps its place in the list)."""

        def change(current: Presets):
            preset = user_preset(current, old, "renamed")
            old_key = fold(preset.name)
            clean = new_name(new, current, replacing=old_key)
            renamed = dataclasses.replace(preset, key=clean, name=clean)
            return {(fold(clean) if k == old_key else k): (renamed if k == old_key else p)
                    for k, p in current.items()}, renamed

        return self._change(change)

    def duplicate(self, name: str, new: str) -> Preset:
        """Copy a user or built-in preset under a new name."""

        def change(current: Presets):
            source = current.get(fold(name)) or builtin_by_fold().get(fold(name))
            if source is None:
                raise PresetNotFound(name)
            clean = new_name(new, current)
            copy = Preset(clean, clean, source.description, source.settings, builtin=False, report=source.report)
            return {**current, fold(clean): copy}, copy

        return self._change(change)

    def delete(self, name: str) -> None:
        def change(current: Presets):
            preset = user_preset(current, name, "deleted")
            return {k: p for k, p in current.items() if k != fold(preset.name)}, None

        self._change(change)

    def import_file(self, path: str | os.PathLike) -> list[str]:
        """Add the presets of a file (all or none); return their names as stored.

        A name already used gets a `` (2)``, `` (3)``... suffix.
        """
        path = Path(path)
        try:
            decoded = codec.decode(read_limited(path, MAX_FILE_BYTES), strict=False)
        except OSError as exc:
            raise PresetFileError(path, f"cannot be read ({exc.strerror or exc})") from None
        except ValueError as exc:
            raise PresetFileError(path, str(exc)) from None
        if decoded.bad:
            raise PresetFileError(path, "; ".join(b.reason for b in decoded.bad))
        if not decoded.presets:
            return []

        def change(current: Presets):
            presets, names = dict(current), []
            for p in decoded.presets:
                name = unique_name(p.name, set(presets))
                presets[fold(name)] = dataclasses.replace(p, key=name, name=name)
                names.append(name)
            return presets, names

        return self._change(change)

    def export_file(self, path: str | os.PathLike, names: Iterable[str] | None = None) -> None:
        """Write presets (all user presets, or the named user or built-in ones) to ``path`` atomically."""
        self._ensure_loaded()
        path = Path(path)
        if isinstance(names, str):
            raise ValueError(f"names: expected a list of preset names, got the string {names!r}")
        names = None if names is None else list(names)
        chosen = list(self._presets.values()) if names is None else [self.get(n) for n in names]
        if len({fold(p.name) for p in chosen}) != len(chosen):
            raise ValueError(f"names: a preset is named twice in {names!r}")
        if same_file(path, self.path) or path.resolve() == self.path.resolve():
            raise ValueError(f"export path {str(path)!r} is the store's own file")
        try:
            atomic_write(path, codec.encode(chosen))
        except OSError as exc:
            raise PresetFileError(path, f"could not be written ({exc.strerror or exc})") from exc
