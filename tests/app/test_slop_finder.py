"""Find slop: phrases recurring across samples far more than the model's probability predicts."""
from __future__ import annotations

import math

from app.core.bans.finder import propose


def sample(*pieces):
    return [(text, math.log(p)) for text, p in pieces]


def test_a_rare_phrase_in_many_samples_is_proposed_and_a_likely_one_is_not():
    # "barely above" is written in 3 of 4 samples where the model gave its two tokens 0.1 each (p = 0.01):
    # 4 samples x 0.01 predict 0.04, 3 seen: 75x.  "of the" (p = 0.9 x 0.9) in all 4 is what the model predicts.
    rare = [(" barely", 0.1), (" above", 0.1)]
    likely = [(" of", 0.9), (" the", 0.9)]
    samples = [sample((f" {who}", 0.5), *rare, (f", {where}", 0.5), (".", 0.5), *likely, (f" {what}", 0.5))
               for who, where, what in (("she", "there", "sea"), ("Tom", "then", "day"), ("we", "ah", "town"))]
    samples.append(sample((" he", 0.5), *likely, (" hill", 0.5)))
    found = {p.phrase: p for p in propose(samples)}
    assert "of the" not in found
    p = found["barely above"]
    assert (p.samples, p.of) == (3, 4)
    assert math.isclose(p.expected, 0.04) and math.isclose(p.ratio, 75.0)


def test_a_phrase_in_one_sample_or_across_punctuation_is_not_proposed():
    samples = [sample((" rare", 0.01), (" words", 0.01), (".", 0.5), (" Then", 0.01)) for _ in range(3)]
    samples.append(sample((" only", 0.01), (" here", 0.01)))
    found = {p.phrase for p in propose(samples)}
    assert "rare words" in found and "words then" not in found and "only here" not in found


def test_a_shorter_phrase_inside_a_longer_one_with_the_same_count_is_left_out():
    """The longer one is proposed: it is what recurs, and banning it takes back less that did not."""
    samples = [sample((" a", 0.05), (" shiver", 0.05), (" ran", 0.05), (" down", 0.05)) for _ in range(3)]
    found = [p.phrase for p in propose(samples)]
    assert found[0] == "a shiver ran down" and "shiver ran" not in found
