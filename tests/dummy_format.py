"""A format no tool has, for the tests that add one row to the registry (:data:`app.core.formats.FORMATS`)."""
from __future__ import annotations

from app.core.formats.format import BY_FIELD, BY_NAME, Format, Sample
from app.core.formats.report import FieldNote, Report
from sampler import SamplerSettings


def sniff(sample: Sample) -> int:
    if sample.suffix == ".dmy":
        return BY_NAME
    return BY_FIELD if sample.stripped.startswith("DUMMY ") else 0


def read(text: str) -> tuple[SamplerSettings, Report]:
    temp = float(text.split()[1])
    return SamplerSettings(temp=temp), Report("Dummy", (FieldNote("temp", "exact"),))


def write(settings: SamplerSettings) -> tuple[str, Report]:
    return f"DUMMY {settings.temp!r}\n", Report("Dummy", (FieldNote("temp", "exact"),))


DUMMY = Format("dummy", "Dummy tool preset", "llama.cpp", (".dmy", ".dummy.json"), sniff, read, write)
