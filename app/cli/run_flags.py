"""The run options' command-line flags, made from :class:`~app.engine.face.options.RunOptions`' fields: each
field whose :class:`~app.engine.face.options.RunOption` names flags gets them, with its help, its bounds
(an error names the flag and the option) or its choices, under the field's name (``args.n_ctx``)."""
from __future__ import annotations

import argparse

from app.engine.face.options import RunOptions, run_options_of

from .parsing import int_in


def add_run_flags(parser: argparse.ArgumentParser, defaults: dict | None = None, only: tuple[str, ...] | None = None,
                  cls: type = RunOptions) -> None:
    """Add the flags of ``cls``'s options (``only`` these fields, if given), their defaults from ``defaults``
    where the command's differ from the options' own."""
    for f, described in run_options_of(cls):
        if not described.flags or (only is not None and f.name not in only):
            continue
        default = (defaults or {}).get(f.name, f.default)
        shown = "" if default is None or isinstance(default, bool) or default == () else f" (default: {default})"
        kwargs: dict = {"dest": f.name, "help": described.help + shown}
        if isinstance(f.default, tuple):
            kwargs.update(action="append", default=list(default), metavar="TEXT")
        elif isinstance(f.default, bool):
            kwargs.update(action="store_true", default=default)
        elif described.choices:
            kwargs.update(choices=described.choices, default=default)
        elif described.low is not None:
            kwargs.update(type=int_in(f"{described.flags[0]} ({described.label})", described.low, described.high),
                          default=default, metavar="N")
        else:
            kwargs.update(default=default)
        parser.add_argument(*described.flags, **kwargs)


def run_options(args: argparse.Namespace, cls: type = RunOptions, **changes) -> RunOptions:
    """The options the command line gave (each flag's field from ``args``, the others their defaults), with
    ``changes``; ValueError names a bad one."""
    values = {}
    for f, described in run_options_of(cls):
        if described.flags and hasattr(args, f.name):
            value = getattr(args, f.name)
            values[f.name] = tuple(value) if isinstance(f.default, tuple) else value
    return cls(**{**values, **changes})
