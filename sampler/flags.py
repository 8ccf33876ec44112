"""llama.cpp command-line sampling flags: parse them into settings, print settings as flags.

Names and aliases follow ``common/arg.cpp`` of the llama.cpp that
llama-cpp-python 0.3.36 vendors.  The ``--scatter-*`` flags exist only in a
llama.cpp build with the scatter sampler (:data:`Flag.upstream` is False).
Unlike llama-cli, which ignores some bad values or unknown sampler names with
a warning, every problem here is an error naming the flag and the value.
"""
from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass
from typing import Iterable, Sequence

from .settings import STAGE_BY_LETTER, SamplerSettings, stage_name


@dataclass(frozen=True)
class Flag:
    names: tuple[str, ...]
    field: str  # a SamplerSettings field, or "scatter.<field>"
    kind: str  # "float", "int", "uint", "switch", "samplers", "seq", "breaker"
    upstream: bool = True


FLAGS: tuple[Flag, ...] = (
    Flag(("-s", "--seed"), "seed", "uint"),
    Flag(("--samplers",), "samplers", "samplers"),
    Flag(("--sampler-seq", "--sampling-seq"), "samplers", "seq"),
    Flag(("--temp", "--temperature"), "temp", "float"),
    Flag(("--dynatemp-range",), "dynatemp_range", "float"),
    Flag(("--dynatemp-exp",), "dynatemp_exponent", "float"),
    Flag(("--top-k",), "top_k", "int"),
    Flag(("--top-p",), "top_p", "float"),
    Flag(("--min-p",), "min_p", "float"),
    Flag(("--typical", "--typical-p"), "typ_p", "float"),
    Flag(("--top-nsigma", "--top-n-sigma"), "top_n_sigma", "float"),
    Flag(("--xtc-probability",), "xtc_probability", "float"),
    Flag(("--xtc-threshold",), "xtc_threshold", "float"),
    Flag(("--repeat-last-n",), "penalty_last_n", "int"),
    Flag(("--repeat-penalty",), "penalty_repeat", "float"),
    Flag(("--presence-penalty",), "penalty_present", "float"),
    Flag(("--frequency-penalty",), "penalty_freq", "float"),
    Flag(("--dry-multiplier",), "dry_multiplier", "float"),
    Flag(("--dry-base",), "dry_base", "float"),
    Flag(("--dry-allowed-length",), "dry_allowed_length", "int"),
    Flag(("--dry-penalty-last-n",), "dry_penalty_last_n", "int"),
    Flag(("--dry-sequence-breaker",), "dry_sequence_breakers", "breaker"),
    Flag(("--scatter-k",), "scatter.k", "int", upstream=False),
    Flag(("--scatter-strength",), "scatter.strength", "float", upstream=False),
    Flag(("--scatter-radius",), "scatter.radius", "float", upstream=False),
    Flag(("--scatter-steps",), "scatter.steps", "int", upstream=False),
    Flag(("--scatter-adaptive",), "scatter.adaptive", "switch", upstream=False),
    Flag(("--scatter-strength-min",), "scatter.strength_min", "float", upstream=False),
    Flag(("--scatter-strength-max",), "scatter.strength_max", "float", upstream=False),
    Flag(("--scatter-entropy-target",), "scatter.entropy_target", "float", upstream=False),
    Flag(("--scatter-absorption",), "scatter.absorption", "float", upstream=False),
    Flag(("--scatter-absorption-last-n",), "scatter.absorption_last_n", "int", upstream=False),
    Flag(("--scatter-collision",), "scatter.collision", "float", upstream=False),
)
FLAG_BY_NAME = {name: flag for flag in FLAGS for name in flag.names}

#: llama-cli sampling flags the playground does not implement, with their arity.
UNSUPPORTED = {
    "--ignore-eos": 0, "-l": 1, "--logit-bias": 1, "--mirostat": 1, "--mirostat-lr": 1,
    "--mirostat-ent": 1, "--adaptive-target": 1, "--adaptive-decay": 1, "--grammar": 1,
    "--grammar-file": 1, "-j": 1, "--json-schema": 1, "-jf": 1, "--json-schema-file": 1,
    "-bs": 0, "--backend-sampling": 0,
}


class FlagError(ValueError):
    """One or more flags were unknown or malformed; ``problems`` lists each."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def _convert(flag: Flag, name: str, raw: str):
    try:
        if flag.kind == "float":
            return float(raw)
        if flag.kind in ("int", "uint"):
            value = int(raw, 10)
            if flag.kind == "uint" and not 0 <= value <= 0xFFFFFFFF:
                raise ValueError
            return value
    except ValueError:
        expected = {"float": "a number", "int": "an integer", "uint": "an integer from 0 to 4294967295"}[flag.kind]
        raise ValueError(f"{name}: expected {expected}, got {raw!r}") from None
    if flag.kind == "samplers":
        return tuple(stage_name(part) for part in raw.split(";") if part.strip())
    if flag.kind == "seq":
        unknown = sorted({c for c in raw if c not in STAGE_BY_LETTER})
        if unknown:
            raise ValueError(f"{name}: unknown sampler letter(s) {''.join(unknown)!r} in {raw!r}")
        return tuple(STAGE_BY_LETTER[c] for c in raw)
    return raw


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
    lists them all and nothing is applied.
    """
    base = base or SamplerSettings()
    passthrough = passthrough or {}
    tokens = _split(args)
    changes: dict[str, object] = {}
    scatter_changes: dict[str, object] = {}
    breakers: list[str] | None = None
    rest: list[str] = []
    problems: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        name, eq, inline = tok.partition("=") if tok.startswith("--") else (tok, "", "")
        i += 1
        flag = FLAG_BY_NAME.get(name)
        if flag is None:
            if name in passthrough or tok in passthrough:
                arity = passthrough.get(name, passthrough.get(tok, 0))
                rest.append(tok)
                if not eq:
                    rest.extend(tokens[i:i + arity])
                    i += arity
            elif name in UNSUPPORTED:
                problems.append(f"{name}: not supported by the playground")
                i += 0 if eq else UNSUPPORTED[name]
            elif tok.startswith("-") and len(tok) > 1 and not _is_number(tok):
                problems.append(f"{name}: unknown flag")
            else:
                rest.append(tok)
            continue
        if flag.kind == "switch":
            if eq:
                problems.append(f"{name}: takes no value, got {inline!r}")
                continue
            value = True
        else:
            if eq:
                raw = inline
            elif i < len(tokens):
                raw = tokens[i]
                i += 1
            else:
                problems.append(f"{name}: missing value")
                continue
            try:
                value = _convert(flag, name, raw)
            except ValueError as exc:
                problems.append(str(exc))
                continue
        if flag.kind == "breaker":
            breakers = [] if breakers is None else breakers
            if value == "none":
                breakers.clear()
            else:
                breakers.append(value)
            continue
        problem = _value_problem(base, flag.field, value)
        if problem:
            problems.append(problem)
        elif flag.field.startswith("scatter."):
            scatter_changes[flag.field[len("scatter."):]] = value
        else:
            changes[flag.field] = value
    if breakers is not None:
        changes["dry_sequence_breakers"] = tuple(breakers)
        problem = _value_problem(base, "dry_sequence_breakers", tuple(breakers))
        problems += [problem] if problem else []
    if not problems:
        try:  # values that are only wrong together (strength-min above strength-max)
            dataclasses.replace(base, **changes, scatter=dataclasses.replace(base.scatter, **scatter_changes))
        except ValueError as exc:
            problems.append(str(exc))
    if problems:
        raise FlagError(problems)
    if scatter_changes:
        changes["scatter"] = dataclasses.replace(base.scatter, **scatter_changes)
    return dataclasses.replace(base, **changes), rest


def _value_problem(base: SamplerSettings, field: str, value) -> str | None:
    """The error for one value set on its own, or None if it is valid."""
    # The pair check (strength-min <= strength-max) is left to the final check.
    relaxed = {"scatter.strength_min": {"strength_max": 1.0}, "scatter.strength_max": {"strength_min": 0.0}}
    try:
        if field.startswith("scatter."):
            dataclasses.replace(base.scatter, **{field[len("scatter."):]: value, **relaxed.get(field, {})})
        else:
            dataclasses.replace(base, **{field: value})
    except ValueError as exc:
        return str(exc)
    return None


def _is_number(tok: str) -> bool:
    try:
        float(tok)
        return True
    except ValueError:
        return False


def _get(settings: SamplerSettings, field: str):
    if field.startswith("scatter."):
        return getattr(settings.scatter, field[len("scatter."):])
    return getattr(settings, field)


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
    default = SamplerSettings()
    out: list[str] = []
    emitted_order = False
    for flag in FLAGS:
        value = _get(settings, flag.field)
        if flag.field == "seed" and not include_seed:
            continue
        if only_changed and value == _get(default, flag.field):
            continue
        if flag.field == "samplers":
            if emitted_order or (flag.kind == "samplers") != (order == "samplers"):
                continue
            emitted_order = True
            out += [flag.names[0], ";".join(value) if order == "samplers" else settings.sampler_seq]
        elif flag.kind == "switch":
            if value:
                out.append(flag.names[0])
        elif flag.kind == "breaker":
            out += [a for b in (value or ("none",)) for a in (flag.names[0], b)]
        else:
            out += [flag.names[-1] if flag.names[0] == "-s" else flag.names[0], _format(value)]
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
        if name == "--samplers" and "scatter" in [v.strip().lower() for v in value.split(";")]:
            return True
        if name in ("--sampler-seq", "--sampling-seq") and "r" in value:
            return True
        i += 1 if flag is None or flag.kind == "switch" else 2
    return False


def quote(args: Sequence[str]) -> str:
    """Shell-quote a list of arguments into one line."""
    return " ".join(shlex.quote(a) for a in args)
