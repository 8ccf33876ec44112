"""One row of the flag table (:class:`Flag`): a setting, its llama.cpp spellings, kind, range, and how it
is checked, read from a command line and written as JSON.  The rows themselves are :mod:`sampler.flagtable`."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from . import cparse
from .biasvalues import biases_from_json, biases_to_json, check_biases
from .grammar_text import check_schema_text
from .numbers import check_value, effective_range, show
from .phrases import check_phrases, phrases_from_json, phrases_to_json
from .stagetable import STAGE_BY_LETTER, stage_name

#: Checked values by (field, name, type, repr): presets repeat the same values thousands of times, and
#: checking each one anew made 30,000 presets take 45 s to load.  Only values of exact plain types
#: (a check depends on nothing else; repr keeps -0.0 and 0.0 apart), short ones; cleared when full.
_CHECKED: dict[tuple, Any] = {}
_MEMO_SIZE = 65536
_MEMO_TYPES = (int, float, str, bool, tuple)
_MEMO_REPR_CHARS = 2048
_MISSING = object()


def forget_checked() -> None:
    """Forget the checked values (the stage table changed: an order valid before may not be now)."""
    _CHECKED.clear()


def _memo_key(field: str, name: str, value) -> tuple | None:
    if not _plain(value):
        return None
    text = repr(value)
    return (field, name, type(value), text) if len(text) <= _MEMO_REPR_CHARS else None


def _plain(value) -> bool:
    """A value of exact plain types all through (a tuple of tuples of ints and floats ...)."""
    kind = type(value)
    if kind is tuple:
        return len(value) <= 256 and all(_plain(v) for v in value)
    if kind is int:
        return value.bit_length() <= 64  # repr() refuses ints of thousands of digits
    return kind in _MEMO_TYPES

KINDS = ("float", "int", "uint", "switch", "samplers", "seq", "breaker", "bias", "phrases", "text", "file")
#: The Python type a field of each kind holds.
PY_TYPES = {"float": float, "int": int, "uint": int, "switch": bool, "samplers": tuple, "seq": tuple, "breaker": tuple,
            "bias": tuple, "phrases": tuple, "text": str, "file": str}
#: Kinds of a second row for a field another row owns: ``--sampler-seq`` (the order as letters) and the
#: ``--grammar-file`` / ``--json-schema-file`` rows (the file's text into the ``text`` field of the first row).
SECOND_KINDS = ("seq", "file")
#: The longest grammar or JSON schema taken (characters): llama.cpp has no limit, but a text this long is a
#: pasted file gone wrong, and every record of a session carries its settings.
MAX_TEXT_CHARS = 1 << 20
#: Kinds whose flag may be repeated, each occurrence adding one entry to the list.
REPEATED_KINDS = ("breaker", "bias")

DEFAULT_BREAKERS = ("\n", ":", '"', "*")
#: Smallest float32 whose float32 inverse is finite (llama-cli's repeat-penalty rule).
MIN_REPEAT_PENALTY = 2.938737278354183e-39
#: The smallest positive temperature or repeat penalty taken: a logit up to 1e8 divided by it stays
#: finite in float32.  Below it (``--temp 1e-38``) llama.cpp's native chain divides the logits to
#: infinity and its probabilities are NaN (measured through llama-cpp-python: tests/sampler/
#: test_no_nan.py), so there is no llama.cpp result to match: such values are refused by name.
MIN_SCALE = 1e-30


@dataclass(frozen=True)
class Flag:
    """One row of the table: one setting and its llama.cpp flag.

    Its derived names are cached properties: rows never change, and every check asks for them.
    """

    field: str  # SamplerSettings attribute path: "temp", "scatter.strength"
    names: tuple[str, ...]  # every llama.cpp spelling; names[0] canonical (but seed prints --seed)
    kind: str  # one of KINDS
    default: Any
    label: str  # short GUI label
    help: str  # one sentence: tooltips and --help
    stage: str | None = None  # the stage that reads it (None: seed, order, min_keep)
    lo: float | int | None = None  # inclusive bounds, None = unbounded
    hi: float | int | None = None
    ctype: str | None = None  # C type in llama.cpp: int32, uint32, float32, double (None: not a number)
    slider_lo: float | None = None  # GUI slider (None: no slider)
    slider_hi: float | None = None
    step: float | None = None
    decimals: int = 0
    upstream: bool = True  # False: only a scatter-patched llama.cpp has it (or no llama.cpp: banned_phrases)
    cli: bool = True  # False: llama-cli has no such flag (min_keep, banned_phrases)
    cparse: str | None = None  # "stoi", "stoul", "stof", "stof_clamp": read a command line as llama-cli does
    #: Positive values below this are refused although the range takes 0: the logits divided by them
    #: overflow float32, and llama.cpp's own chain then gives NaN probabilities (the temperature).
    tiny: float | None = None
    #: llama-server's request field for it where the name differs from ``field`` (see :attr:`server_field`).
    server: str | None = None

    @cached_property
    def flag(self) -> str:
        """The name printed on export and used in errors (the first long spelling)."""
        return next((n for n in self.names if n.startswith("--")), self.names[0])

    @cached_property
    def server_field(self) -> str | None:
        """The llama-server request field that sets it (``tools/server``); None for the fields no llama.cpp has
        and for the logit biases, which a request writes as pairs of its own."""
        if not self.upstream or self.kind in ("seq", "bias"):
            return None
        return self.server or self.field

    @cached_property
    def group(self) -> str | None:
        """``"scatter"`` for the scatter parameters, None for top-level fields."""
        return self.field.partition(".")[0] if "." in self.field else None

    @cached_property
    def attr(self) -> str:
        """The attribute name on its dataclass (``"k"`` for ``"scatter.k"``)."""
        return self.field.rpartition(".")[2]

    @cached_property
    def numeric(self) -> bool:
        return self.kind in ("float", "int", "uint")

    @cached_property
    def integer(self) -> bool:
        return self.kind in ("int", "uint")

    @cached_property
    def bounds(self) -> tuple:
        """Inclusive ``(lo, hi)`` after narrowing to the C type's range."""
        return effective_range(self.lo, self.hi, self.ctype)

    def check(self, value, name: str | None = None):
        """``value`` converted to the field's type if valid, else ValueError naming the flag.

        ``name`` is the spelling to name in errors (default :attr:`flag`).
        Lenient about representation (``"0.5"``, ``3.0`` for an integer,
        any iterable of names); :mod:`sampler.codec` is the strict one.
        The result for plain values is remembered (:data:`_CHECKED`).
        """
        name = name or self.flag
        key = _memo_key(self.field, name, value)
        if key is not None:
            found = _CHECKED.get(key, _MISSING)
            if found is not _MISSING:
                return found
        found = self._check(value, name)
        if key is not None:
            if len(_CHECKED) >= _MEMO_SIZE:
                _CHECKED.clear()
            _CHECKED[key] = found
        return found

    def _check(self, value, name: str):
        if self.numeric:
            number = check_value(name, value, integer=self.integer, lo=self.lo, hi=self.hi, ctype=self.ctype)
            if self.tiny is not None and 0 < number < self.tiny:
                raise ValueError(f"{name}: {show(value)} is too small: the logits divided by it overflow to "
                                 f"infinity (NaN probabilities); use 0 or at least {self.tiny:g}")
            return number
        if self.kind == "switch":
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name}: expected true or false, got {show(value)}")
            return bool(value)
        if self.kind in ("samplers", "seq"):
            return tuple(stage_name(s) for s in _sequence(name, value, "a list of sampler names"))
        if self.kind == "bias":
            return check_biases(name, value)
        if self.kind == "phrases":
            return check_phrases(name, value)
        if self.kind in ("text", "file"):
            text = _text(name, value)
            if self.field == "json_schema" and text:
                check_schema_text(name, text)
            return text
        return _breakers(name, value)

    def parse(self, raw: str, name: str | None = None):
        """The value of this flag written ``raw`` on a command line (checked)."""
        name = name or self.flag
        if self.kind == "samplers":
            return tuple(stage_name(part) for part in raw.split(";") if part.strip())
        if self.kind == "seq":
            unknown = sorted({c for c in raw if c not in STAGE_BY_LETTER})
            if unknown:
                raise ValueError(f"{name}: unknown sampler letter(s) {''.join(unknown)!r} in {raw!r}")
            return tuple(STAGE_BY_LETTER[c] for c in raw)
        if self.kind == "breaker":
            return _breakers(name, (raw,))[0]
        if self.kind == "bias":  # one entry: parse_flags collects the repeated flag
            return check_biases(name, (raw,))[0]
        if self.kind == "phrases":
            return check_phrases(name, (raw,))[0]
        if self.kind in ("text", "file"):
            text = read_text_file(name, raw) if self.kind == "file" else raw
            if self.field == "json_schema" and not text:  # json::parse("") throws in llama.cpp (no schema is none)
                check_schema_text(name, text)
            return self.check(text, name)
        if self.cparse == "stoul":
            return self.check(cparse.stoul_uint32(name, raw), name)
        if self.cparse == "stoi":
            return self.check(cparse.stoi(name, raw), name)
        if self.cparse in ("stof", "stof_clamp"):
            value = cparse.stof(name, raw)
            lo, hi = self.lo, self.hi
            if self.cparse == "stof_clamp" and value == value and lo is not None and hi is not None:
                value = min(max(value, lo), hi)  # std::clamp (its rows have both bounds); NaN stays for the check
            return self.check(value, name)
        return self.check(raw, name)

    def to_json(self, value):
        """The value as JSON (lists for tuples; ``-l`` texts for biases; objects for phrases)."""
        if self.kind == "bias":
            return biases_to_json(value)
        if self.kind == "phrases":
            return phrases_to_json(value)
        return list(value) if isinstance(value, tuple) else value

    def from_json(self, where: str, value):
        """``value`` if its JSON type fits the kind (the range is :meth:`check`'s), else ValueError naming ``where``."""
        if self.kind == "bias":
            return biases_from_json(where, value)
        if self.kind == "phrases":
            return phrases_from_json(where, value)
        if self.kind == "switch":
            ok = isinstance(value, bool)
            expected = "true or false"
        elif self.kind in ("text", "file"):
            ok = isinstance(value, str)
            expected = "a string"
        elif self.numeric:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            expected = "an integer" if self.integer else "a number"
            if ok and self.integer and isinstance(value, float):
                ok = value.is_integer()
        else:
            ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
            expected = "a list of strings"
        if not ok:
            raise ValueError(f"{where}: expected {expected}, got {show(value)}")
        return tuple(value) if isinstance(value, list) else value


def _sequence(name: str, value, what: str) -> tuple:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"{name}: expected {what}, got {show(value)}")
    return tuple(value)


def _text(name: str, value) -> str:
    """A grammar's or a JSON schema's text: a string of at most :data:`MAX_TEXT_CHARS` characters."""
    if not isinstance(value, str):
        raise ValueError(f"{name}: expected text, got {show(value)}")
    if len(value) > MAX_TEXT_CHARS:
        raise ValueError(f"{name}: {len(value)} characters is too long (at most {MAX_TEXT_CHARS})")
    if "\0" in value:
        raise ValueError(f"{name}: the text holds a NUL character (llama.cpp would cut it there): {value!r:.60}")
    return value


def read_text_file(name: str, path: str) -> str:
    """The text of the file ``path`` names (``--grammar-file``, ``--json-schema-file``), as llama.cpp reads
    it (every byte, UTF-8); ValueError naming the flag and the file if it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TEXT_CHARS * 4 + 1)
    except OSError as exc:
        raise ValueError(f"{name}: cannot read {path!r}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{name}: {path!r} is not UTF-8 text") from None


def _breakers(name: str, value) -> tuple[str, ...]:
    breakers = tuple(str(b) for b in _sequence(name, value, "a list of strings"))
    if "" in breakers:
        raise ValueError(f"{name}: a breaker must not be empty, got ''")
    return breakers
