"""Banned phrases in the engine (fake backend): rewinds, holdback, the cap, determinism; and on Gemma."""
from __future__ import annotations

import pytest

from app.engine.face.options import LaneConfig, RunOptions
from app.engine.fake import FakeModel
from app.engine.run import bans
from app.engine.run.generation import Generation
from sampler import SamplerSettings
from sampler.phrase_match import PhraseMatcher
from sampler.phrases import BannedPhrase, plan_phrases, token_index

HOT = SamplerSettings(seed=5, temp=1.2, top_k=0, top_p=1.0, min_p=0.0, xtc_probability=0.5, xtc_threshold=0.05,
                      penalty_repeat=1.1).replace(scatter_strength=0.3, scatter_collision=0.5)
PROMPT = "once upon a time"


def run(model, settings, n=60, lanes=1, stop=()):
    """The run's results and every record it handed out, in order."""
    configs = [LaneConfig(settings.replace(seed=settings.seed + i)) for i in range(lanes)]
    gen = Generation(model, PROMPT, configs, RunOptions(max_tokens=n, stop_strings=stop, n_ctx=512))
    handed = [r for batch in gen for r in batch]
    return gen.results(), handed


def phrase_in(text: str, words: int = 2, skip: int = 2) -> str:
    return " ".join(text.split()[skip:skip + words])


def test_a_banned_phrase_is_gone_and_the_text_before_it_unchanged():
    model = FakeModel()
    (before,), _ = run(model, HOT)
    phrase = phrase_in(before.text)
    (after,), handed = run(model, HOT.replace(banned_phrases=(phrase,)))
    at = before.text.find(phrase)
    assert at >= 0 and phrase not in after.text
    assert after.text[:at] == before.text[:at]
    banned = [r for r in handed if r.banned]
    assert banned and banned[0].step == len(model.vocab.tokenize_plain(before.text[:at].encode()))
    assert banned[0].to_json()["banned"] == list(banned[0].banned)


def test_only_settled_steps_are_handed_out():
    """No record of a step that was taken back ever leaves the run: the records handed out are the steps
    of the final text, each once, in order."""
    model = FakeModel()
    phrases = []
    for seed in range(3):
        (r,), _ = run(model, HOT.replace(seed=seed))
        phrases += [phrase_in(r.text, 2, skip) for skip in (1, 4, 8)]
    settings = HOT.replace(banned_phrases=tuple(dict.fromkeys(phrases)))
    fired = 0
    for seed in range(3):
        results, handed = run(model, settings.replace(seed=seed), lanes=2)
        for result in results:
            mine = [r for r in handed if r.lane == result.lane]
            assert [r.step for r in mine] == list(range(len(result.tokens)))
            assert tuple(r.token for r in mine) == result.tokens
            assert "".join(r.text for r in mine) == result.text
            fired += sum(bool(r.banned) for r in mine)
            if not any(r.ban_kept for r in mine):
                assert PhraseMatcher(settings.banned_phrases).scan(result.text, 0, " ", True).match is None
    assert fired >= 3


def test_the_same_seed_and_list_give_the_same_text():
    model = FakeModel()
    (r,), _ = run(model, HOT)
    s = HOT.replace(banned_phrases=(phrase_in(r.text), phrase_in(r.text, 3, 6)))
    first, second = run(model, s), run(model, s)
    assert first[0][0].tokens == second[0][0].tokens
    assert [x.banned for x in first[1]] == [x.banned for x in second[1]]


def test_phrases_that_never_appear_change_nothing():
    """With an empty list, or phrases the text never holds, the tokens are those of a run without the feature."""
    model = FakeModel()
    (plain,), handed = run(model, HOT)
    (empty,), _ = run(model, HOT.replace(banned_phrases=()))
    (absent,), _ = run(model, HOT.replace(banned_phrases=("zebra crossing", "quantum leap")))
    assert plain.tokens == empty.tokens == absent.tokens
    assert not any(r.banned for r in handed)


def test_the_cap_keeps_the_phrase_and_marks_it(monkeypatch):
    model = FakeModel()
    (r,), _ = run(model, HOT)
    phrase = phrase_in(r.text)
    monkeypatch.setattr(bans, "MAX_REWINDS_PER_STEP", 0)
    (kept,), handed = run(model, HOT.replace(banned_phrases=(phrase,)))
    assert kept.tokens == r.tokens  # nothing taken back
    marked = [x for x in handed if x.ban_kept]
    assert len(marked) == 1 and not marked[0].banned and marked[0].to_json()["ban_kept"] is True
    monkeypatch.setattr(bans, "MAX_REWINDS_PER_STEP", 1)
    (once,), handed = run(model, HOT.replace(banned_phrases=(phrase,)))
    assert phrase not in once.text or any(x.ban_kept for x in handed)


def test_a_phrase_at_the_very_end_is_taken_back_too():
    """The last token completes the phrase: the end of the text is a word edge once the lane stops."""
    model = FakeModel()
    (r,), _ = run(model, HOT, n=12)
    words = r.text.split()
    phrase = " ".join(words[-2:])
    if not r.text.rstrip().endswith(phrase) or not phrase[-1].isalnum():
        pytest.skip("the fake text does not end in a word")
    (after,), handed = run(model, HOT.replace(banned_phrases=(phrase,)), n=12)
    assert not after.text.endswith(phrase) and any(x.banned for x in handed)


def test_single_token_phrases_are_logit_biases():
    model = FakeModel()
    index = token_index(model.vocab.token_texts())
    plan = plan_phrases((BannedPhrase("Cat"), BannedPhrase("the cat"), BannedPhrase("DOG", exact_case=True)), index)
    assert [(p.text, t) for p, t in plan.single] == [("Cat", (4,))]  # " cat"; "DOG" matches only as written
    assert [p.text for p in plan.multi] == ["the cat", "DOG"]
    (r,), handed = run(model, HOT.replace(banned_phrases=("cat", "dog")), n=80)
    assert " cat" not in r.text and " dog" not in r.text and not any(x.banned for x in handed)
    assert handed[0].stages[0].name == "logit_bias"


@pytest.mark.parametrize("text,start,final,found", [
    ("the cat sat", 0, False, (4, 7)),
    ("concatenate", 0, True, None),  # inside a word: no
    ("the cat", 0, False, None),  # "cat" may go on ("cats"): pending, not found
    ("the cat", 0, True, (4, 7)),
    ("the Cat.", 0, False, (4, 7)),  # case-insensitive by default
    ("a ca", 0, False, None),
])
def test_matcher_word_edges(text, start, final, found):
    scan = PhraseMatcher([BannedPhrase("cat")]).scan(text, start, "", final)
    assert (None if scan.match is None else (scan.match.start, scan.match.end)) == found
    if text in ("the cat", "a ca") and not final:
        assert scan.pending == text.rindex("c")


def test_exact_case_phrase():
    m = PhraseMatcher([BannedPhrase("Paris", exact_case=True)])
    assert m.scan("to paris.", 0).match is None and m.scan("to Paris.", 0).match.start == 3


# --------------------------------------------------------------------------
# Gemma
# --------------------------------------------------------------------------

GEMMA_PROMPT = "Once upon a time, in a small village by the sea,"
GEMMA_SEED = 7


def test_gemma_a_phrase_it_wrote_is_banned(default_model):
    """Run once with seed 7, pick a two- or three-token phrase of the output, ban it, run again: the phrase
    is gone and the text up to where it began is unchanged, token for token."""
    settings = SamplerSettings(seed=GEMMA_SEED, temp=0.8)
    options = RunOptions(max_tokens=80, n_ctx=512, n_threads=1)
    (before,) = Generation(default_model, GEMMA_PROMPT, [LaneConfig(settings)], options).run()
    vocab = default_model.vocab
    index = token_index(vocab.token_texts())
    words = before.text.split(" ")
    phrase = None
    for i in range(3, len(words) - 1):
        candidate = " ".join(words[i:i + 2]).strip()
        if (candidate.replace(" ", "").isalpha() and 2 <= len(vocab.tokenize_plain(f" {candidate}".encode())) <= 3
                and plan_phrases((BannedPhrase(candidate),), index).multi):
            phrase = candidate
            break
    assert phrase is not None, before.text
    at = before.text.lower().find(phrase.lower())
    gen = Generation(default_model, GEMMA_PROMPT, [LaneConfig(settings.replace(banned_phrases=(phrase,)))], options)
    handed = [r for batch in gen for r in batch]
    (after,) = gen.results()
    print(f"\nseed {GEMMA_SEED}, banned {phrase!r} at character {at}\nbefore: {before.text!r}\nafter:  {after.text!r}")
    assert phrase.lower() not in after.text.lower()
    assert after.text[:at] == before.text[:at]
    n_before = next(r.step for r in handed if r.banned)
    assert after.tokens[:n_before] == before.tokens[:n_before]
    assert [r.step for r in handed] == list(range(len(after.tokens)))
