"""What an import or an export did with each field: the per-field report.

Every field of a file gets one :class:`FieldNote`:

* ``exact`` -- same meaning, same value (a renamed field counts: ``rep_pen`` -> ``--repeat-penalty``);
* ``converted`` -- the same behaviour through a formula, given in the note (dynamic temperature
  min/max -> ``temp = (min + max) / 2``, ``dynatemp_range = (max - min) / 2``);
* ``emulated`` -- a stage no llama.cpp has (smoothing, top-A, tail-free): only the playground runs it;
* ``dropped`` -- not applied, with why (a setting the playground lacks, or one the target ignores);
* ``unknown`` -- a field the format does not document: listed, never silently lost.

A file that cannot be read is one line, :class:`FormatError`, naming the field; then nothing is
imported.  The report travels with the preset (:attr:`app.core.presets.Preset.report`) as its lines.
"""
from __future__ import annotations

from dataclasses import dataclass, field

STATUSES = ("exact", "converted", "emulated", "dropped", "unknown")


class FormatError(ValueError):
    """A malformed preset file: one line naming the file's field and what is wrong with it."""


@dataclass(frozen=True)
class FieldNote:
    """What happened to one field of a file."""

    field: str  # the file's own name for it ("dynatemp", "llm.prediction.topPSampling", "[*] temp")
    status: str  # one of STATUSES
    detail: str = ""  # the formula, the reason, or the setting it became

    def line(self) -> str:
        return f"{self.field}: {self.status}" + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class Report:
    """The notes of one import or export, in the file's field order."""

    format: str
    notes: tuple[FieldNote, ...] = field(default_factory=tuple)
    #: Settings the file leaves unset, which whoever applies it keeps as they are (a llama.cpp command line
    #: without ``-s``: the lane keeps its seed); their names as :class:`sampler.SamplerSettings` has them.
    kept: tuple[str, ...] = ()

    def by_status(self, status: str) -> tuple[FieldNote, ...]:
        return tuple(n for n in self.notes if n.status == status)

    def lines(self) -> tuple[str, ...]:
        """One line per field, for the preset's stored report and the dialog."""
        return tuple(n.line() for n in self.notes)

    def summary(self) -> str:
        """How many fields got each status: "12 exact, 2 converted, 3 dropped"."""
        counts = [(s, len(self.by_status(s))) for s in STATUSES]
        return ", ".join(f"{n} {s}" for s, n in counts if n) or "no fields"
