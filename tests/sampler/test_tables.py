"""The flag table and the stage table: consistent with themselves, with the settings
classes and with llama.cpp.

llama.cpp's side is read from verbatim excerpts of ``common/common.h`` and
``common/sampling.cpp`` (``data/llama.cpp/``, checked against the vendored
sources when they are on this machine) and from the ``llama_cpp`` bindings
(default sampling parameters, ``LLAMA_DEFAULT_SEED`` and the ctypes argument
types of every ``llama_sampler_init_*``).
"""
from __future__ import annotations

import ast
import dataclasses
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from llamacpp_source import source_path
from sampler.chainbuild import make_stage
from sampler.flagtable import FLAG_BY_NAME, FLAGS, KINDS, ROW_BY_FIELD, ROWS, SCATTER_ROWS
from sampler.settings import SamplerSettings, ScatterParams
from sampler.stageargs import arg_paths, scatter_ext_args, stage_args
from sampler.stages import Dist, Dry, MinP, Penalties, Temperature, TopK, TopNSigma, TopP, Typical, Xtc
from sampler.stagetable import (  # noqa: I001
    BIASES,
    DEFAULT_ORDER,
    DIST,
    EXTRA_STAGES,
    LETTERS,
    MARKER_FIELDS,
    MIROSTAT_M,
    N_VOCAB,
    NOT_IN_LLAMACPP,
    STAGE_ALIASES,
    STAGE_BY_NAME,
    STAGES,
    UNSUPPORTED_STAGES,
    VOCAB,
)

DATA = Path(__file__).parent / "data" / "llama.cpp"

#: The spec's native API: llama_sampler_init_scatter_ext(k, strength, ..., collision, seed).
SPEC_SCATTER_EXT = [
    "k", "strength", "radius", "steps", "adaptive", "strength_min", "strength_max", "entropy_target",
    "absorption", "absorption_last_n", "collision", "seed",
]


def blocks(name: str) -> list[str]:
    """The verbatim blocks of an excerpt file (after its header)."""
    parts = re.split(r"^// ----\n", (DATA / name).read_text(encoding="utf-8"), flags=re.M)
    return parts[1:]


def excerpt(name: str) -> str:
    return "".join(blocks(name))


# --------------------------------------------------------------------------
# The table against itself and the settings classes
# --------------------------------------------------------------------------


def test_every_settings_field_has_exactly_one_row():
    fields = [f.name for f in dataclasses.fields(SamplerSettings) if f.name != "scatter"]
    fields += [f"scatter.{f.name}" for f in dataclasses.fields(ScatterParams)]
    primary = Counter(row.field for row in ROWS if row.kind not in ("seq", "file"))
    assert sorted(primary) == sorted(fields)
    assert set(primary.values()) == {1}
    # the second rows: --sampler-seq, another syntax for the order, and the grammar files, read into their field
    assert [(row.field, row.flag) for row in ROWS if row.kind in ("seq", "file")] == [
        ("samplers", "--sampler-seq"), ("grammar", "--grammar-file"), ("json_schema", "--json-schema-file")]


def test_every_spelling_unique():
    names = Counter(name for row in ROWS for name in row.names)
    assert [n for n, c in names.items() if c > 1] == []
    assert all(re.fullmatch(r"-[a-z]{1,2}|--[a-z][a-z-]*[a-z]", n) for n in names)  # -jf
    spellings = Counter(s for stage in STAGES for s in stage.spellings)
    assert [s for s, c in spellings.items() if c > 1] == []
    letters = [stage.letter for stage in STAGES]
    assert len(set(letters)) == len(letters) and all(len(x) == 1 for x in letters)
    assert not set(STAGE_ALIASES) & UNSUPPORTED_STAGES


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.flag)
def test_row_is_well_formed(row):
    assert row.kind in KINDS
    assert row.numeric == (row.ctype is not None)
    assert row.label and row.help.endswith(".") and "\n" not in row.help
    # every llama.cpp setting is upstream; the scatter rows, the playground's banned phrases (and their walk-back)
    # and the stages no llama.cpp has (smoothing, top-A, tail-free) are not
    own = ("banned_phrases", "ban_depth", "ban_budget")
    assert row.upstream == (row.group is None and row.field not in own and row.stage not in NOT_IN_LLAMACPP)
    assert row.cli == (row.field not in ("min_keep", *own) and row.stage not in NOT_IN_LLAMACPP)
    lo, hi = row.bounds
    if row.numeric:
        assert lo <= row.default <= hi
        assert type(row.default) is (int if row.integer else float)
    checked = row.check(row.default)
    assert checked == row.default and type(checked) is type(row.default)
    if row.slider_lo is not None:
        assert row.numeric and row.step > 0 and row.slider_lo < row.slider_hi
        assert lo <= row.slider_lo and row.slider_hi <= hi
        assert row.slider_lo <= row.default <= row.slider_hi
        assert row.decimals == 0 if row.integer else row.decimals >= 1
    else:
        assert row.step is None and row.slider_hi is None


def test_defaults_are_the_settings_defaults():
    default = SamplerSettings()
    for row in ROWS:
        assert default.get(row.field) == row.default, row.field


def test_flags_are_the_cli_rows_in_order():
    assert FLAGS == tuple(row for row in ROWS if row.cli)
    assert "--min-keep" not in FLAG_BY_NAME
    assert FLAG_BY_NAME["-s"].flag == "--seed" and FLAG_BY_NAME["--top-n-sigma"].flag == "--top-nsigma"


def test_each_rows_stage_reads_it():
    read_by: dict[str, set[str]] = {}
    for stage in STAGES + (DIST,) + EXTRA_STAGES:
        for path in arg_paths(stage):
            for field in MARKER_FIELDS.get(path, () if path.startswith("<") else (path,)):
                assert field in ROW_BY_FIELD, (stage.name, field)
                read_by.setdefault(field, set()).add(stage.name)
    # the two mirostats read the same two values; --mirostat 1|2 puts a plain temperature before them
    shared = {"mirostat_eta": "mirostat", "mirostat_tau": "mirostat", "temp": "temp_plain"}
    for row in ROW_BY_FIELD.values():
        if row.stage is not None:
            assert read_by[row.field] == {row.stage} | ({shared[row.field]} if row.field in shared else set()), row.field
    # the rows without one stage: read by several (seed, min_keep), by the chain itself (the order, mirostat) or by
    # the engine (the banned-phrase walk-back's depth and budget, the grammar sampler's text)
    assert {r.field for r in ROW_BY_FIELD.values() if r.stage is None} == {
        "seed", "samplers", "min_keep", "mirostat", "ban_depth", "ban_budget", "grammar", "json_schema"}
    assert read_by["seed"] == {"xtc", "scatter", "dist", "adaptive_p", "mirostat", "mirostat_v2"}
    assert read_by["min_keep"] == {"typ_p", "top_p", "min_p", "xtc", "top_a", "tfs_z"}
    assert read_by["temp"] == {"temperature", "temp_plain"}
    assert "samplers" not in read_by and "mirostat" not in read_by


def test_scatter_ext_args_in_the_spec_order():
    s = SamplerSettings(seed=9).replace(scatter_k=5, scatter_strength=0.25, scatter_adaptive=True)
    args = scatter_ext_args(s)
    assert [path.removeprefix("scatter.") for path, _ in args] == SPEC_SCATTER_EXT
    assert [value for _, value in args] == [5, 0.25, 2.5, 1, True, 0.02, 0.3, 0.55, 0.0, 64, 1.0, 9]
    # ScatterParams takes its fields in the same order (the chain builds it positionally)
    assert [f.name for f in dataclasses.fields(ScatterParams)] == SPEC_SCATTER_EXT[:-1]
    assert [row.attr for row in SCATTER_ROWS] == SPEC_SCATTER_EXT[:-1]


def test_stage_args_markers():
    s = SamplerSettings(penalty_last_n=7)
    assert stage_args("penalties", s)[0] == ("penalty_last_n", 7)
    assert stage_args("penalties", s, {N_VOCAB: 11, VOCAB: None})[:2] == [(N_VOCAB, 11), ("penalty_last_n", 7)]
    assert stage_args("dist", s) == [("seed", s.seed)]


ODD = SamplerSettings(
    seed=77, temp=0.6, dynatemp_range=0.2, dynatemp_exponent=1.3, top_k=12, top_p=0.8, min_p=0.07, typ_p=0.9,
    top_n_sigma=1.5, xtc_probability=0.4, xtc_threshold=0.2, penalty_last_n=33, penalty_repeat=1.2,
    penalty_freq=0.3, penalty_present=0.4, dry_multiplier=0.9, dry_base=1.6, dry_allowed_length=3,
    dry_penalty_last_n=45, dry_sequence_breakers=("q",), min_keep=2,
    scatter=ScatterParams(k=9, strength=0.3, radius=1.5, steps=2, adaptive=True, absorption=0.4,
                          absorption_last_n=5, collision=0.6),
)
#: Each stage as common/sampling.cpp builds it, written out by hand.
BY_HAND = {
    "penalties": lambda s: Penalties(s.penalty_last_n, s.penalty_repeat, s.penalty_freq, s.penalty_present),
    "dry": lambda s: Dry(s.dry_multiplier, s.dry_base, s.dry_allowed_length, s.dry_penalty_last_n,
                         s.dry_sequence_breakers),
    "top_n_sigma": lambda s: TopNSigma(s.top_n_sigma),
    "top_k": lambda s: TopK(s.top_k),
    "typ_p": lambda s: Typical(s.typ_p, s.min_keep),
    "top_p": lambda s: TopP(s.top_p, s.min_keep),
    "min_p": lambda s: MinP(s.min_p, s.min_keep),
    "xtc": lambda s: Xtc(s.xtc_probability, s.xtc_threshold, s.min_keep, s.seed),
    "temperature": lambda s: Temperature(s.temp, s.dynatemp_range, s.dynatemp_exponent),
    "dist": lambda s: Dist(s.seed),
}


def _state(stage) -> dict:
    skip = {"rng", "_history", "_window", "seed_cur", "_breaker_map"}
    return {k: (v.tolist() if isinstance(v, np.generic) else v) for k, v in vars(stage).items() if k not in skip}


@pytest.mark.parametrize("name", sorted(BY_HAND))
def test_make_stage_passes_the_table_args_in_order(name):
    built, expected = make_stage(name, ODD), BY_HAND[name](ODD)
    assert type(built) is type(expected)
    assert _state(built) == _state(expected)


def test_make_stage_scatter():
    stage = make_stage("scatter", ODD)
    assert stage.params == ODD.scatter and stage.seed == ODD.seed


# --------------------------------------------------------------------------
# Against llama.cpp's sources (excerpts)
# --------------------------------------------------------------------------


def _common_params() -> dict[str, tuple[str, str]]:
    """``name -> (C type, initialiser)`` of ``struct common_params_sampling``."""
    out = {}
    for m in re.finditer(r"^\s*([\w:]+)\s+(\w+)\s*=\s*([^;]+);", excerpt("common.h.excerpt"), re.M):
        out[m.group(2)] = (m.group(1), m.group(3).strip())
    vector = re.search(r"dry_sequence_breakers = (\{[^}]*\})", excerpt("common.h.excerpt"))
    out["dry_sequence_breakers"] = ("std::vector<std::string>", vector.group(1))
    for m in re.finditer(r"^\s*(std::vector<llama_logit_bias>)\s+(\w+);", excerpt("common.h.excerpt"), re.M):
        out[m.group(2)] = (m.group(1), "{}")  # an empty vector
    return out


def _c_literal(ctype: str, text: str):
    if text == "LLAMA_DEFAULT_SEED":
        return 0xFFFFFFFF  # include/llama.h
    if ctype == "float":
        return np.float32(float(text.rstrip("f")))
    if ctype.startswith("std::vector"):
        return tuple(ast.literal_eval("[" + text.strip("{}") + "]"))
    if ctype == "bool":
        return {"true": True, "false": False}[text]
    return int(text)


C_TYPE = {"int32_t": "int32", "uint32_t": "uint32", "float": "float32"}


@pytest.mark.parametrize("row", [r for r in ROW_BY_FIELD.values() if r.upstream and r.kind not in ("samplers", "text")],
                         ids=lambda r: r.field)
def test_default_and_c_type_match_common_h(row):
    ctype, init = _common_params()[row.field]
    expected = _c_literal(ctype, init)
    if row.kind == "float":
        assert np.float32(row.default) == expected
    else:
        assert row.default == expected
    if row.numeric:
        assert C_TYPE[ctype] == row.ctype


def _sampling_types() -> tuple[dict[str, str], dict[str, str]]:
    """``COMMON_SAMPLER_TYPE_X -> letter`` and ``-> name`` from sampling.cpp."""
    text = excerpt("sampling.cpp.excerpt")
    letters = dict(re.findall(r"case (COMMON_SAMPLER_TYPE_\w+):\s+return '(.)';", text))
    names = dict(re.findall(r'case (COMMON_SAMPLER_TYPE_\w+):\s+return "(\w+)";', text))
    return letters, names


def test_default_order_matches_common_h():
    order = re.search(r"samplers = \{([^}]*)\}", excerpt("common.h.excerpt")).group(1)
    _, names = _sampling_types()
    upstream = [names[t] for t in re.findall(r"COMMON_SAMPLER_TYPE_\w+", order)]
    assert [n for n in DEFAULT_ORDER if STAGE_BY_NAME[n].upstream] == upstream
    assert DEFAULT_ORDER.index("scatter") == DEFAULT_ORDER.index("temperature") - 1  # the spec's place


def test_stage_names_letters_and_aliases_match_sampling_cpp():
    letters, names = _sampling_types()
    text = excerpt("sampling.cpp.excerpt")
    canonical = dict(re.findall(r'\{ "(\w+)",\s+(COMMON_SAMPLER_TYPE_\w+)\s*\}', text))
    expected = {}
    for spelling, kind in canonical.items():
        expected[spelling] = names[kind]
        if "_" in spelling:
            expected[spelling.replace("_", "-")] = names[kind]
            expected[spelling.replace("_", "")] = names[kind]
    for spelling, kind in re.findall(r'alias_name_map\.insert\(\{"(\w+)",\s*(COMMON_SAMPLER_TYPE_\w+)\}\)', text):
        expected[spelling] = names[kind]
    ours = {s: n for s, n in STAGE_ALIASES.items() if STAGE_BY_NAME[n].upstream}
    supported = {s: n for s, n in expected.items() if n in STAGE_BY_NAME}
    assert ours == supported
    assert set(expected) - set(supported) == UNSUPPORTED_STAGES
    by_name = {names[t]: c for t, c in letters.items()}
    assert {n: c for n, c in LETTERS.items() if STAGE_BY_NAME[n].upstream} == {
        n: c for n, c in by_name.items() if n in STAGE_BY_NAME
    }


def _native_calls(block: int = 0) -> dict[str, list[str]]:
    """``llama_sampler_init_X -> [argument expressions]`` of the chain common_sampler builds."""
    text = blocks("sampling.cpp.excerpt")[block]
    calls = {}
    for m in re.finditer(r"(llama_sampler_init_\w+)\(", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        calls[m.group(1)] = [a.strip() for a in text[m.end():i - 1].split(",")]
    return calls


def _as_table_args(c_args: list[str]) -> list[str]:
    out = []
    for a in c_args:
        if a == "vocab":
            out.append(VOCAB)
        elif a == "llama_vocab_n_tokens(vocab)":
            out.append(N_VOCAB)
        elif a.startswith("params."):
            out.append(a.removeprefix("params."))
        elif a == "c_breakers.data()":
            out.append("dry_sequence_breakers")  # with c_breakers.size(): one breaker field
        elif a == "merged.data()":
            out.append(BIASES)  # with merged.size(): the merged list
        elif a == "100":
            out.append(MIROSTAT_M)
        else:
            assert a in ("c_breakers.size()", "merged.size()"), a
    return out


@pytest.mark.parametrize("stage", [s for s in STAGES + (DIST,) if s.upstream], ids=lambda s: s.name)
def test_native_args_match_sampling_cpp(stage):
    calls = _native_calls()
    assert _as_table_args(calls[stage.native]) == list(arg_paths(stage))


@pytest.mark.parametrize("stage", EXTRA_STAGES, ids=lambda s: s.name)
def test_extra_stage_args_match_sampling_cpp(stage):
    """Logit bias, the plain temperature and the two mirostats, as common_sampler_init adds them."""
    calls = {**_native_calls(2), **_native_calls(3)}
    assert _as_table_args(calls[stage.native]) == list(arg_paths(stage))


@pytest.mark.llamacpp_programs
def test_excerpts_are_verbatim_llama_cpp():
    """The excerpts are llama.cpp's own text (tests/llamacpp_source.py: a missing source fails, never a skip)."""
    for name, path in (("common.h.excerpt", "common/common.h"), ("sampling.cpp.excerpt", "common/sampling.cpp")):
        source = source_path(path).read_text(encoding="utf-8")
        for block in blocks(name):
            assert block in source, f"{name}: a block is not in {path}"


# --------------------------------------------------------------------------
# Against the llama_cpp bindings
# --------------------------------------------------------------------------


def test_defaults_match_the_bindings():
    ll = pytest.importorskip("llama_cpp")
    from llama_cpp._internals import LlamaSamplingParams

    params = LlamaSamplingParams()
    ours = {"top_k": "top_k", "top_p": "top_p", "min_p": "min_p", "typical_p": "typ_p", "temp": "temp",
            "penalty_last_n": "penalty_last_n", "penalty_repeat": "penalty_repeat",
            "penalty_freq": "penalty_freq", "penalty_present": "penalty_present"}
    for theirs, field in ours.items():
        assert ROW_BY_FIELD[field].default == getattr(params, theirs), field
    assert ROW_BY_FIELD["seed"].default == ll.LLAMA_DEFAULT_SEED


@pytest.mark.parametrize("stage", [s for s in STAGES + (DIST,) if s.upstream], ids=lambda s: s.name)
def test_native_arg_types_match_the_bindings(stage):
    import ctypes

    ll = pytest.importorskip("llama_cpp")
    argtypes = list(getattr(ll, stage.native).argtypes)
    expected = []
    for path in arg_paths(stage):
        if path == N_VOCAB:
            expected.append({ctypes.c_int32})
        elif path == VOCAB:
            expected.append({ctypes.c_void_p})
        elif ROW_BY_FIELD[path].kind == "breaker":
            expected += [{ctypes.POINTER(ctypes.c_char_p)}, {ctypes.c_size_t}]
        else:
            row = ROW_BY_FIELD[path]
            ok = {"int32": {ctypes.c_int32}, "uint32": {ctypes.c_uint32}, "float32": {ctypes.c_float}}[row.ctype]
            if row.ctype == "int32" and row.bounds[0] >= 0:
                ok = ok | {ctypes.c_size_t}  # min_keep: int32 in common params, size_t in the API
            expected.append(ok)
    assert len(argtypes) == len(expected)
    for i, (got, ok) in enumerate(zip(argtypes, expected)):
        assert any(got == t or (hasattr(got, "_type_") and hasattr(t, "_type_") and got._type_ == t._type_)
                   for t in ok), (stage.name, i, got, ok)
