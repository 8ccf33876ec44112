"""The run's options in a session file (``run_settings``): the :class:`~app.engine.face.options.RunOptions` fields
whose :class:`~app.engine.face.options.RunOption` gives a ``session`` version, each under its own name, in field order.

A file's ``run_settings`` holds exactly the fields saved in its version (a key this version does not know is
refused); a field saved only from a later version takes its default.  A tuple is a JSON list.  The values are
checked as the window's controls take them (:meth:`~app.engine.face.options.RunOptions.within_window`).
"""
from __future__ import annotations

from app.engine.face.options import RunOptions, run_options_of


def _saved(cls: type, version: int | None = None) -> list:
    """The fields a file of ``version`` holds (None: every field saved)."""
    return [f for f, described in run_options_of(cls)
            if described.session and (version is None or described.session <= version)]


def encode_run_settings(options: RunOptions) -> dict:
    """``run_settings``'s object for ``options``."""
    out = {}
    for f in _saved(type(options)):
        value = getattr(options, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def decode_run_settings(value, version: int, cls: type = RunOptions) -> RunOptions:
    """The options ``run_settings`` of a file of ``version`` holds (``cls``: RunOptions or a wider one);
    ValueError names the problem."""
    fields = _saved(cls, version)
    if not isinstance(value, dict) or set(value) != {f.name for f in fields}:
        names = [f.name for f in fields]
        listed = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else "".join(names) or "no keys"
        raise ValueError(f"run_settings: expected an object with {listed}")
    values = {}
    for f in fields:
        item = value[f.name]
        if isinstance(f.default, tuple):
            if not isinstance(item, list):
                raise ValueError(f"run_settings.{f.name}: expected a list, got {item!r:.60}")
            item = tuple(item)
        values[f.name] = item
    try:
        return cls(**values).within_window()
    except ValueError as exc:
        raise ValueError(f"run_settings: {exc}") from None
