"""The generation engine with the real model: determinism, agreement with
llama.cpp's native chain, independent lanes, step records, stop reasons,
settings changed mid-run, text assembly and the vocabulary.

Every context here uses one thread: on a small, busy machine llama.cpp's
worker threads spin against each other and a step gets ten times slower.
"""
from __future__ import annotations

import ctypes
import dataclasses

import numpy as np
import pytest

from app.core.presets import find_builtin
from app.engine.face.options import MAX_LANES, TOP_N, LaneConfig, RunOptions
from app.engine.face.records import LaneResult, StepRecord, StopReason
from app.engine.llama.vocab import ModelVocabulary
from app.engine.native.loop import native_generate
from app.engine.run.detok import TextStream
from app.engine.run.generation import Generation
from app.engine.run.starts import PromptTooLong, tokenize_prompt
from sampler import SamplerSettings
from tiers import length

CTX = RunOptions(n_ctx=512, n_threads=1)
STORY = "Chapter 1\n\nThe rain had not stopped for three days, and"
SEED = 1234
BASE = SamplerSettings(seed=SEED)
GREEDY = SamplerSettings(seed=SEED, temp=0.0)
#: Ends with <eos> after "\n</html>\n" when decoded greedily.
HTML_PROMPT = "<!DOCTYPE html>\n<html>\n<body>\n<p>Hello</p>\n</body>"
#: Characters outside the vocabulary: the model continues with byte tokens.
HIEROGLYPHS = "Egyptian hieroglyphs: 𓀀𓀁𓀂𓀃𓀄𓀅"


def preset(key: str, seed: int) -> SamplerSettings:
    found = find_builtin(key)
    assert found is not None, key
    return dataclasses.replace(found.settings, seed=seed)


def run(model, prompt, settings_list, max_tokens, *, stop=(), ctx=CTX):
    """Run to the end; return (results, records per lane)."""
    gen = Generation(
        model, prompt, [LaneConfig(s, f"lane {i}") for i, s in enumerate(settings_list)],
        ctx.replace(max_tokens=max_tokens, stop_strings=tuple(stop)),
    )
    per_lane: list[list[StepRecord]] = [[] for _ in settings_list]
    for records in gen:
        for rec in records:
            per_lane[rec.lane].append(rec)
    return gen.results(), per_lane


_alone_cache: dict = {}


def run_alone(model, prompt, settings, max_tokens, stop=()):
    key = (prompt, settings, max_tokens, tuple(stop))
    if key not in _alone_cache:
        results, _ = run(model, prompt, [settings], max_tokens, stop=stop)
        _alone_cache[key] = results[0]
    return _alone_cache[key]


# -- determinism and llama.cpp's own chain ------------------------------------------


@pytest.mark.parametrize("settings", [BASE, preset("creative-writing", 77)], ids=["defaults", "scatter"])
def test_same_inputs_give_same_tokens(default_model, settings):
    a, _ = run(default_model, STORY, [settings], 16)
    b, _ = run(default_model, STORY, [settings], 16)
    assert len(a[0].tokens) == 16
    assert a[0].tokens == b[0].tokens
    assert a[0].text == b[0].text


def test_a_different_seed_gives_different_tokens(default_model):
    a = run_alone(default_model, STORY, BASE, 16)
    b, _ = run(default_model, STORY, [BASE.replace(seed=SEED + 1)], 16)
    assert a.tokens != b[0].tokens


NATIVE_SETS = {
    "defaults": BASE,
    # Two history-dependent stages together (DRY with the real vocabulary), and three
    # filters together, to keep the suite short; the test checks each stage acted.
    "penalties+dry": BASE.replace(penalty_repeat=1.1, penalty_freq=0.2, penalty_last_n=64, dry_multiplier=0.8),
    "top_n_sigma+dynatemp+xtc": BASE.replace(
        top_n_sigma=1.5, dynatemp_range=0.6, xtc_probability=0.5, xtc_threshold=0.1
    ),
}
NATIVE_TOKENS = length(200, 72)  # past the penalties' and DRY's last-n of 64 either way


@pytest.mark.parametrize("name", list(NATIVE_SETS))
def test_scatter_off_matches_the_native_chain(default_model, name):
    settings = NATIVE_SETS[name]
    results, records = run(default_model, STORY, [settings], NATIVE_TOKENS)
    native, _ = native_generate(default_model, STORY, settings, NATIVE_TOKENS, CTX)
    ours = list(results[0].tokens)
    # The prompt and seed were picked so no run ends early: the whole length is compared.
    assert len(native) == NATIVE_TOKENS and results[0].stop_reason == StopReason.MAX_TOKENS
    first_diff = next((i for i, (x, y) in enumerate(zip(ours, native)) if x != y), None)
    assert first_diff is None, f"{name}: first difference at token {first_diff}"
    assert ours == native
    stages = {s.name: s for s in records[0][0].stages}
    if name.startswith("top_n_sigma"):
        assert stages["top_n_sigma"].active  # it masks with -inf, so counts do not show it
        assert any(s.n_out < s.n_in for rec in records[0] for s in rec.stages if s.name == "xtc"), "XTC never cut"
        temps = {round(r.temperature, 5) for r in records[0]}
        assert len(temps) > 10, "dynamic temperature did not vary"
    if name.startswith("penalties"):
        assert stages["penalties"].active and stages["dry"].active


# -- lanes ------------------------------------------------------------------------------

LANE_POOL = [
    BASE,
    preset("creative-writing", 99),
    preset("adaptive-light-absorption", 5).replace(penalty_repeat=1.1),
    preset("collision-gated", 7).replace(xtc_probability=0.5),
]
LANE_TOKENS = 20


# With 4 lanes a single decode batch of 4 tokens takes llama.cpp's other CPU matrix path and the
# lanes drift from a lone run; the engine decodes steps at most 3 sequences at a time to stay exact.


@pytest.mark.parametrize(
    "n_lanes", [2, 3, 4]
)
def test_each_lane_equals_that_lane_alone(default_model, n_lanes):
    lanes = LANE_POOL[:n_lanes]
    assert any(s.scatter.enabled for s in lanes) and any(not s.scatter.enabled for s in lanes)
    results, records = run(default_model, STORY, lanes, LANE_TOKENS)
    assert [r.lane for r in results] == list(range(n_lanes))
    for i, (settings, result) in enumerate(zip(lanes, results)):
        alone = run_alone(default_model, STORY, settings, LANE_TOKENS)
        assert result.tokens == alone.tokens, f"lane {i} of {n_lanes}"
        assert result.text == alone.text
        assert [r.token for r in records[i]] == list(result.tokens)
    # Different settings really gave different lanes.
    assert len({r.tokens for r in results}) == n_lanes


def test_lanes_that_stop_early_leave_the_others_unchanged(default_model):
    """A lane stopping (stop string) re-numbers the batch rows of the others."""
    lanes = LANE_POOL[:3]
    stop = (",",)
    results, _ = run(default_model, STORY, lanes, 24, stop=stop)
    lengths = [len(r.tokens) for r in results]
    assert len(set(lengths)) > 1, f"every lane stopped at the same step: {lengths}"
    for settings, result in zip(lanes, results):
        alone = run_alone(default_model, STORY, settings, 24, stop)
        assert (result.tokens, result.text, result.stop_reason) == (alone.tokens, alone.text, alone.stop_reason)


def test_lane_count_is_checked(default_model):
    with pytest.raises(ValueError, match="lanes"):
        Generation(default_model, STORY, [], CTX)
    with pytest.raises(ValueError, match="lanes"):
        Generation(default_model, STORY, [LaneConfig(BASE)] * (MAX_LANES + 1), CTX)


# -- step records ---------------------------------------------------------------------------


def _snapshot(rec: StepRecord) -> dict:
    snap = {
        "top_ids": rec.top_ids.copy(), "top_logits": rec.top_logits.copy(),
        "final_ids": rec.final_ids.copy(), "final_p": rec.final_p.copy(),
    }
    if rec.scatter is not None:
        for field in ("ids", "p_before", "q", "p_diffused", "absorption_factors", "p_final"):
            snap["scatter." + field] = np.array(getattr(rec.scatter, field), copy=True)
    return snap


def _arrays(rec: StepRecord) -> dict:
    out = {"top_ids": rec.top_ids, "top_logits": rec.top_logits, "final_ids": rec.final_ids, "final_p": rec.final_p}
    if rec.scatter is not None:
        for field in ("ids", "p_before", "q", "p_diffused", "absorption_factors", "p_final"):
            out["scatter." + field] = getattr(rec.scatter, field)
    return out


def _foreign_memory(arr: np.ndarray) -> bool:
    """Whether the array's memory belongs to something other than NumPy (llama.cpp's buffers)."""
    base = arr
    while isinstance(base, np.ndarray):
        if base.base is None:
            return False
        base = base.base
    return True


@pytest.fixture(scope="module")
def recorded(default_model):
    """Two lanes (scatter off and on), with a copy of every array taken when its step arrived."""
    lanes = [BASE, preset("creative-writing", 99)]
    gen = Generation(default_model, STORY, [LaneConfig(s) for s in lanes], CTX.replace(max_tokens=16))
    records, snapshots = [], []
    for step in gen:
        for rec in step:
            records.append(rec)
            snapshots.append(_snapshot(rec))
    return gen.results(), records, snapshots


def test_records_are_frozen(recorded):
    results, records, _ = recorded
    rec = records[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.token = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.top_logits = np.zeros(3)  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        results[0].text = "x"  # type: ignore[misc]
    assert isinstance(results[0], LaneResult)


def test_record_arrays_are_copies_not_llama_memory(recorded):
    _, records, snapshots = recorded
    for rec, snap in zip(records, snapshots):
        for name in ("top_ids", "top_logits", "final_ids", "final_p"):
            arr = getattr(rec, name)
            assert arr.flags.owndata and arr.base is None, f"step {rec.step} lane {rec.lane}: {name} is a view"
        for name, arr in _arrays(rec).items():
            assert not _foreign_memory(arr), f"step {rec.step} lane {rec.lane}: {name} is llama.cpp memory"
            # Later steps (and closing the context) left the values as they were.
            np.testing.assert_array_equal(arr, snap[name], err_msg=f"step {rec.step} lane {rec.lane}: {name}")


def test_record_fields_are_consistent(recorded, default_model):
    results, records, _ = recorded
    n_vocab = default_model.info.n_vocab
    for rec in records:
        label = f"step {rec.step} lane {rec.lane}"
        assert len(rec.top_ids) == TOP_N == len(rec.top_logits)
        assert np.all(np.diff(rec.top_logits) <= 0), label
        # raw_rank: how many raw logits are strictly above the chosen token's.
        if rec.raw_rank < TOP_N:
            where = np.flatnonzero(rec.top_ids == rec.token)
            assert len(where) == 1, label
            chosen_logit = rec.top_logits[where[0]]
            assert rec.raw_rank == int(np.count_nonzero(rec.top_logits > chosen_logit)), label
        else:
            assert rec.token not in rec.top_ids.tolist(), label
        # Stage counts chain: each stage starts with what the one before left.
        assert rec.stages[0].n_in == n_vocab, label
        for before, after in zip(rec.stages, rec.stages[1:]):
            assert before.n_out == after.n_in, f"{label}: {before.name} -> {after.name}"
        assert rec.stages[-1].name == "dist"
        assert rec.stages[-1].n_out == len(rec.final_ids) == len(rec.final_p), label
        # The chosen token is one of the final candidates, with its probability.
        assert rec.token in rec.final_ids.tolist(), label
        assert rec.final_ids[rec.chosen_index] == rec.token, label
        assert rec.chosen_p == pytest.approx(float(rec.final_p[rec.chosen_index])), label
        assert float(rec.final_p.sum()) == pytest.approx(1.0, abs=1e-4), label
        assert rec.piece == default_model.vocab.piece(rec.token, special=False), label
        assert rec.decode_ms >= 0 and rec.chain_ms >= 0
        assert rec.temperature == pytest.approx(0.8)
    for lane, result in enumerate(results):
        mine = [r for r in records if r.lane == lane]
        assert [r.step for r in mine] == list(range(16))
        assert [r.token for r in mine] == list(result.tokens)
        assert "".join(r.text for r in mine) == result.text
    scatter_on = [r.scatter for r in records if r.lane == 1]
    scatter_off = [r.scatter for r in records if r.lane == 0]
    assert all(t is not None and t.enabled for t in scatter_on)
    assert any(t.fired for t in scatter_on)
    assert all(t is None or not t.fired for t in scatter_off)


# -- stop reasons -----------------------------------------------------------------------------


def test_token_limit(default_model):
    result = run_alone(default_model, STORY, BASE, 24)
    assert result.stop_reason == StopReason.MAX_TOKENS
    assert len(result.tokens) == 24
    assert result.detail == "24"


def test_stop_string_trims_the_text_before_it(default_model):
    full, records = run(default_model, STORY, [GREEDY], 24)
    recs = records[0]
    # A stop string spanning two tokens, that a later token completes.
    k = next(i for i in range(4, len(recs) - 1) if len(recs[i].text) >= 2 and len(recs[i + 1].text) >= 2)
    stop = recs[k].text[-2:] + recs[k + 1].text[:2]
    text = full[0].text
    at = text.find(stop)
    assert 0 < at
    results, _ = run(default_model, STORY, [GREEDY], 24, stop=(stop,))
    r = results[0]
    assert r.stop_reason == StopReason.STOP_STRING
    assert r.detail == stop
    assert r.text == text[:at]
    assert stop not in r.text
    assert r.tokens == full[0].tokens[: k + 2]


def test_context_full(default_model):
    n_ctx = 48
    prompt = "The history of the city goes back to the Roman period, when a small fort was built on the hill."
    n_prompt = len(tokenize_prompt(default_model, prompt))
    assert 15 <= n_prompt <= 30
    ctx = RunOptions(n_ctx=n_ctx, n_threads=1)
    results, _ = run(default_model, prompt, [BASE, GREEDY], 500, ctx=ctx)
    for r in results:
        assert r.stop_reason == StopReason.CONTEXT_FULL
        assert str(n_ctx) in r.detail
        # The prompt and the generated tokens together fill the context.
        assert n_prompt + len(r.tokens) == n_ctx


def test_prompt_one_token_short_of_the_context_still_runs(default_model):
    prompt = "The history of the city goes back to the Roman period, when a small fort was built on the hill."
    n_prompt = len(tokenize_prompt(default_model, prompt))
    with pytest.raises(PromptTooLong):
        Generation(default_model, prompt, [LaneConfig(BASE)], RunOptions(n_ctx=n_prompt, n_threads=1))
    results, _ = run(default_model, prompt, [GREEDY], 10, ctx=RunOptions(n_ctx=n_prompt + 1, n_threads=1))
    assert results[0].stop_reason == StopReason.CONTEXT_FULL
    assert len(results[0].tokens) == 1


def test_end_of_generation_token(default_model):
    results, records = run(default_model, HTML_PROMPT, [GREEDY], 300)
    r = results[0]
    assert r.stop_reason == StopReason.EOG
    assert default_model.vocab.is_eog(r.tokens[-1])
    assert len(r.tokens) < 300
    assert r.detail in ("<eos>", "<end_of_turn>")
    assert r.detail not in r.text  # the end token is not part of the text
    assert r.text == "\n</html>\n"
    assert records[0][-1].piece == b""


def test_prompt_longer_than_the_context(default_model):
    prompt = "word " * 60
    n_prompt = len(tokenize_prompt(default_model, prompt))
    with pytest.raises(PromptTooLong) as info:
        Generation(default_model, prompt, [LaneConfig(BASE)], RunOptions(n_ctx=32, n_threads=1))
    message = str(info.value)
    assert str(n_prompt) in message and "32" in message


def test_run_options_are_checked():
    with pytest.raises(ValueError, match="max tokens"):
        RunOptions(max_tokens=0)
    with pytest.raises(ValueError, match="stop string"):
        RunOptions(stop_strings=("",))


# -- settings changed mid-run -----------------------------------------------------------------------

HOT = SamplerSettings(seed=SEED, temp=1.5, top_k=0, top_p=1.0, min_p=0.0)


def test_settings_change_takes_effect_at_the_next_step(default_model):
    switch_after = 8
    gen = Generation(default_model, STORY, [LaneConfig(HOT), LaneConfig(HOT)], CTX.replace(max_tokens=20))
    before, after = [], []
    for step in gen:
        (after if gen.lanes[0].step > switch_after else before).append(step)
        if gen.lanes[0].step == switch_after:
            gen.set_lane_settings(1, HOT.replace(temp=0.0))
    results = gen.results()
    lane1_before = [rec for step in before for rec in step if rec.lane == 1]
    lane1_after = [rec for step in after for rec in step if rec.lane == 1]
    assert len(lane1_before) == switch_after and len(lane1_after) == 20 - switch_after
    assert any(rec.raw_rank > 0 for rec in lane1_before), "the hot settings never left the arg-max"
    for rec in lane1_after:
        assert rec.token == rec.top_ids[0] and rec.raw_rank == 0, f"step {rec.step} is not greedy"
        assert rec.temperature == 0.0
    # Lane 0 kept its settings: same tokens as alone.
    assert results[0].tokens == run_alone(default_model, STORY, HOT, 20).tokens


def test_an_equivalent_settings_change_keeps_history_and_random_streams(default_model):
    """Rebuilding the chain mid-run (same seed) continues the RNG and penalty history."""
    settings = BASE.replace(penalty_repeat=1.1, penalty_freq=0.2, dry_multiplier=0.8)
    reference = run_alone(default_model, STORY, settings, 20)
    gen = Generation(default_model, STORY, [LaneConfig(settings)], CTX.replace(max_tokens=20))
    for _ in gen:
        if gen.lanes[0].step == 7:  # XTC is off (probability 0), so its threshold changes nothing
            gen.set_lane_settings(0, settings.replace(xtc_threshold=0.3))
    assert gen.lanes[0].config.settings.xtc_threshold == pytest.approx(0.3)
    assert gen.results()[0].tokens == reference.tokens


# -- text assembly -----------------------------------------------------------------------------------


def test_text_stream_joins_split_characters():
    s = TextStream()
    assert s.push(b"caf\xc3") == "caf"
    assert s.push(b"\xa9!") == "é!"
    dragon = "🐉".encode()
    assert [s.push(dragon[i:i + 1]) for i in range(4)] == ["", "", "", "🐉"]
    assert s.push(b"\xe2\x82") == ""
    assert s.push(b"\xac") == "€"
    assert s.text == "café!🐉€"
    assert s.flush() == ""


def test_text_stream_flushes_an_incomplete_character_as_a_replacement():
    s = TextStream()
    assert s.push(b"ok\xf0\x9f") == "ok"
    assert s.flush() == "\ufffd"
    assert s.text == "ok\ufffd"
    s2 = TextStream()
    assert s2.push(b"\xff") == "\ufffd"  # an invalid byte never blocks what follows
    assert s2.push(b"a") == "a"


def test_generated_text_equals_all_pieces_decoded_at_once(default_model):
    results, records = run(default_model, HIEROGLYPHS, [GREEDY], 16)
    recs = records[0]
    pieces = [r.piece for r in recs]
    assert any(r.text == "" for r in recs), "no character was split over tokens"
    assert any(len(p) == 1 and p[0] >= 0x80 for p in pieces)
    assert results[0].text == b"".join(pieces).decode("utf-8", "replace")
    assert "\ufffd" not in results[0].text
    assert "".join(r.text for r in recs) == results[0].text


def test_vocab_piece_of_long_tokens(default_model):
    vocab = default_model.vocab
    texts = vocab.token_texts()
    long_ids = [t for t, b in enumerate(texts) if len(b) > 32]
    assert long_ids, "no token longer than 32 bytes"
    fresh = ModelVocabulary(vocab.ptr)
    for t in long_ids:
        assert fresh.piece(t) == vocab.detokenize_one(t) == texts[t], t
    # A piece longer than the buffer: the buffer grows (real pieces fit the default one).
    tiny = ModelVocabulary(vocab.ptr)
    tiny._piece_buf = ctypes.create_string_buffer(8)
    longest = max(long_ids, key=lambda t: len(texts[t]))
    assert tiny.piece(longest) == texts[longest]
    assert tiny.piece(longest) == texts[longest]
    assert tiny.piece(long_ids[0]) == texts[long_ids[0]]


def test_vocab_special_pieces(default_model):
    vocab = default_model.vocab
    import llama_cpp as ll

    eos = int(ll.llama_vocab_eos(vocab.ptr))
    assert vocab.is_eog(eos)
    assert vocab.piece(eos, special=True) == b"<eos>"
    assert vocab.piece(eos, special=False) == b""
    assert vocab.tokenize_plain(b"Hello world") == vocab.tokenize(b"Hello world", add_special=False, parse_special=False)
