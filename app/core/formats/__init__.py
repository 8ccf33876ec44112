"""Presets of the tools writers use, both ways, each with a per-field report (:mod:`app.core.formats.report`).

:func:`read_preset` reads a file's bytes (the format from ``format=`` or guessed from the name and
the content), :func:`write_preset` writes settings in a format.  :data:`FORMATS` has one row
(:class:`~app.core.formats.format.Format`) per format; the window and the command line list them from it.
Formats (their names):

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

from dataclasses import dataclass

from sampler import SamplerSettings

from . import kobold, kobold_export, llama_cli, llama_ini, lmstudio, sillytavern, st_export, webui, webui_export
from .format import Format, Sample, json_reader, json_writer
from .report import FormatError, Report

__all__ = ["FORMATS", "Format", "FormatError", "Imported", "Report", "detect", "file_patterns", "read_preset",
           "writable", "write_preset"]

#: The formats by name, in the order the window and the command line list them.
FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("sillytavern", "SillyTavern text completion (llama.cpp)", "SillyTavern -> llama.cpp", (".json",),
           sillytavern.sniff, json_reader(sillytavern.import_preset, sillytavern.FORMAT), json_writer(st_export.write)),
    Format("kobold", "KoboldCpp generate fields", "KoboldCpp", (".json",),
           kobold.sniff, json_reader(kobold.import_fields, kobold.FORMAT), json_writer(kobold_export.export_fields)),
    Format("kcpps", "KoboldCpp .kcpps", "KoboldCpp", kobold.KCPPS_EXTENSIONS,
           kobold.sniff_kcpps, json_reader(kobold.import_kcpps, "KoboldCpp .kcpps")),
    Format("webui", "text-generation-webui YAML", "text-generation-webui", webui.EXTENSIONS,
           webui.sniff, webui.import_yaml, webui_export.export_yaml),
    Format("lmstudio", "LM Studio preset", "llama.cpp", (".preset.json",),
           lmstudio.sniff, json_reader(lmstudio.import_preset, lmstudio.FORMAT), json_writer(lmstudio.export_preset)),
    Format("llama-ini", "llama-server models preset INI", "llama.cpp", (".ini",),
           llama_ini.sniff, llama_ini.import_section, llama_ini.export_section),
    Format("llama-cli", "llama.cpp command line", "llama.cpp", (".sh", ".txt"),
           llama_cli.sniff, llama_cli.read, llama_cli.write),
)}


@dataclass(frozen=True)
class Imported:
    settings: SamplerSettings
    report: Report
    format: str  # the format's name


def writable() -> tuple[str, ...]:
    """The names of the formats that can be written, in order."""
    return tuple(name for name, f in FORMATS.items() if f.write is not None)


def file_patterns() -> tuple[str, ...]:
    """``*.json``, ``*.yaml`` ...: every format's file endings once (an ending that ends in an earlier one left out)."""
    endings: list[str] = []
    for f in FORMATS.values():
        endings += [e for e in f.extensions if not any(e.endswith(seen) for seen in endings)]
    return tuple(f"*{e}" for e in endings)


def detect(name: str, text: str) -> str:
    """The format of a file from its name and content: the surest sniff, the earlier row on a tie
    (FormatError when no format knows it)."""
    sample = Sample(name, text)
    best, best_name = 0, None
    for f in FORMATS.values():
        sure = f.sniff(sample)
        if sure > best:
            best, best_name = sure, f.name
    if best_name is not None:
        return best_name
    if sample.json_error is not None:
        raise sample.json_error
    if not sample.is_json:
        raise FormatError(f"{name}: not a preset file this version reads (JSON, YAML, INI or a llama.cpp command line)")
    tools = [f.label for f in FORMATS.values() if any(e.endswith(".json") for e in f.extensions)]
    raise FormatError(f"{name}: a JSON object, but not a preset of {', '.join(tools[:-1])} or {tools[-1]}")


def read_preset(name: str, data: bytes, format: str | None = None) -> Imported:
    """The settings in a file's bytes, with the report; FormatError (one line) and nothing else on failure."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    try:
        fmt = format or detect(name, text)
        if fmt not in FORMATS:
            raise FormatError(f"--from: unknown format {fmt!r} (one of {', '.join(FORMATS)})")
        settings, report = FORMATS[fmt].read(text)
    except RecursionError:
        raise FormatError(f"{name}: nested too deeply") from None
    return Imported(settings, report, fmt)


def write_preset(settings: SamplerSettings, format: str) -> tuple[bytes, Report]:
    """The file's bytes in ``format`` and the report of what each setting became."""
    writer = FORMATS[format].write if format in FORMATS else None
    if writer is None:
        raise FormatError(f"--to: cannot write {format!r} (one of {', '.join(writable())})")
    text, report = writer(settings)
    return text.encode("utf-8"), report
