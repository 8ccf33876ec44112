"""Ban lists: the antislop sampler's published files read as it reads them; regex refusal; the line syntax."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from sampler.ban_lists import ban_list_json, merge_phrases, read_ban_list
from sampler.ban_regex import pattern_problem
from sampler.phrase_match import PhraseMatcher
from sampler.phrases import BannedPhrase, check_phrases, phrases_from_json, phrases_to_json

DATA = Path(__file__).parent / "data" / "antislop"


def test_the_antislop_adjustments_file_reads_as_its_own_loader_reads_it():
    text = (DATA / "slop_phrase_prob_adjustments.json").read_text()
    theirs = dict(json.loads(text))  # run_api.py's load_slop_adjustments: dict(json.load(f))
    ours = read_ban_list(text)
    assert [(p.text, p.multiplier) for p in ours] == [(k, float(v)) for k, v in theirs.items()]
    assert all(not p.exact_case and not p.regex for p in ours)
    assert read_ban_list(json.dumps(theirs)) == ours  # the object form too


def test_the_antislop_regex_list_reads_as_patterns():
    ours = read_ban_list((DATA / "slop_regexes.txt").read_text(), regex=True)
    assert [p.text for p in ours] == ["(?i)not [^.!?]{3,60} but", r"(?i)each(?:\s*\w+\s*|\s*)a",
                                      r"(?i)every(?:\s*\w+\s*|\s*)a"]
    assert all(p.regex and p.hard for p in ours)


def test_a_file_of_counts_is_refused_in_one_line():
    with pytest.raises(ValueError, match=r"entry 1: 'took a deep breath' has 28671") as err:
        read_ban_list((DATA / "slop_phrases_counts.json").read_text())
    assert "\n" not in str(err.value)


def test_plain_text_lists_and_round_trips(tmp_path):
    phrases = read_ban_list("# mine\nshivers down\n\n\"a \\\"quoted\\\" one\",\nTestament to\n", multiplier=0.5)
    assert [p.text for p in phrases] == ["shivers down", 'a "quoted" one', "Testament to"]
    assert all(p.multiplier == 0.5 for p in phrases)
    mixed = phrases + (BannedPhrase("Paris", True), BannedPhrase(r"\bfoo\b", regex=True))
    assert read_ban_list(ban_list_json(mixed)) == mixed
    assert json.loads(ban_list_json(phrases))[0] == ["shivers down", 0.5]  # antislop's pairs when it can
    assert merge_phrases(phrases[:1], (BannedPhrase("SHIVERS DOWN"), BannedPhrase("x y"))) == (
        phrases[0], BannedPhrase("x y"))


@pytest.mark.parametrize("pattern", [r"(a+)+b", r"(?:\w+\s?)+x", r"(x)\1", r"(?P<a>x)(?P=a)", r"a*", "(", r"(?:ab?){2,}",
                                     r"(a|aa)+$", r"(the|then)*x", r"x(a|b|)+", r"(?:[ab]c|ad){2,}"])
def test_catastrophic_or_broken_patterns_are_refused(pattern):
    assert pattern_problem(pattern)
    with pytest.raises(ValueError) as err:
        check_phrases("--ban-phrase", [(pattern, False, 0.0, True)])
    assert "\n" not in str(err.value) and "refused" in str(err.value)


@pytest.mark.parametrize("pattern", [r"(?i)not [^.!?]{3,60} but", r"\bvery \w+ly\b", r"(?:ab){2,9}", r"(?=x)y",
                                     r"(\w|\s)+x", r"(cat|dog)+s", r"(?:x\d|y\w)+", r"(a|aa)x", r"(?:\bfoo|bar)+"])
def test_bounded_patterns_are_accepted(pattern):
    assert pattern_problem(pattern) is None


@pytest.mark.parametrize("value", [1.0, 1.5, -0.1, float("nan"), "half", True])
def test_a_bad_multiplier_is_one_line(value):
    with pytest.raises(ValueError, match="multiplier") as err:
        check_phrases("--ban-phrase", [("cat", False, value)])
    assert "\n" not in str(err.value)


def test_json_keeps_older_files_readable_and_writes_defaults_as_before():
    old = [{"text": "the cat", "exact_case": False}]
    assert check_phrases("x", phrases_from_json("x", old)) == (BannedPhrase("the cat"),)
    assert phrases_to_json((BannedPhrase("the cat"),)) == old
    soft = BannedPhrase("the cat", multiplier=0.25)
    assert check_phrases("x", phrases_from_json("x", phrases_to_json((soft,)))) == (soft,)


def test_a_thousand_phrases_match_like_one_at_a_time():
    """The trie finds what each phrase alone finds (a loop over the phrases is the reference)."""
    words = [f"w{i}" for i in range(200)]
    phrases = [BannedPhrase(f"{words[i % 200]} {words[(i * 7 + i // 200) % 200]}") for i in range(1000)]
    text = " ".join(words[(i * 13) % 200] for i in range(400)) + " w3 w21 end"
    together = PhraseMatcher(phrases).scan(text, 0, "", True)
    alone = [PhraseMatcher([p]).scan(text, 0, "", True).match for p in phrases]
    first = min((m for m in alone if m is not None), key=lambda m: m.start)
    assert together.match is not None and together.match.start == first.start
