"""Presets of the tools writers use, both ways, each with a per-field report (:mod:`app.core.formats.report`).

:func:`read_preset` reads a file's bytes (the format from ``format=`` or guessed from the name and
the content), :func:`write_preset` writes settings in a format.  Formats (their names):

* ``sillytavern`` -- SillyTavern text-completion preset JSON, as SillyTavern sends it to llama.cpp;
* ``kobold`` -- KoboldCpp generate fields (API payload, ``--gendefaults`` JSON, SillyTavern's
  KoboldAI presets); ``kcpps`` reads a KoboldCpp launcher file's ``gendefaults`` (read only);
* ``webui`` -- text-generation-webui preset YAML;
* ``lmstudio`` -- LM Studio preset JSON;
* ``llama-ini`` -- llama-server ``--models-preset`` INI (one section);
* ``llama-cli`` -- a llama.cpp command line.

Qt-free; nothing here touches the user's files (the caller reads and writes them).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

from app.core.llamacpp import export_text, import_command_with_notes
from sampler import FlagError, SamplerSettings

from . import kobold, llama_ini, lmstudio, sillytavern, webui
from .kobold_export import export_fields as _kobold_export
from .report import FieldNote, FormatError, Report

__all__ = ["FORMATS", "FormatError", "Imported", "Report", "detect", "read_preset", "write_preset"]


@dataclass(frozen=True)
class Imported:
    settings: SamplerSettings
    report: Report
    format: str  # the format's name


def _json(text: str, fmt: str):
    try:
        return json.loads(text)
    except ValueError as exc:
        raise FormatError(f"{fmt}: not JSON ({exc})") from None


def _cli_read(text: str) -> tuple[SamplerSettings, Report]:
    try:
        result = import_command_with_notes(text)
    except FlagError as exc:
        raise FormatError(f"llama.cpp command line: {exc}") from None
    notes = [FieldNote(w, "exact") for w in text.split() if w.startswith("-")]
    notes += [FieldNote("(ignored)", "dropped", n) for n in result.notes]
    return result.settings, Report("llama.cpp command line", tuple(notes))


def _cli_write(settings: SamplerSettings) -> tuple[str, Report]:
    text = export_text(settings)
    lines = text.splitlines()
    notes = [FieldNote(w, "exact") for w in lines[-1].split() if w.startswith("--")] if lines else []
    notes += [FieldNote("(note)", "dropped", line[2:]) for line in lines if line.startswith("# ")]
    return text + "\n", Report("llama.cpp command line", tuple(notes))


def _dumps(pair):
    doc, report = pair
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n", report


#: name -> (reader of text, writer to text or None, file extension)
FORMATS: dict[str, tuple[Callable, Callable | None, str]] = {
    "sillytavern": (lambda t: sillytavern.import_preset(_json(t, sillytavern.FORMAT)),
                    lambda s: _dumps(sillytavern.export_preset(s)), ".json"),
    "kobold": (lambda t: kobold.import_fields(_json(t, kobold.FORMAT)), lambda s: _dumps(_kobold_export(s)), ".json"),
    "kcpps": (lambda t: kobold.import_kcpps(_json(t, "KoboldCpp .kcpps")), None, ".kcpps"),
    "webui": (webui.import_yaml, webui.export_yaml, ".yaml"),
    "lmstudio": (lambda t: lmstudio.import_preset(_json(t, lmstudio.FORMAT)),
                 lambda s: _dumps(lmstudio.export_preset(s)), ".preset.json"),
    "llama-ini": (llama_ini.import_section, llama_ini.export_section, ".ini"),
    "llama-cli": (_cli_read, _cli_write, ".sh"),
}
WRITABLE = tuple(name for name, (_r, w, _e) in FORMATS.items() if w is not None)

#: Keys that only SillyTavern's text-completion presets hold.
_ST_KEYS = {"rep_pen", "temperature_last", "freq_pen", "presence_pen", "samplers", "banned_tokens", "nsigma",
            "min_temp", "max_temp", "dynatemp"}


def detect(name: str, text: str) -> str:
    """The format of a file from its name and content (FormatError when it is none of them)."""
    suffix = PurePath(name).suffix.lower()
    if suffix in (".yaml", ".yml"):
        return "webui"
    if suffix == ".ini":
        return "llama-ini"
    if suffix in (".kcpps", ".kcppt"):
        return "kcpps"
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        if stripped.startswith("[") and "=" in stripped:
            return "llama-ini"
        if stripped.startswith(("-", "llama")) or " --" in stripped:
            return "llama-cli"
        raise FormatError(f"{name}: not a preset file this version reads (JSON, YAML, INI or a llama.cpp command line)")
    doc = _json(text, PurePath(name).name)
    if not isinstance(doc, dict):
        raise FormatError(f"{name}: expected a JSON object")
    if "operation" in doc or any(str(k).startswith("llm.") for k in doc):
        return "lmstudio"
    if "gendefaults" in doc or "model_param" in doc:
        return "kcpps"
    if "savedsettings" in doc or {"typ_s", "tfs_s", "miro_type"} & set(doc):
        return "kobold"  # a Kobold Lite save or its settings
    if "sampler_order" in doc and not ("samplers" in doc and "rep_pen" in doc and "temperature_last" in doc):
        return "kobold"
    if _ST_KEYS & set(doc):
        return "sillytavern"
    if {"temperature", "top_k", "rep_pen_range", "typical", "tfs"} & set(doc):
        return "kobold"
    raise FormatError(f"{name}: a JSON object, but not a preset of SillyTavern, KoboldCpp or LM Studio")


def read_preset(name: str, data: bytes, format: str | None = None) -> Imported:
    """The settings in a file's bytes, with the report; FormatError (one line) and nothing else on failure."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    fmt = format or detect(name, text)
    if fmt not in FORMATS:
        raise FormatError(f"--from: unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    try:
        settings, report = FORMATS[fmt][0](text)
    except RecursionError:
        raise FormatError(f"{name}: nested too deeply") from None
    return Imported(settings, report, fmt)


def write_preset(settings: SamplerSettings, format: str) -> tuple[bytes, Report]:
    """The file's bytes in ``format`` and the report of what each setting became."""
    writer = FORMATS[format][1] if format in FORMATS else None
    if writer is None:
        raise FormatError(f"--to: cannot write {format!r} (one of {', '.join(WRITABLE)})")
    text, report = writer(settings)
    return text.encode("utf-8"), report
