"""llama-server's ``--models-preset`` INI: one section per model, keys are command-line options without
their dashes (``temp = 0.7``, short forms such as ``c`` too, or ``LLAMA_ARG_*`` environment names).

Reference: ``common/preset.cpp`` (``parse_ini_from_file``, ``load_from_ini``) of the vendored llama.cpp:
``[*]`` holds options every preset shares (a model's own section wins), ``version`` is reserved,
``;`` and ``#`` start comments, a flag option is ``true``/``false``.  A section is read as the
command line it stands for (:func:`app.core.llamacpp.import_command_with_notes`, from llama.cpp's defaults).
"""
from __future__ import annotations

import re

from app.core.llamacpp import NON_SAMPLING_OPTIONS, escape, import_command_with_notes
from app.core.llamacpp.run import within_context
from app.engine.face.options import RunOptions
from sampler import FlagError, SamplerSettings
from sampler.flags import FLAG_BY_NAME, to_flags

from .format import BY_FIELD, BY_NAME, Sample
from .report import FieldNote, FormatError, Report
from .writer import FieldWriter

FORMAT = "llama-server models preset INI"
#: The sampling options that have an environment name (common/arg.cpp).
ENV = {"LLAMA_ARG_TEMPERATURE": "--temp", "LLAMA_ARG_TOP_K": "--top-k", "LLAMA_ARG_TOP_P": "--top-p",
       "LLAMA_ARG_MIN_P": "--min-p", "LLAMA_ARG_REPEAT_PENALTY": "--repeat-penalty",
       "LLAMA_ARG_PRESENCE_PENALTY": "--presence-penalty", "LLAMA_ARG_FREQUENCY_PENALTY": "--frequency-penalty"}
_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*(.*?)[ \t]*$")
#: Any environment name of an option (``LLAMA_ARG_CACHE_RAM``): llama-server maps each to its option.
_ENV_NAME = re.compile(r"LLAMA_ARG_[A-Z0-9_]+")
#: Options only a preset file has (tools/server/README.md, "Model presets").
PRESET_ONLY = ("load-on-startup", "stop-timeout", "dedup-cache-models")
#: Options older llama.cpp had and this one does not (docs/preset.md still shows ``mmap = 1``).
_LEGACY = ("--mmap", "--no-mmap", "--mlock", "-ins", "--instruct", "-dkvc", "--dump-kv-cache", "--log-enable")
_FALSE = ("false", "0", "off", "no", "disabled")


def parse(text: str) -> dict[str, dict[str, str]]:
    """Sections -> key -> value (llama.cpp's grammar: a value ends at a comment or the line's end)."""
    sections: dict[str, dict[str, str]] = {"": {}}
    current = ""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise FormatError(f"{FORMAT}: line {n}: not a [section] line: {line[:60]!r}")
            current = line[1:-1].strip()
            sections.setdefault(current, {})
            continue
        value_end = min([i for i in (raw.find(" ;"), raw.find(" #"), raw.find("\t;"), raw.find("\t#")) if i >= 0],
                        default=len(raw))
        match = _LINE.match(raw[:value_end].strip())
        if not match:
            raise FormatError(f"{FORMAT}: line {n}: not a 'key = value' line: {line[:60]!r}")
        sections[current][match.group(1)] = match.group(2)
    return {k: v for k, v in sections.items() if k or v}


def _flag(key: str) -> str:
    if key in ENV:
        return ENV[key]
    for name in ("--" + key, "-" + key):
        if name in FLAG_BY_NAME or name in NON_SAMPLING_OPTIONS or name == "--dry-sequence-breaker":
            return name
    return "--" + key


def _not_sampling(key: str, flag: str) -> str | None:
    """Why a key that is not a sampling option is left to llama-server (None: it may be a sampling one, or
    unknown: the command-line reading says which)."""
    if flag in _LEGACY:
        return (f"this llama.cpp has no {flag}: its llama-server refuses the file (option '{key}' not recognized); "
                "remove the line")
    if key in PRESET_ONLY:
        return "a preset-only option of llama-server, not a sampling setting"
    if _ENV_NAME.fullmatch(key) or flag in NON_SAMPLING_OPTIONS:
        return "not a sampling setting; llama-server reads it"
    return None


def import_section(text: str, section: str | None = None) -> tuple[SamplerSettings, Report]:
    """The settings of one section (``[*]`` under it); by default the first model section, else ``[*]``."""
    sections = parse(text)
    names = [s for s in sections if s not in ("*", "")]
    name = section if section is not None else (names[0] if names else "*")
    if name not in sections:
        raise FormatError(f"{FORMAT}: no section [{name}] (sections: {', '.join(sections) or 'none'})")
    merged = {**sections.get("*", {}), **sections.get("", {}), **sections[name]}
    words, notes = [], []
    for key, value in merged.items():
        if key == "version":
            continue
        flag = _flag(key)
        row = FLAG_BY_NAME.get(flag)
        other = _not_sampling(key, flag)
        if row is None and other is not None:  # llama-server's business, with its own value syntax (jinja = true)
            notes.append(FieldNote(f"[{name}] {key}", "dropped", other))
            continue
        if row is not None and row.kind == "switch":
            if value.strip().lower() not in _FALSE:
                words.append(flag)
        else:
            words += [flag, value]
        status, why = ("exact", f"-> {flag}") if row is not None else ("dropped", "not a sampling setting")
        notes.append(FieldNote(f"[{name}] {key}", status, why))
    try:
        result = import_command_with_notes(words, from_defaults=True)
    except FlagError as exc:
        raise FormatError(f"{FORMAT}: [{name}]: {exc}") from None
    notes += [FieldNote(f"[{name}]", "dropped", n) for n in result.notes]
    if len(names) > 1:
        notes.append(FieldNote("(sections)", "dropped", f"read [{name}]; the file has {len(names)} model sections"))
    return result.settings, Report(FORMAT, tuple(notes))


def export_section(settings: SamplerSettings, section: str = "*") -> tuple[str, Report]:
    """One section with every sampling option that differs from llama.cpp's defaults."""
    whole = settings
    settings, context_notes = within_context(settings, RunOptions().n_ctx)  # llama.cpp has no "whole context"
    w = FieldWriter(FORMAT, settings)
    args = to_flags(settings)
    lines: list[str] = [f"[{section}]"]
    written: dict[str, list[str]] = {}
    i = 0
    while i < len(args):
        flag = args[i]
        row = FLAG_BY_NAME[flag]
        value = "true" if row.kind == "switch" else args[i + 1]
        i += 1 if row.kind == "switch" else 2
        written.setdefault(row.field, []).append(escape(value) if row.kind == "breaker" else value)
        if len(written[row.field]) == 1:
            lines.append(f"{flag.lstrip('-')} = {written[row.field][0]}")
    for field, values in written.items():
        if len(values) > 1:  # an INI section holds a key once (llama.cpp keeps the last)
            w.drop(field, f"{len(values)} entries, an INI key holds one: only {values[0]!r} written")
        elif whole.get(field) != settings.get(field):
            w.record(field, "converted", next(n for n in context_notes if n.startswith(field + " ")))
        else:
            w.record(field, "exact", f"-> {values[0]!r}")
    for row in FLAG_BY_NAME.values():
        w.done.add(row.field)
    _fields, report = w.finish()
    return "\n".join(lines) + "\n", report


def sniff(sample: Sample) -> int:
    """By the name, or a ``[section]`` then ``key = value`` lines."""
    if sample.suffix == ".ini":
        return BY_NAME
    text = sample.stripped
    return BY_FIELD if text.startswith("[") and "=" in text else 0
