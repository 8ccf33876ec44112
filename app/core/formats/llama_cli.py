"""A llama.cpp command line as a preset: its sampling flags (:func:`app.core.llamacpp.import_command_with_notes`),
and the command "Copy as llama.cpp" writes (:func:`app.core.llamacpp.export_text`)."""
from __future__ import annotations

from app.core.llamacpp import export_text, import_command_with_notes
from sampler import FlagError, SamplerSettings

from .format import BY_FIELD, Sample
from .report import FieldNote, FormatError, Report

FORMAT = "llama.cpp command line"


def read(text: str) -> tuple[SamplerSettings, Report]:
    try:
        result = import_command_with_notes(text, SamplerSettings())  # a base, so that a missing -s says so
    except FlagError as exc:
        raise FormatError(f"{FORMAT}: {exc}") from None
    notes = [FieldNote(flag, "exact") for flag in result.applied]
    notes += [FieldNote(option, "dropped", "not a sampling setting") for option in result.not_applied]
    notes += [FieldNote("(ignored)", "dropped", n) for n in result.notes]
    if result.seed_kept:
        notes.append(FieldNote("-s", "dropped", "not in the line: the lane keeps its seed"))
    return result.settings, Report(FORMAT, tuple(notes), kept=("seed",) if result.seed_kept else ())


def write(settings: SamplerSettings) -> tuple[str, Report]:
    text = export_text(settings)
    lines = text.splitlines()
    notes = [FieldNote(w, "exact") for w in lines[-1].split() if w.startswith("--")] if lines else []
    notes += [FieldNote("(note)", "dropped", line[2:]) for line in lines if line.startswith("# ")]
    return text + "\n", Report(FORMAT, tuple(notes))


def sniff(sample: Sample) -> int:
    """Words that start as a command or its flags do."""
    text = sample.stripped
    if sample.is_json:
        return 0
    return BY_FIELD if text.startswith(("-", "llama")) or " --" in text else 0
