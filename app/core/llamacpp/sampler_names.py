"""``--samplers`` names and ``--sampler-seq`` letters as llama.cpp reads them: the unknown ones are left out.

llama.cpp (``common/sampling.cpp`` of the version llama-cpp-python 0.3.36 vendors) never refuses a
sampler name: ``common_sampler_types_from_names`` splits ``--samplers`` on every ``;`` (empty parts
and spaces kept: ``"top_k; top_p"`` has the part ``" top_p"``), lower-cases each part (ASCII) and looks
it up among the canonical names and their kebab-case, no-dash and ``nucleus``/``temp``/``typ`` aliases;
a part it cannot match is left out with the warning "unable to match sampler by name '...'".
An empty part names no stage and is left out without a note: ``--samplers ""`` is how an empty chain is
written (llama.cpp reads it as one, after its warning about the name '').
``common_sampler_types_from_chars`` does the same for each ``--sampler-seq`` letter (case-sensitive:
"unable to match sampler by char").  The importer does the same, with one note per flag instead of the
warnings.

The names the playground knows beyond stock llama.cpp are kept: ``scatter`` (the scatter fork runs it;
stock llama.cpp leaves it out, as the exports' notes say) and the playground's own stages (smoothing,
top-A, tail-free), which its own exports write.  ``infill`` is llama.cpp's, and the playground has no
such stage: it is left out with a note saying that llama.cpp would run it.
"""
from __future__ import annotations

from sampler.stagetable import STAGE_ALIASES, STAGE_BY_LETTER, UNSUPPORTED_STAGES

#: ``common_sampler_type_to_chr`` letters of stages llama.cpp has and the playground does not.
_UNSUPPORTED_LETTERS = {"i": "infill"}
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def known_sampler_names(flag: str, raw: str) -> tuple[str, str | None]:
    """``raw`` (the value of ``--samplers``) without the parts llama.cpp cannot match, and a note naming
    what was left out (None when nothing was)."""
    kept, unknown, unsupported = [], [], []
    for part in raw.split(";"):
        key = part.translate(_ASCII_LOWER)
        if key in STAGE_ALIASES:
            kept.append(key)
        elif key in UNSUPPORTED_STAGES:
            unsupported.append(part)
        elif part:
            unknown.append(part)
    return ";".join(kept), _note(flag, "name", unknown, unsupported)


def known_sampler_letters(flag: str, raw: str) -> tuple[str, str | None]:
    """``raw`` (the value of ``--sampler-seq``) without the letters llama.cpp cannot match, and a note."""
    kept = "".join(c for c in raw if c in STAGE_BY_LETTER)
    unknown = [c for c in raw if c not in STAGE_BY_LETTER and c not in _UNSUPPORTED_LETTERS]
    unsupported = [c for c in raw if c in _UNSUPPORTED_LETTERS]
    return kept, _note(flag, "letter", unknown, unsupported)


def _note(flag: str, unit: str, unknown: list[str], unsupported: list[str]) -> str | None:
    parts = []
    if unknown:
        names = ", ".join(repr(u) for u in unknown)
        parts.append(f"left out the unknown sampler {unit}{'s' if len(unknown) > 1 else ''} {names}, as llama.cpp "
                     f"does (it warns \"unable to match sampler by {'char' if unit == 'letter' else 'name'}\")")
    if unsupported:
        names = ", ".join(repr(u) for u in unsupported)
        parts.append(f"left out {names}: the playground has no infill sampler (llama.cpp would run it)")
    return f"{flag}: " + "; ".join(parts) if parts else None
