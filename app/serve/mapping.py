"""A request's sampler fields as settings: one mapping per API, each the converter of that tool's
preset files (``app/core/formats``), never a copy here.

* llama-server's ``/completion`` and the OpenAI endpoints: :func:`app.core.formats.llama_server.import_request`
  (llama-server takes its own fields in an OpenAI request too, so the OpenAI fields of the same names,
  ``temperature``, ``top_p``, ``presence_penalty``, ``frequency_penalty``, ``seed``, ``logit_bias``,
  are the same fields there);
* KoboldCpp's: :func:`app.core.formats.kobold.import_fields` (the reader of KoboldCpp's payloads and
  ``gendefaults``), then the scatter fields, which KoboldCpp has not, by their llama-server names.

Scatter asked for by its fields in an API whose order cannot name it (KoboldCpp's ``sampler_order``,
or a request without ``samplers``) runs where llama.cpp's default order has it, right before the
temperature; the report says so.
"""
from __future__ import annotations

from app.core.formats import kobold
from app.core.formats.llama_server import FIELD_ROWS, import_request
from app.core.formats.report import FieldNote, FormatError, Report
from sampler import SamplerSettings

from .fields import from_format

#: The scatter fields of a request (``scatter_k`` ...).
SCATTER_FIELDS = tuple(name for name, row in FIELD_ROWS.items() if row.stage == "scatter")


def _without(doc: dict, handled) -> dict:
    return {k: v for k, v in doc.items() if k not in handled}


def llama_settings(doc: dict, handled, base: SamplerSettings) -> tuple[SamplerSettings, Report]:
    """llama-server's sampling fields of ``doc`` (the ``handled`` request fields left out)."""
    try:
        settings, report = import_request(_without(doc, handled), base)
    except FormatError as exc:
        raise from_format(exc) from None
    return _scatter_in_order(settings, report, doc)


def kobold_settings(doc: dict, handled) -> tuple[SamplerSettings, Report]:
    """KoboldCpp's generate fields of ``doc``, then the scatter fields (llama-server's names)."""
    rest = _without(doc, handled)
    scatter = {k: rest.pop(k) for k in SCATTER_FIELDS if k in rest}
    try:
        settings, report = kobold.import_fields(rest)
        if scatter:
            settings, extra = import_request(scatter, settings)
            report = Report(report.format, report.notes + extra.notes)
    except FormatError as exc:
        raise from_format(exc) from None
    return _scatter_in_order(settings, report, doc)


def _scatter_in_order(settings: SamplerSettings, report: Report, doc: dict) -> tuple[SamplerSettings, Report]:
    asked = any(k in doc for k in SCATTER_FIELDS)
    if not asked or "scatter" in settings.samplers or "samplers" in doc:
        return settings, report
    order = list(settings.samplers)
    at = order.index("temperature") if "temperature" in order else len(order)
    order.insert(at, "scatter")
    note = FieldNote("(scatter)", "converted", "scatter fields given and the order does not name scatter: "
                     "it runs right before the temperature, as in llama.cpp's default order")
    return settings.with_values({"samplers": tuple(order)}), Report(report.format, report.notes + (note,))


def dropped(report: Report, notes: list[FieldNote]) -> Report:
    """``report`` with the request fields the server does not act on (each with why)."""
    return Report(report.format, report.notes + tuple(notes))


def override_note(report: Report) -> Report:
    """The report of a request whose settings a lane of the window replaced."""
    note = FieldNote("(override)", "dropped", "a lane of the window overrides requests: its settings ran instead")
    return Report(report.format, report.notes + (note,))
