"""llama.cpp command-line sampling flags: parse them into settings, print settings as flags.

Names and aliases follow ``common/arg.cpp`` of the llama.cpp that
llama-cpp-python 0.3.36 vendors.  The ``--scatter-*`` flags exist only in a
llama.cpp build with the scatter sampler (:data:`Flag.upstream` is False).
Unlike llama-cli, which ignores some bad values or unknown sampler names with
a warning, every problem here is an error naming the flag and the value.
"""
from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence

from .biasvalues import bias_text
from .flagtable import FLAG_BY_NAME, FLAGS, Flag  # noqa: F401  (re-exported: part of this API)
from .numbers import is_number_word
from .settings import SamplerSettings
from .stagetable import STAGE_ALIASES, STAGE_BY_LETTER, STAGE_BY_NAME


def _patched(name: str | None) -> bool:
    """Whether only a scatter-patched llama.cpp has the stage (the stages no llama.cpp has, smoothing,
    top-A and tail-free, are not among them: no build runs them)."""
    row = STAGE_BY_NAME.get(name) if name is not None else None
    return row is not None and not row.upstream and row.llamacpp

#: llama-cli sampling flags without a row in the flag table, with their arity: only ``--backend-sampling``'s
#: spellings (:data:`BACKEND_SAMPLING`), which :func:`parse_flags` takes or refuses itself.  (The name is
#: historical: every other flag here is implemented now.)
UNSUPPORTED: dict[str, int] = {"-bs": 0, "--backend-sampling": 0}
#: ``-bs``/``--backend-sampling``: llama.cpp then runs the chain in the model's compute graph (its dist draws
#: from a float32 cumulative sum over the vocabulary on the device, src/llama-sampler.cpp
#: ``llama_sampler_dist_backend_apply``), which can pick other tokens than the CPU chain the playground
#: reproduces; with a grammar ``common_sampler_init`` turns it off ("backend sampling is not compatible with
#: grammar, disabling").  So it is taken, as a no-op, with a grammar and refused in one line without one.
BACKEND_SAMPLING = ("-bs", "--backend-sampling")
BACKEND_SAMPLING_REFUSED = ("{name}: refused: llama.cpp then samples on the device (a float32 draw over the whole "
                            "vocabulary), which can pick other tokens than the chain the playground runs; "
                            "with a grammar llama.cpp turns it off, and so it is taken then")
#: The two fields every grammar flag sets (llama.cpp keeps one grammar: the last flag given wins).
GRAMMAR_FIELDS = ("grammar", "json_schema")


class FlagError(ValueError):
    """One or more flags were unknown or malformed; ``problems`` lists each."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def _split(args: str | Iterable[str]) -> list[str]:
    if isinstance(args, str):
        try:
            return shlex.split(args)
        except ValueError as exc:
            raise FlagError([f"cannot split the command line: {exc}"]) from None
    return list(args)


def parse_flags(
    args: str | Iterable[str],
    base: SamplerSettings | None = None,
    *,
    passthrough: dict[str, int] | None = None,
) -> tuple[SamplerSettings, list[str]]:
    """Apply llama.cpp sampling flags to ``base``.

    ``passthrough`` names other flags (with how many values each takes) that
    are returned untouched, with any bare words, as the second result.  Every
    unknown or malformed flag is collected; if there is any, :class:`FlagError`
    lists them all and nothing is applied.  Each value is checked against its
    row of the flag table as it is read; checks across flags (strength-min
    <= strength-max) run once at the end.
    """
    base = base or SamplerSettings()
    passthrough = passthrough or {}
    tokens = _split(args)
    changes: dict[str, object] = {}
    breakers: list[str] | None = None
    biases: list | None = None  # -l entries: the command line's list replaces the base's
    rest: list[str] = []
    problems: list[str] = []
    backend_sampling: str | None = None
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        name, eq, inline = tok.partition("=") if tok.startswith("--") else (tok, "", "")
        i += 1
        flag = FLAG_BY_NAME.get(name)
        if flag is None and name in BACKEND_SAMPLING and name not in passthrough:
            if eq:
                problems.append(f"{name}: takes no value, got {inline!r}")
            backend_sampling = name
            continue
        if flag is None:
            i = _other_word(tokens, i, tok, name, eq, passthrough, rest, problems)
            continue
        if flag.kind == "switch":
            if eq:
                problems.append(f"{name}: takes no value, got {inline!r}")
            else:
                changes[flag.field] = True
            continue
        if eq:
            raw = inline
        elif i < len(tokens):
            raw = tokens[i]
            i += 1
        else:
            problems.append(f"{name}: missing value")
            continue
        try:
            value = flag.parse(raw, name)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if flag.kind == "breaker":
            breakers = [] if breakers is None or value == "none" else breakers
            breakers += [] if value == "none" else [value]
        elif flag.kind == "bias":
            biases = (biases or []) + [value]
        elif flag.field in GRAMMAR_FIELDS:  # one grammar: this one replaces any given before
            changes.update({f: value if f == flag.field else "" for f in GRAMMAR_FIELDS})
        else:
            changes[flag.field] = value
    if breakers is not None:
        changes["dry_sequence_breakers"] = tuple(breakers)
    if biases is not None:
        changes["logit_bias"] = tuple(biases)
    settings = base
    if not problems:
        try:  # values that are only wrong together (strength-min above strength-max)
            settings = base.with_values(changes)
        except ValueError as exc:
            problems.append(str(exc))
    if backend_sampling is not None and not problems and not (settings.grammar or settings.json_schema):
        problems.append(BACKEND_SAMPLING_REFUSED.format(name=backend_sampling))
    if problems:
        raise FlagError(problems)
    return settings, rest


def _other_word(tokens, i, tok, name, eq, passthrough, rest, problems) -> int:
    """Handle a word that is not a sampling flag; returns the index of the next word."""
    if name in passthrough or tok in passthrough:
        arity = passthrough.get(name, passthrough.get(tok, 0))
        rest.append(tok)
        if not eq:
            rest.extend(tokens[i:i + arity])
            i += arity
    elif name in UNSUPPORTED:
        problems.append(f"{name}: not supported by the playground")
        i += 0 if eq else UNSUPPORTED[name]
    elif looks_like_flag(tok):
        problems.append(f"{name}: unknown flag")
    else:
        rest.append(tok)
    return i


def looks_like_flag(word: str) -> bool:
    """A word that starts with ``-`` and is not a (negative) number: a flag's name."""
    return word.startswith("-") and len(word) > 1 and not is_number_word(word)


def _format(value) -> str:
    if isinstance(value, float):
        return repr(value)
    return str(value)


def to_flags(
    settings: SamplerSettings,
    *,
    only_changed: bool = True,
    order: str = "samplers",
    include_seed: bool = True,
) -> list[str]:
    """``settings`` as llama-cli arguments (a list, unquoted).

    ``order`` is ``"samplers"`` (``--samplers a;b``) or ``"seq"``
    (``--sampler-seq ab``).  With ``only_changed`` the flags equal to
    llama.cpp's defaults are left out.
    """
    if order not in ("samplers", "seq"):
        raise ValueError(f"order: expected 'samplers' or 'seq', got {order!r}")
    out: list[str] = []
    for flag in FLAGS:
        value = settings.get(flag.field)
        if (flag.field == "seed" and not include_seed) or flag.kind == "file" or (flag.kind == "text" and not value):
            continue  # a file row's text is written by its field's row; no grammar is no flag (-j "" is an error)
        if only_changed and value == flag.default:
            continue
        if flag.kind in ("samplers", "seq"):
            if (flag.kind == "samplers") == (order == "samplers"):
                out += [flag.flag, ";".join(value) if order == "samplers" else settings.sampler_seq]
        elif flag.kind == "switch":
            if value:
                out.append(flag.flag)
        elif flag.kind == "breaker":
            out += [a for b in (value or ("none",)) for a in (flag.flag, b)]
        elif flag.kind == "bias":
            out += [a for pair in value for a in (flag.flag, bias_text(pair))]
        else:
            out += [flag.flag, _format(value)]
    return out


def needs_scatter_build(args: Sequence[str]) -> bool:
    """Whether these llama-cli arguments use anything upstream llama.cpp lacks."""
    tokens = []
    for arg in args:
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        tokens += [name, value] if eq else [arg]
    i = 0
    while i < len(tokens):
        name = tokens[i]
        flag = FLAG_BY_NAME.get(name)
        value = tokens[i + 1] if i + 1 < len(tokens) else ""
        if flag is not None and not flag.upstream:
            return True
        if flag is not None and flag.kind == "samplers":
            if any(_patched(STAGE_ALIASES.get(v.strip().lower())) for v in value.split(";")):
                return True
        if flag is not None and flag.kind == "seq" and any(_patched(STAGE_BY_LETTER.get(c)) for c in value):
            return True
        i += 1 if flag is None or flag.kind == "switch" else 2
    return False


def quote(args: Iterable[object]) -> str:
    """Shell-quote a list of arguments into one line (each as its ``str``)."""
    return " ".join(shlex.quote(str(a)) for a in args)
