"""User presets: named sampler settings kept in a JSON file in the user's config folder.

Qt-free.  The file (``presets.json``) looks like::

    {"format": "scatter-playground-presets", "version": 1,
     "presets": [{"name": "...", "description": "...", "settings": {...}}]}

``settings`` holds every :class:`~sampler.SamplerSettings` field (the scatter
parameters nested under ``"scatter"``, the order as a list of stage names),
so a preset round-trips exactly, ``min_keep`` included (llama-cli has no flag
for it, which is why the flag string is not the stored form).  Imported files
may also give an entry as ``"flags": "<llama.cpp flags>"`` instead of
``"settings"`` (the form of ``assets/presets/builtin.json``), or be a bare list
of entries.

Safety rules:

* every write goes to a temporary file in the same folder, is flushed and
  fsynced, then ``os.replace``-d over the old file, so a crash leaves either
  the old or the new file, never half of one; the in-memory store changes
  only once the write has succeeded;
* a file that cannot be read or is not a valid presets file is reported by
  :meth:`PresetStore.load`, renamed to ``presets.json.corrupt-YYYYmmdd-HHMMSS``
  (its bytes untouched) and the store starts empty; if it cannot be renamed,
  the store refuses to write rather than overwrite it;
* if the file changed on disk since this store last read or wrote it (another
  window, a hand edit), writes are refused until :meth:`PresetStore.load` is
  called again.

Names are stripped, non-empty, at most :data:`MAX_NAME_LENGTH` characters,
without control characters, and unique ignoring case.  The names and keys of
the built-in presets (:func:`app.builtin_presets.builtin_presets`) are
reserved: no user preset can take, overwrite, rename or delete them.
"""
from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import time
import unicodedata
from pathlib import Path
from typing import Iterable

from app.builtin_presets import Preset, builtin_presets
from sampler import SamplerSettings, ScatterParams
from sampler.flags import FlagError, parse_flags

__all__ = [
    "CONFIG_ENV", "FILE_FORMAT", "FILE_VERSION", "MAX_NAME_LENGTH", "PresetFileError", "PresetNotFound",
    "PresetStore", "default_path", "settings_from_dict", "settings_to_dict",
]

FILE_FORMAT = "scatter-playground-presets"
FILE_VERSION = 1
FILE_NAME = "presets.json"
#: Environment variable naming the config folder (overrides the platform's).
CONFIG_ENV = "SCATTER_PLAYGROUND_CONFIG"
MAX_NAME_LENGTH = 100
#: Files larger than this are not presets files (refused on import and load).
MAX_FILE_BYTES = 16 * 1024 * 1024


class PresetFileError(Exception):
    """A presets file that cannot be read, parsed or written; names the file and the reason."""

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class PresetNotFound(KeyError):
    """No preset has this name."""

    def __init__(self, name: str):
        self.name = name
        super().__init__(name)

    def __str__(self) -> str:
        return f"no preset named {self.name!r}"


def default_path() -> Path:
    """``$SCATTER_PLAYGROUND_CONFIG/presets.json``, else the platform's user config folder."""
    folder = os.environ.get(CONFIG_ENV, "").strip()
    if not folder:
        import platformdirs

        folder = platformdirs.user_config_dir("scatter-playground")
    return Path(folder).expanduser() / FILE_NAME


# ---------------------------------------------------------------------------
# Settings <-> JSON
# ---------------------------------------------------------------------------

_SETTINGS_FIELDS = {f.name: f for f in dataclasses.fields(SamplerSettings)}
_SCATTER_FIELDS = {f.name: f for f in dataclasses.fields(ScatterParams)}


def settings_to_dict(settings: SamplerSettings) -> dict:
    """Every field of ``settings`` as JSON-ready values (scatter nested)."""
    out: dict = {}
    for name in _SETTINGS_FIELDS:
        value = getattr(settings, name)
        if name == "scatter":
            value = {k: getattr(value, k) for k in _SCATTER_FIELDS}
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


def _check_value(where: str, key: str, value, default):
    """Type check against the default's type (the dataclasses' own checks do the ranges)."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError(f"{where}.{key}: expected true or false, got {value!r}")
    elif isinstance(default, (int, float)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{where}.{key}: expected a number, got {value!r}")
        if isinstance(default, int) and isinstance(value, float):
            if not value.is_integer():
                raise ValueError(f"{where}.{key}: expected an integer, got {value!r}")
            value = int(value)
    elif isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{where}.{key}: expected a list of strings, got {value!r}")
        value = tuple(value)
    return value


def settings_from_dict(data, where: str = "settings") -> SamplerSettings:
    """The settings a :func:`settings_to_dict` dict describes.

    Missing keys take llama.cpp's defaults; unknown keys, wrong types and
    invalid values raise ValueError naming the key (or flag) and the value.
    """
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object, got {type(data).__name__}")
    default = SamplerSettings()
    unknown = sorted(set(data) - set(_SETTINGS_FIELDS))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    kwargs = {}
    for key, value in data.items():
        if key == "scatter":
            if not isinstance(value, dict):
                raise ValueError(f"{where}.scatter: expected an object, got {value!r}")
            bad = sorted(set(value) - set(_SCATTER_FIELDS))
            if bad:
                raise ValueError(f"{where}.scatter: unknown key(s) {', '.join(map(repr, bad))}")
            sk = {k: _check_value(f"{where}.scatter", k, v, getattr(default.scatter, k)) for k, v in value.items()}
            try:
                kwargs["scatter"] = ScatterParams(**sk)
            except ValueError as exc:
                raise ValueError(f"{where}.scatter: {exc}") from None
        else:
            kwargs[key] = _check_value(where, key, value, getattr(default, key))
    try:
        return SamplerSettings(**kwargs)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------


def _clean_name(name) -> str:
    if not isinstance(name, str):
        raise ValueError(f"preset name: expected text, got {name!r}")
    clean = name.strip()
    if not clean:
        raise ValueError(f"preset name: must not be empty, got {name!r}")
    if len(clean) > MAX_NAME_LENGTH:
        raise ValueError(f"preset name: at most {MAX_NAME_LENGTH} characters, got {len(clean)} ({clean[:40]!r}...)")
    bad = [c for c in clean if unicodedata.category(c) == "Cc"]
    if bad:
        raise ValueError(f"preset name: must not contain control characters, got {name!r}")
    return clean


def _fold(name: str) -> str:
    return name.strip().casefold()


def _builtin_by_fold() -> dict[str, Preset]:
    out = {}
    for p in builtin_presets():
        out[_fold(p.name)] = p
        out[_fold(p.key)] = p
    return out


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def _encode(presets: Iterable[Preset]) -> bytes:
    doc = {
        "format": FILE_FORMAT,
        "version": FILE_VERSION,
        "presets": [
            {"name": p.name, "description": p.description, "settings": settings_to_dict(p.settings)}
            for p in presets
        ],
    }
    return (json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def _parse_entry(entry, index: int) -> Preset:
    where = f"preset #{index + 1}"
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected an object, got {type(entry).__name__}")
    unknown = sorted(set(entry) - {"name", "description", "settings", "flags", "key"})
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    if "name" not in entry:
        raise ValueError(f"{where}: has no name")
    try:
        name = _clean_name(entry["name"])
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    where = f"preset {name!r}"
    description = entry.get("description", "")
    if not isinstance(description, str):
        raise ValueError(f"{where}: description: expected text, got {description!r}")
    if ("settings" in entry) == ("flags" in entry):
        raise ValueError(f"{where}: needs exactly one of 'settings' or 'flags'")
    if "settings" in entry:
        settings = settings_from_dict(entry["settings"], f"{where}: settings")
    else:
        flags = entry["flags"]
        if not isinstance(flags, str):
            raise ValueError(f"{where}: flags: expected text, got {flags!r}")
        try:
            settings, rest = parse_flags(flags)
        except FlagError as exc:
            raise ValueError(f"{where}: flags: {exc}") from None
        if rest:
            raise ValueError(f"{where}: flags: unexpected argument(s) {' '.join(rest)!r}")
    return Preset(name, name, description, settings, builtin=False)


def _parse_document(raw: bytes, *, strict: bool) -> list[Preset]:
    """The presets in a file's bytes; ValueError says what is wrong.

    ``strict`` (the store's own file) requires the format header; imports also
    accept a bare list of entries.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise ValueError("not JSON (nested too deeply)") from None
    if isinstance(doc, list) and not strict:
        entries = doc
    elif isinstance(doc, dict):
        fmt = doc.get("format")
        if fmt != FILE_FORMAT and (strict or fmt is not None):
            raise ValueError(f"not a presets file (format {fmt!r}, expected {FILE_FORMAT!r})")
        if strict and "version" not in doc:
            raise ValueError("has no format version")
        version = doc.get("version")
        if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
            raise ValueError(f"bad format version {version!r}")
        if version is not None and version > FILE_VERSION:
            raise ValueError(f"written by a newer Scatter Playground (format version {version}, this one reads {FILE_VERSION})")
        if version is not None and version < 1:
            raise ValueError(f"bad format version {version!r}")
        unknown = sorted(set(doc) - {"format", "version", "presets"})
        if unknown:
            raise ValueError(f"unknown key(s) {', '.join(map(repr, unknown))}")
        if "presets" not in doc:
            raise ValueError("has no 'presets' list")
        entries = doc["presets"]
        if not isinstance(entries, list):
            raise ValueError(f"'presets': expected a list, got {type(entries).__name__}")
    else:
        raise ValueError(f"expected a presets object{'' if strict else ' or list'}, got {type(doc).__name__}")
    presets = [_parse_entry(entry, i) for i, entry in enumerate(entries)]
    seen: dict[str, str] = {}
    for p in presets:
        if _fold(p.name) in seen:
            raise ValueError(f"preset name {p.name!r} appears twice (as {seen[_fold(p.name)]!r} too)")
        seen[_fold(p.name)] = p.name
    return presets


def _read_limited(path: Path) -> bytes:
    with open(path, "rb") as f:
        raw = f.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise ValueError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB: not a presets file")
    return raw


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a fsynced temporary file in the same folder and ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
        except OSError:
            pass  # no old file (or no permission to read it): keep mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def _signature(path: Path):
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        return "unreadable"
    return (st.st_ino, st.st_size, st.st_mtime_ns)


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------


class PresetStore:
    """The user's presets, kept in ``path``; loaded from disk on first use."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()
        self._presets: dict[str, Preset] = {}  # folded name -> preset, in file order
        self._loaded = False
        self._blocked: str | None = None  # why writing would be unsafe
        self._sig = None
        #: The problems the last :meth:`load` reported.
        self.problems: list[str] = []

    # -- reading ---------------------------------------------------------------

    def load(self) -> list[str]:
        """(Re)read the file; returns the problems found (empty when all is well).

        A missing file is an empty store.  A file that cannot be read or is
        not a valid presets file is moved aside to a ``.corrupt-<time>`` name
        (reported) and the store starts empty.
        """
        self._presets = {}
        self._loaded = True
        self._blocked = None
        self.problems = []
        try:
            raw = _read_limited(self.path)
            presets = _parse_document(raw, strict=True)
        except FileNotFoundError:
            self._sig = None
            return []
        except (OSError, ValueError) as exc:
            reason = f"cannot read it ({exc.strerror or exc})" if isinstance(exc, OSError) else str(exc)
            self.problems.append(f"{self.path}: {reason}")
            self._move_aside()
            return list(self.problems)
        reserved = _builtin_by_fold()
        for p in presets:
            if _fold(p.name) in reserved:  # a hand edit, or a built-in added in a newer version
                new = self._unique_name(p.name, taken={_fold(q.name) for q in presets} | set(self._presets))
                self.problems.append(
                    f"{self.path}: preset {p.name!r} has the name of a built-in preset; loaded as {new!r}"
                )
                p = dataclasses.replace(p, key=new, name=new)
            self._presets[_fold(p.name)] = p
        self._sig = _signature(self.path)
        return list(self.problems)

    def _move_aside(self) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 2
        while os.path.lexists(backup):
            backup = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
            n += 1
        try:
            os.rename(self.path, backup)
        except OSError as exc:
            self._blocked = f"the unreadable file could not be moved aside ({exc.strerror or exc}); not overwriting it"
            self.problems.append(f"{self.path}: {self._blocked}")
            self._sig = "blocked"
            return
        self.problems.append(f"{self.path}: moved aside to {backup.name}; starting with no user presets")
        self._sig = None

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

    def get(self, name: str) -> Preset:
        """A user preset by name (ignoring case), else a built-in one by name or key."""
        self._ensure_loaded()
        key = _fold(name) if isinstance(name, str) else None
        if key in self._presets:
            return self._presets[key]
        builtin = _builtin_by_fold().get(key) if key is not None else None
        if builtin is not None:
            return builtin
        raise PresetNotFound(name)

    def __contains__(self, name) -> bool:
        self._ensure_loaded()
        return isinstance(name, str) and _fold(name) in self._presets

    def __len__(self) -> int:
        self._ensure_loaded()
        return len(self._presets)

    # -- writing ---------------------------------------------------------------

    def _user(self, name: str, action: str) -> Preset:
        self._ensure_loaded()
        key = _fold(name) if isinstance(name, str) else None
        if key in self._presets:
            return self._presets[key]
        if key is not None and key in _builtin_by_fold():
            raise ValueError(f"preset {name!r} is built in and cannot be {action}")
        raise PresetNotFound(name)

    def _new_name(self, name, *, replacing: str | None = None, overwrite: bool = False) -> str:
        """A valid name free for a new preset (``replacing``: the folded name being renamed)."""
        clean = _clean_name(name)
        key = _fold(clean)
        if key in _builtin_by_fold():
            raise ValueError(f"preset name {clean!r} is taken by a built-in preset; choose another name")
        if key in self._presets and key != replacing and not overwrite:
            raise ValueError(f"a preset named {self._presets[key].name!r} already exists")
        return clean

    def _unique_name(self, name: str, taken: set[str] | None = None) -> str:
        taken = set(self._presets) if taken is None else taken
        reserved = _builtin_by_fold()
        base = name[: MAX_NAME_LENGTH - 8]
        candidate, n = name, 2
        while _fold(candidate) in taken or _fold(candidate) in reserved:
            candidate = f"{base} ({n})"
            n += 1
        return candidate

    def _commit(self, presets: dict[str, Preset]) -> None:
        """Write ``presets`` atomically, then make them the store's."""
        if self._blocked:
            raise PresetFileError(self.path, self._blocked)
        if _signature(self.path) != self._sig:
            raise PresetFileError(
                self.path, "changed on disk since it was loaded; reload the presets before changing them"
            )
        try:
            atomic_write(self.path, _encode(presets.values()))
        except OSError as exc:
            raise PresetFileError(self.path, f"could not be written ({exc.strerror or exc})") from exc
        self._presets = presets
        self._sig = _signature(self.path)

    def save(self, name: str, settings: SamplerSettings, description: str = "", overwrite: bool = False) -> Preset:
        """Store ``settings`` under ``name``; an existing user preset is replaced only with ``overwrite``."""
        self._ensure_loaded()
        if not isinstance(settings, SamplerSettings):
            raise TypeError(f"settings: expected SamplerSettings, got {type(settings).__name__}")
        if not isinstance(description, str):
            raise ValueError(f"description: expected text, got {description!r}")
        clean = self._new_name(name, overwrite=overwrite)
        preset = Preset(clean, clean, description, settings, builtin=False)
        presets = dict(self._presets)
        presets[_fold(clean)] = preset  # an overwritten preset keeps its place
        self._commit(presets)
        return preset

    def rename(self, old: str, new: str) -> Preset:
        """Give a user preset a new name (it keeps its place in the list)."""
        preset = self._user(old, "renamed")
        old_key = _fold(preset.name)
        clean = self._new_name(new, replacing=old_key)
        renamed = dataclasses.replace(preset, key=clean, name=clean)
        presets = {(_fold(clean) if k == old_key else k): (renamed if k == old_key else p)
                   for k, p in self._presets.items()}
        self._commit(presets)
        return renamed

    def duplicate(self, name: str, new: str) -> Preset:
        """Copy a user or built-in preset under a new name."""
        source = self.get(name)
        clean = self._new_name(new)
        copy = Preset(clean, clean, source.description, source.settings, builtin=False)
        self._commit({**self._presets, _fold(clean): copy})
        return copy

    def delete(self, name: str) -> None:
        preset = self._user(name, "deleted")
        self._commit({k: p for k, p in self._presets.items() if k != _fold(preset.name)})

    # -- files -----------------------------------------------------------------

    def import_file(self, path: str | os.PathLike) -> list[str]:
        """Add the presets of a file; returns their names as stored.

        A name already used (by a user or built-in preset) gets a `` (2)``,
        `` (3)``... suffix.  A file that cannot be read or is not a valid
        presets file raises :class:`PresetFileError` and changes nothing.
        """
        self._ensure_loaded()
        path = Path(path)
        try:
            incoming = _parse_document(_read_limited(path), strict=False)
        except OSError as exc:
            raise PresetFileError(path, f"cannot be read ({exc.strerror or exc})") from None
        except ValueError as exc:
            raise PresetFileError(path, str(exc)) from None
        if not incoming:
            return []
        presets = dict(self._presets)
        names = []
        for p in incoming:
            name = self._unique_name(p.name, taken=set(presets))
            presets[_fold(name)] = dataclasses.replace(p, key=name, name=name)
            names.append(name)
        self._commit(presets)
        return names

    def export_file(self, path: str | os.PathLike, names: Iterable[str] | None = None) -> None:
        """Write presets (all user presets, or the named user or built-in ones) to ``path`` atomically."""
        self._ensure_loaded()
        path = Path(path)
        if isinstance(names, str):
            raise ValueError(f"names: expected a list of preset names, got the string {names!r}")
        names = None if names is None else list(names)
        chosen = list(self._presets.values()) if names is None else [self.get(n) for n in names]
        folded = [_fold(p.name) for p in chosen]
        if len(set(folded)) != len(folded):
            raise ValueError(f"names: a preset is named twice in {names!r}")
        if path.resolve() == self.path.resolve():
            raise ValueError(f"export path {str(path)!r} is the store's own file")
        try:
            atomic_write(path, _encode(chosen))
        except OSError as exc:
            raise PresetFileError(path, f"could not be written ({exc.strerror or exc})") from exc
