"""Soft bans and regular-expression bans leave for SillyTavern and KoboldCpp only as what those tools can hold:
literal hard bans (SillyTavern's "quoted" lines, KoboldCpp's banned_tokens); the rest is named in the report."""
from __future__ import annotations

import json

import pytest

from app.core.formats import write_preset
from sampler import SamplerSettings
from sampler.phrases import BannedPhrase

BANS = (BannedPhrase("the end"), BannedPhrase("shivers", multiplier=0.25), BannedPhrase(r"\bsuddenly\b", regex=True))


@pytest.mark.parametrize("fmt, field", [("sillytavern", "banned_tokens"), ("kobold", "banned_tokens")])
def test_only_literal_hard_bans_leave_and_the_rest_is_named(fmt, field):
    data, report = write_preset(SamplerSettings(banned_phrases=BANS), fmt)
    written = json.loads(data)[field]
    text = written if isinstance(written, str) else "\n".join(written)
    assert "the end" in text and "shivers" not in text and "suddenly" not in text
    notes = " ".join(report.lines())
    assert "'shivers' x0.25" in notes and "/\\bsuddenly\\b/" in notes
