"""The run's options in a session file (``run_settings``): the :class:`~app.engine.face.options.RunOptions` fields
whose :class:`~app.engine.face.options.RunOption` says ``session``, each under its own name, in field order.

A file's ``run_settings`` must hold exactly those keys (a key this version does not know is refused, as a
newer file's would be misread); a tuple is a JSON list.  The values are checked as the window's controls
take them (:meth:`~app.engine.face.options.RunOptions.within_window`).
"""
from __future__ import annotations

from app.engine.face.options import RunOptions, run_options_of


def _saved(cls: type) -> list:
    return [f for f, described in run_options_of(cls) if described.session]


def encode_run_settings(options: RunOptions) -> dict:
    """``run_settings``'s object for ``options``."""
    out = {}
    for f in _saved(type(options)):
        value = getattr(options, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def decode_run_settings(value, cls: type = RunOptions) -> RunOptions:
    """The options ``run_settings`` holds (``cls``: RunOptions or a wider one); ValueError names the problem."""
    fields = _saved(cls)
    if not isinstance(value, dict) or set(value) != {f.name for f in fields}:
        names = [f.name for f in fields]
        raise ValueError(f"run_settings: expected an object with {', '.join(names[:-1])} and {names[-1]}")
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
