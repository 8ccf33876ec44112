"""Regular-expression bans in the growing text: the combined pattern finds what each pattern alone finds, and
a match that may still be completing holds the text back from where it begins."""
from __future__ import annotations

import pytest
import regex

from app.engine.run.ban_match import BanMatcher
from sampler.phrases import check_phrases

PATTERNS = check_phrases("x", [(p, False, 0.0, True) for p in (
    r"(?i)not [^.!?]{3,60} but", r"(?i)each(?:\s*\w+\s*|\s*)a", r"\bcat\b", r"(?i)\bdog\w*", r"s[aeiou]t")])
TEXT = "The Dog sat on the mat; each of them was not a cat, but a hound. Cat and dog."


def earliest_alone(text):
    """The reference: Python's own search of each pattern (the regex package), earliest start, first listed."""
    hits = [(m.start(), i) for i, p in enumerate(PATTERNS) if (m := regex.search(p.text, text))]
    return min(hits) if hits else None


@pytest.mark.parametrize("cut", [len(TEXT), 40, 30, 12])
def test_the_combined_pattern_finds_the_earliest_match_of_any(cut):
    text = TEXT[:cut]
    scan = BanMatcher(PATTERNS).scan(text, 0, " ", True)
    ref = earliest_alone(text)
    assert (None if scan.match is None else (scan.match.start, PATTERNS.index(scan.match.phrase))) == ref


def test_a_partial_match_holds_back_from_where_it_begins():
    m = BanMatcher(check_phrases("x", [(r"(?i)not [^.!?]{3,60} but", False, 0.0, True)]))
    text = "He was not the storm,"
    scan = m.scan(text, 0, " ", False)
    assert scan.match is None and scan.pending == text.index("not")
    done = m.scan(text + " but the calm.", 0, " ", False)
    assert done.match is not None and done.match.start == text.index("not")
    assert m.scan("He was not there.", 0, " ", False).pending == len("He was not there.")


def test_a_match_at_the_end_of_a_growing_text_waits_for_the_next_character():
    m = BanMatcher(check_phrases("x", [(r"\bcat\b", False, 0.0, True)]))
    assert m.scan("the cat", 0, " ", False).match is None  # may become "catalog"
    assert m.scan("the cat", 0, " ", True).match.start == 4
    assert m.scan("the catalog", 0, " ", False).match is None


def test_many_regex_bans_are_compiled_once_for_every_lane(monkeypatch):
    """10,000 patterns took seconds to compile at each run's start, once per lane: now once per list."""
    from app.engine.run import ban_match

    compiles = []
    real = regex.compile
    monkeypatch.setattr(ban_match.regex, "compile", lambda *a, **k: compiles.append(a[0]) or real(*a, **k))
    many = check_phrases("x", [(rf"w{i}x[a-z]+y", False, 0.0, True) for i in range(2000)])
    lanes = [BanMatcher(tuple(many)) for _ in range(4)]  # equal lists, as each lane's settings hold them
    assert len(compiles) == len(many) + 1  # each pattern and the combined one, once
    assert all(lane.scan("so w77xabcy here", 0, " ", True).match.start == 3 for lane in lanes)


def test_a_pattern_one_lane_drops_stays_in_the_others():
    a, b = BanMatcher(PATTERNS), BanMatcher(PATTERNS)
    a.patterns.pop(0)
    assert len(b.patterns) == len(PATTERNS)
