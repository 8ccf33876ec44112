"""Writing settings into a tool's preset fields, each setting with its note.

:class:`FieldWriter` collects the file's fields in order and a note per setting (keyed by the
playground's field path).  At the end every setting that differs from its default and was not
written is ``dropped`` ("<format> has no such setting"), so nothing is lost silently.
"""
from __future__ import annotations

from sampler import SamplerSettings
from sampler.emulated import active_stages_not_in_llamacpp
from sampler.flagtable import ROWS, row_for

from .report import FieldNote, Report


class FieldWriter:
    def __init__(self, fmt: str, settings: SamplerSettings):
        self.fmt, self.settings = fmt, settings
        self.out: dict = {}
        self.notes: list[FieldNote] = []
        self.done: set[str] = set()

    def get(self, path: str):
        return self.settings.get(path)

    def changed(self, path: str) -> bool:
        return self.get(path) != row_for(path).default

    def put(self, key: str, value, path: str | None = None, status: str = "exact", detail: str = "") -> None:
        """Write field ``key``; ``path`` is the setting it comes from (noted once per path)."""
        self.out[key] = value
        if path is not None:
            self.record(path, status, detail or f"-> {key} = {value!r}")

    def record(self, path: str, status: str, detail: str) -> None:
        self.done.add(path)
        self.notes.append(FieldNote(path, status, detail))

    def drop(self, path: str, why: str) -> None:
        self.record(path, "dropped", why)

    def finish(self, *, stages_kept: tuple[str, ...] = ()) -> tuple[dict, Report]:
        """The fields and the report.  ``stages_kept``: the stages not in llama.cpp that this format runs."""
        for name in active_stages_not_in_llamacpp(self.settings):
            if name not in stages_kept:
                self.notes.append(FieldNote(name, "dropped", f"{self.fmt} does not run the {name} stage"))
        for row in ROWS:
            if row.kind == "seq" or row.field in self.done:
                continue
            if self.settings.get(row.field) != row.default:
                self.drop(row.field, f"{self.fmt} has no such setting")
        return self.out, Report(self.fmt, tuple(self.notes))
