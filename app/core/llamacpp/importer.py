"""Settings from a pasted llama-cli / llama-completion / llama-server command line.

Every sampling flag :mod:`sampler.flags` knows is applied (all llama.cpp
spellings, ``--name=value`` and ``--name_with_underscores`` too); llama.cpp's
other options are skipped with their values.  Anything unknown, unsupported,
malformed or left over is listed in one :class:`~sampler.FlagError` and
nothing is applied.

A line that starts with a program name describes a whole llama.cpp run, so by
default it is applied to llama.cpp's defaults, not to ``base``; a bare flag
string is applied to ``base``.  Either way the seed is ``base``'s unless the line
sets one (``-s``): llama.cpp would pick a random seed, and a writer who pastes a
line loses no reproducibility by it (:attr:`ImportResult.seed_kept`).  The
options that are not sampling settings (``-m``, ``-n``, ``-c``, ``-p`` ...) are
not applied, and each is listed with its value in :attr:`ImportResult.not_applied`.  DRY breakers follow llama.cpp: a bare
``none`` clears the list, then escapes are processed (unless the line says
``--no-escape``), so ``\\x6eone`` is the breaker "none".

Flags of features the playground lacks are errors, except when they switch
the feature off (``--grammar ""``; the table is :mod:`app.core.llamacpp.off_values`):
those are ignored and reported in :attr:`ImportResult.notes`.  Sampler names and
letters llama.cpp cannot match are left out, as llama.cpp leaves them out with a
warning, and named in a note (:mod:`app.core.llamacpp.sampler_names`).
"""
from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from sampler.flags import FLAG_BY_NAME, UNSUPPORTED, FlagError, looks_like_flag, parse_flags
from sampler.settings import SamplerSettings

from .off_values import OFF_VALUES, resolve
from .options import BREAKER, ESCAPE_OFF, ESCAPE_ON, NON_SAMPLING_OPTIONS, SWITCH_VALUES
from .sampler_names import known_sampler_letters, known_sampler_names
from .shell import process_escapes, split_command, strip_program


class _Reader:
    """Sorts the words of a command line into sampling flags, breakers and problems."""

    def __init__(self, words: list[str]):
        self.words = words
        self.i = 0
        self.sampling: list[str] = []
        self.breakers: list[str] | None = None  # raw values, "none" already applied
        self.escape = True
        self.problems: list[str] = []
        self.off_pairs: list[tuple[str, str | None]] = []  # flags of the off-value table, with their values
        self.notes: list[str] = []  # what was read as llama.cpp reads it, with a warning
        self.not_applied: list[str] = []  # the options that are not sampling settings, each with its values
        self.seed_given = False
        self.applied: list[str] = []  # the sampling flags read, as the line spells them

    def run(self) -> None:
        while self.i < len(self.words):
            word = self.words[self.i]
            self.i += 1
            name, eq, inline = word.partition("=") if word.startswith("--") else (word, "", "")
            if word.startswith("--"):
                name = name.replace("_", "-")  # llama.cpp accepts --top_k
            if name == BREAKER:
                self._breaker(name, eq, inline)
            elif name in FLAG_BY_NAME or name in UNSUPPORTED:
                self._sampling(name, eq, inline)
            elif name in NON_SAMPLING_OPTIONS:
                self._other(name, eq, inline)
            elif looks_like_flag(word):
                self.problems.append(f"{name}: unknown flag")
                if self.i < len(self.words) and not looks_like_flag(self.words[self.i]) and not eq:
                    self.i += 1  # most likely its value: one problem is enough
            else:
                self.problems.append(f"unexpected argument {word!r}")

    def _take(self, name: str, eq: str, inline: str) -> str | None:
        if eq:
            return inline
        if self.i < len(self.words):
            self.i += 1
            return self.words[self.i - 1]
        self.problems.append(f"{name}: missing value")
        return None

    def _breaker(self, name: str, eq: str, inline: str) -> None:
        value = self._take(name, eq, inline)
        if value is None:
            return
        self.applied.append(name)
        if self.breakers is None or value == "none":
            self.breakers = []
        if value != "none":
            self.breakers.append(value)

    def _sampling(self, name: str, eq: str, inline: str) -> None:
        if name in OFF_VALUES and (eq or self.i < len(self.words)):
            self.off_pairs.append((name, self._take(name, eq, inline)))
            return
        self.applied.append(name)
        flag = FLAG_BY_NAME.get(name)
        self.seed_given = self.seed_given or (flag is not None and flag.field == "seed")
        if flag is not None and flag.kind in ("samplers", "seq"):
            self._order(name, flag.kind, eq, inline)
            return
        if eq:
            arity = 0
        elif flag is not None:
            arity = 0 if flag.kind == "switch" else 1
        else:
            arity = UNSUPPORTED[name]
        self.sampling.append(name + eq + inline)
        self.sampling += self.words[self.i:self.i + arity]
        self.i += arity

    def _order(self, name: str, kind: str, eq: str, inline: str) -> None:
        """``--samplers`` / ``--sampler-seq``: what llama.cpp cannot match is left out, with a note."""
        value = self._take(name, eq, inline)
        if value is None:
            return
        kept, note = (known_sampler_names if kind == "samplers" else known_sampler_letters)(name, value)
        if note:
            self.notes.append(note)
        self.sampling += [name, kept]

    def _other(self, name: str, eq: str, inline: str) -> None:
        start = self.i - 1
        self._skip_other(name, eq, inline)
        if name in ESCAPE_ON:
            self.escape = True
        elif name in ESCAPE_OFF:
            self.escape = False
        else:
            self.not_applied.append(" ".join(shlex.quote(_short(w)) for w in self.words[start:self.i]))

    def _skip_other(self, name: str, eq: str, inline: str) -> None:
        """Step over an option that is not a sampling setting and its values."""
        kind = NON_SAMPLING_OPTIONS[name]
        if eq:
            if kind == 0:
                self.problems.append(f"{name}: takes no value, got {inline!r}")
            elif kind == 2:
                self.problems.append(f"{name}: takes two values, got {inline!r}")
        elif kind == "choice":
            if self.i < len(self.words) and self.words[self.i].lower() in SWITCH_VALUES:
                self.i += 1
        elif isinstance(kind, int) and kind:
            if self.i + kind > len(self.words):
                self.problems.append(f"{name}: missing value")
            self.i += kind

    def final_breakers(self) -> tuple[str, ...] | None:
        if self.breakers is None:
            return None
        if not self.escape:
            return tuple(self.breakers)
        out = []
        for value in self.breakers:
            try:
                out.append(process_escapes(value))
            except ValueError as exc:
                self.problems.append(f"{BREAKER}: {exc}")
        return tuple(out)


#: The longest value an option is listed with in :attr:`ImportResult.not_applied` (a prompt can be pages long).
SHOWN_VALUE_CHARS = 40


def _short(word: str) -> str:
    return word if len(word) <= SHOWN_VALUE_CHARS else word[:SHOWN_VALUE_CHARS - 1] + "\u2026"


@dataclass(frozen=True)
class ImportResult:
    """What an import gives: the settings, a note per flag that was accepted but ignored, every option that
    was not applied (not a sampling setting: ``-n 128``, ``-c 4096``, each with its values, long ones cut), and
    whether the seed is the base's because the line set none."""

    settings: SamplerSettings
    notes: tuple[str, ...] = ()
    not_applied: tuple[str, ...] = ()
    seed_kept: bool = False
    applied: tuple[str, ...] = ()  # the sampling flags read (``--top_k`` as ``--top-k``), once each time given

    def summary(self) -> str:
        """One line for the status bar: the seed kept, and what was not applied ("" when neither)."""
        parts = [f"seed {self.settings.seed} kept (the line sets none)"] if self.seed_kept else []
        if self.not_applied:
            parts.append("not applied (not sampling settings): " + ", ".join(self.not_applied))
        if self.notes:
            parts.append("ignored: " + "; ".join(self.notes))
        return "; ".join(parts)


def import_command(
    text_or_args: str | Iterable[str],
    base: SamplerSettings | None = None,
    *,
    from_defaults: bool | None = None,
) -> SamplerSettings:
    """The settings a pasted command line or flag string describes (see the module docstring).

    Flags ignored because they are off are dropped silently here; use
    :func:`import_command_with_notes` to say which.
    """
    return import_command_with_notes(text_or_args, base, from_defaults=from_defaults).settings


def import_command_with_notes(
    text_or_args: str | Iterable[str],
    base: SamplerSettings | None = None,
    *,
    from_defaults: bool | None = None,
) -> ImportResult:
    """Like :func:`import_command`, with the notes on ignored flags (``--grammar ""`` ...).

    Raises :class:`~sampler.FlagError` listing every problem, as import_command does.
    """
    words = split_command(text_or_args) if isinstance(text_or_args, str) else [str(a) for a in text_or_args]
    words, has_program = strip_program(words)
    start = SamplerSettings() if (has_program if from_defaults is None else from_defaults) or base is None else base
    if not isinstance(start, SamplerSettings):
        raise TypeError(f"base: expected SamplerSettings, got {type(start).__name__}")
    reader = _Reader(words)
    reader.run()
    # a flag left without its value is already a problem of the reader's
    notes, still_errors = resolve([(name, value) for name, value in reader.off_pairs if value is not None])
    for name, value in still_errors:  # parse_flags names them "not supported by the playground"
        reader.sampling += [name, value]
    breakers = reader.final_breakers()
    problems = list(reader.problems)
    settings = None
    try:
        settings, rest = parse_flags(reader.sampling, start)
        problems += [f"unexpected argument {word!r}" for word in rest]
        if breakers is not None:
            settings = settings.replace(dry_sequence_breakers=breakers)
    except FlagError as exc:
        problems += exc.problems
    except ValueError as exc:
        problems.append(str(exc))
    if problems or settings is None:
        raise FlagError(problems)
    seed_kept = not reader.seed_given and base is not None
    if base is not None and seed_kept:
        settings = settings.replace(seed=base.seed)
    return ImportResult(settings, tuple(reader.notes + notes), tuple(reader.not_applied), seed_kept,
                        tuple(reader.applied))
