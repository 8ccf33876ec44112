"""Find slop: phrases recurring across samples far more than the model's probability predicts."""
from __future__ import annotations

import math
import re

from app.core.bans.finder import Sample, propose, session_samples, survey
from sampler.ban_regex import check_pattern
from session_helpers import new_playground, run


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
    samples = [sample((f" {who}", 0.5), (" rare", 0.01), (" words", 0.01), (".", 0.5), (" Then", 0.01))
               for who in ("one", "two", "three")]
    samples.append(sample((" only", 0.01), (" here", 0.01)))
    found = {p.phrase for p in propose(samples)}
    assert "rare words" in found and "words then" not in found and "only here" not in found


def test_a_shorter_phrase_inside_a_longer_one_with_the_same_count_is_left_out():
    """The longer one is proposed: it is what recurs, and banning it takes back less that did not."""
    samples = [sample((f"{who},", 0.5), (" a", 0.05), (" shiver", 0.05), (" ran", 0.05), (" down", 0.05))
               for who in ("Then", "Slowly", "Again")]
    found = [p.phrase for p in propose(samples)]
    assert found[0] == "a shiver ran down" and "shiver ran" not in found


# -- the same span of text counts once -----------------------------------------------------------------------


def rare_sample(lead: str, tail: str = " sea"):
    return sample((lead, 0.5), (" barely", 0.1), (" above", 0.1), (",", 0.5), (tail, 0.5))


def test_same_seed_reruns_count_once_and_the_note_says_on_how_many_samples_it_rests():
    reruns = [rare_sample(" she")] * 5  # one text written five times over: one sample, whatever the count
    found = survey(reruns + [sample((" he", 0.5), (" ran", 0.5))])
    assert found.proposals == [] and (found.texts, found.independent) == (6, 2)
    assert found.note.startswith("2 independent samples of 6 texts (4 add no span of their own")
    found = survey(reruns + [rare_sample(" we"), rare_sample(" they")])
    (p,) = [p for p in found.proposals if p.phrase == "barely above"]
    assert (p.samples, p.of) == (3, 3) and math.isclose(p.expected, 0.03)
    assert "in 3 of 3 independent samples" in p.line()


def test_branches_that_share_a_beginning_count_it_once_and_what_differs_after_it_apart():
    prompt = "once upon a time" + "\x00"
    parent = Sample(prompt, rare_sample(" she"))
    same = Sample(prompt + " she", rare_sample("")[1:])  # forked after " she", went on alike: the same span
    assert [p.phrase for p in propose([parent, same])] == []
    apart = Sample(prompt + " she", sample((" said", 0.5)) + rare_sample("")[1:])  # another way to it: a new span
    assert "barely above" in [p.phrase for p in propose([parent, same, apart])]
    other_prompt = Sample("the cat sat" + "\x00", rare_sample(" she"))  # the same words after another prompt
    assert any("barely above" in p.phrase for p in propose([parent, same, other_prompt]))
    cut_short = Sample(prompt, rare_sample(" she")[:3])  # a run that stopped early: the start of another
    assert survey([parent, cut_short]).independent == 1


def test_the_writers_own_text_is_in_no_phrase():
    written = [Sample(f"p{i}", [(" barely", 0.1), (" above", None), (" it", 0.5)]) for i in range(4)]
    assert "barely above" not in [p.phrase for p in propose(written)]


def test_a_session_of_same_seed_generates_is_one_sample_and_new_seeds_add_more(tmp_path):
    pg = new_playground(tmp_path)
    try:
        for _ in range(3):
            run(pg)  # the same seed: the same text, three root branches
        assert len(pg.state.lane().tree.branches) == 3
        assert survey(session_samples(pg.state.lanes)).independent == 1
        for seed in (7, 8):
            pg.lanes.set_settings(0, pg.state.lane().settings.replace(seed=seed), None)
            run(pg)
        assert survey(session_samples(pg.state.lanes)).independent == 3
    finally:
        assert pg.engine.shutdown(10)


# -- constructions --------------------------------------------------------------------------------------------

NOT_BUT = ("It was not the wind but the sea.", "She was not afraid but tired.", "They came not for gold but for him.")


def test_a_recurring_not_x_but_y_is_proposed_as_a_pattern_the_ban_list_accepts():
    found = propose([[(text, math.log(0.5))] for text in NOT_BUT])
    pattern = found[0]
    assert pattern.regex and pattern.name == "not X but Y" and (pattern.samples, pattern.of) == (3, 3)
    check_pattern("ban", pattern.phrase)  # sampler.ban_regex accepts it
    assert all(re.search(pattern.phrase, t, re.I) for t in NOT_BUT)
    assert not re.search(pattern.phrase, "He did not know. But then", re.I)
    assert pattern.example in ("not the wind but", "not afraid but", "not for gold but") and "not X but Y" in pattern.line()
    once = propose([[(NOT_BUT[0], math.log(0.5))]] * 3)  # three reruns of one text: once
    assert not any(p.regex for p in once)


def test_its_not_x_its_y_and_x_not_y_are_found_too():
    texts = ["It's not a warning, it's a promise.", "This is not a game; it is a war.", "That was not luck, that was work."]
    kinds = {p.name for p in propose([[(t, math.log(0.5))] for t in texts]) if p.regex}
    assert kinds == {"it's not X, it's Y"}
    texts = ["It was a promise, not a threat.", "A warning, not an order.", "She left a gift, not the letter."]
    assert {p.name for p in propose([[(t, math.log(0.5))] for t in texts]) if p.regex} == {"X, not Y"}
