"""Soft bans, regular-expression bans, the walk-back depth and budget, and a run where every choice is banned
(fake backend)."""
from __future__ import annotations

import math

import pytest

from app.engine.face.options import LaneConfig, RunOptions
from app.engine.fake import FakeModel
from app.engine.run import bans
from app.engine.run.generation import Generation
from sampler import SamplerSettings

HOT = SamplerSettings(seed=5, temp=1.2, top_k=0, top_p=1.0, min_p=0.0)
GREEDY = SamplerSettings(seed=5, temp=0.0)
PROMPT = "once upon a time"


def run(settings, n=60):
    gen = Generation(FakeModel(), PROMPT, [LaneConfig(settings)],
                     RunOptions(max_tokens=n, n_ctx=512))
    handed = [r for batch in gen for r in batch]
    return gen.results()[0], handed


def words(text, skip=2, n=2):
    return " ".join(text.split()[skip:skip + n])


def test_a_soft_ban_keeps_a_phrase_whose_token_stays_the_most_likely():
    """The antislop rule: after the adjustment the token is still the arg-max (greedy picks it): kept, marked."""
    before, _ = run(GREEDY)
    phrase = words(before.text)
    kept, handed = run(GREEDY.replace(banned_phrases=((phrase, False, 0.999),)))
    hits = [h for r in handed for h in r.ban_hits]
    assert kept.text == before.text and hits and "still the most likely" in hits[0].kept
    assert any(r.ban_kept for r in handed)


def test_a_strong_soft_ban_takes_the_phrase_back_like_a_hard_one():
    before, _ = run(GREEDY)
    phrase = words(before.text)
    at = before.text.find(phrase)
    soft, handed = run(GREEDY.replace(banned_phrases=((phrase, False, 1e-9),)))
    hard, _ = run(GREEDY.replace(banned_phrases=(phrase,)))
    assert phrase not in soft.text and soft.text[:at] == before.text[:at]
    assert soft.text == hard.text  # greedy: e^-20 is as good as a ban when others are close
    hit = next(h for r in handed for h in r.ban_hits)
    assert hit.rewound >= 2 and hit.about.lower().startswith(phrase.lower()) and not hit.kept


def test_a_regex_ban_is_taken_back_from_where_it_begins():
    before, _ = run(HOT)
    first, second = before.text.split()[2:4]
    pattern = rf"(?i)\b{first}\s+{second[0]}\w*"
    after, handed = run(HOT.replace(banned_phrases=((pattern, False, 0.0, True),)))
    at = before.text.lower().find(f"{first} {second[0]}".lower())
    assert after.text[:at] == before.text[:at]
    hits = [h for r in handed for h in r.ban_hits]
    assert hits and hits[0].phrase.startswith("/") and not hits[0].kept
    assert [r.step for r in handed] == list(range(len(after.tokens)))


def test_the_budget_and_the_depth_keep_phrases_marked_with_the_reason():
    before, _ = run(HOT)
    phrase = words(before.text, n=3)
    (spent, handed) = run(HOT.replace(banned_phrases=(phrase,), ban_budget=0))
    assert spent.text == before.text
    assert any("budget" in h.kept for r in handed for h in r.ban_hits)
    (shallow, handed) = run(HOT.replace(banned_phrases=(phrase,), ban_depth=1))
    assert shallow.text == before.text
    assert any("walk-back depth" in h.kept for r in handed for h in r.ban_hits)


def test_every_continuation_banned_still_ends_within_the_token_limit():
    """A regex that every word matches: every continuation is banned.  The lane neither loops nor stalls: it
    ends by its token limit (or end of generation), having spent at most its budget, the kept steps marked."""
    n, budget = 40, 64
    settings = HOT.replace(banned_phrases=((r"\w", False, 0.0, True),), ban_budget=budget)
    result, handed = run(settings, n=n)
    assert len(result.tokens) <= n and result.stop_reason.name in ("MAX_TOKENS", "EOG")
    assert [r.step for r in handed] == list(range(len(result.tokens)))
    rewinds = sum(h.rewound > 0 for r in handed for h in r.ban_hits)
    assert 0 < rewinds <= budget
    assert any(r.ban_kept for r in handed)
    assert all(math.isfinite(r.chosen_p) for r in handed)


def test_a_step_where_every_token_is_banned_keeps_the_least_banned(monkeypatch):
    """A pattern every character matches, and no cap per step: one step bans token after token until none is
    left; that step then takes the least-banned token, marked, and the run ends within its limits."""
    monkeypatch.setattr(bans, "MAX_REWINDS_PER_STEP", 10**6)
    settings = HOT.replace(banned_phrases=((r"(?s).", False, 0.0, True),), ban_budget=300, ignore_eos=True)
    result, handed = run(settings, n=20)
    assert len(result.tokens) <= 20
    assert [r.step for r in handed] == list(range(len(result.tokens)))
    dead = [r for r in handed if any(h.kept == "every choice here is banned" for h in r.ban_hits)]
    assert dead and all(r.ban_kept for r in dead)
    assert all(math.isfinite(r.chosen_p) and r.chosen_p >= 0 for r in handed)


@pytest.mark.gemma
def test_gemma_soft_bans_follow_the_antislop_rule(default_model):
    """Greedy Gemma: a phrase it wrote, soft-banned with x0.9999, stays (its token is still the arg-max: the
    antislop sampler's test), marked; with x1e-6 it is taken back and the text before it is unchanged."""
    settings = SamplerSettings(seed=7, temp=0.0)
    options = RunOptions(max_tokens=40, n_ctx=512, n_threads=1)
    prompt = "Once upon a time, in a small village by the sea,"

    def go(s):
        gen = Generation(default_model, prompt, [LaneConfig(s)], options)
        handed = [r for batch in gen for r in batch]
        return gen.results()[0], handed

    before, _ = go(settings)
    words = before.text.split()
    phrase = next(" ".join(words[i:i + 2]) for i in range(2, len(words) - 1)
                  if " ".join(words[i:i + 2]).replace(" ", "").isalpha())
    kept, handed = go(settings.replace(banned_phrases=((phrase, False, 0.9999),)))
    assert kept.text == before.text
    assert any("still the most likely" in h.kept for r in handed for h in r.ban_hits)
    gone, handed = go(settings.replace(banned_phrases=((phrase, False, 1e-6),)))
    at = before.text.lower().find(phrase.lower())
    assert gone.text[:at] == before.text[:at] and phrase.lower() not in gone.text.lower()[:at + 2 * len(phrase)]
