"""Our importer against llama-completion's own parsing: for realistic command lines (llama.cpp's READMEs,
typical SillyTavern / KoboldCpp settings), the settings we read equal the sampler parameters, seed and
chain llama-completion prints (``sampler params:``, ``sampler seed:``, ``sampler chain:``), field by
field; what llama.cpp refuses we refuse, naming the same flag.

A flag a model's GGUF can give another default (``general.sampling.*``: the export's pinned fields) is
compared only where the line sets it: llama.cpp then reads it from the model, we from its defaults.
"""
from __future__ import annotations

import re
import shlex
from concurrent.futures import ThreadPoolExecutor

import pytest
from lcpp_agreement import RUNTIME_ARGS
from lcpp_programs import printed_chain, printed_params, run_completion

from app.core.llamacpp import PINNED_FIELDS, import_command
from app.core.llamacpp.importer import import_command_with_notes
from once import once
from sampler import FlagError

#: printed name -> our settings field
PRINTED = {
    "repeat_last_n": "penalty_last_n", "repeat_penalty": "penalty_repeat", "frequency_penalty": "penalty_freq",
    "presence_penalty": "penalty_present", "dry_multiplier": "dry_multiplier", "dry_base": "dry_base",
    "dry_allowed_length": "dry_allowed_length", "dry_penalty_last_n": "dry_penalty_last_n", "top_k": "top_k",
    "top_p": "top_p", "min_p": "min_p", "xtc_probability": "xtc_probability", "xtc_threshold": "xtc_threshold",
    "typical_p": "typ_p", "top_n_sigma": "top_n_sigma", "temp": "temp", "mirostat": "mirostat",
    "mirostat_lr": "mirostat_eta", "mirostat_ent": "mirostat_tau", "adaptive_target": "adaptive_target",
    "adaptive_decay": "adaptive_decay",
}
#: our stage -> llama_sampler_name
CHAIN_NAMES = {
    "penalties": "penalties", "dry": "dry", "top_n_sigma": "top-n-sigma", "top_k": "top-k", "typ_p": "typical",
    "top_p": "top-p", "min_p": "min-p", "xtc": "xtc", "temperature": "temp-ext", "adaptive_p": "adaptive-p",
}

ACCEPTED = [
    "--seed 1",
    "--seed 7 --temp 0.7 --top-k 40 --top-p 0.9 --repeat-penalty 1.1",  # llama.cpp README
    "--seed 7 --temp 0",
    "--seed 7 --top-k 0 --top-p 1.0 --min-p 0.05 --temp 1.0",  # min-p as its author recommends
    "--seed 7 --repeat-last-n 256 --repeat-penalty 1.18 --presence-penalty 0.5 --frequency-penalty 0.2",
    "--seed 7 --temp 1.25 --min-p 0.1 --top-k 0 --top-p 1",  # SillyTavern "Universal-Light"
    "--seed 7 --dry-multiplier 0.8 --dry-base 1.75 --dry-allowed-length 2 --dry-penalty-last-n 512",
    "--seed 7 --xtc-probability 0.5 --xtc-threshold 0.1",  # XTC's author's settings
    "--seed 7 --mirostat 2 --mirostat-lr 0.1 --mirostat-ent 5.0",
    "--seed 7 --mirostat 1 --mirostat-ent 3 --temp 0.8",
    "--seed 7 --typical 0.95 --temp 0.8",
    "--seed 7 --top-nsigma 1.0 --temp 1.5",
    "--seed 7 --temp 1.0 --dynatemp-range 0.5 --dynatemp-exp 1.5",
    "--seed 7 --temp 0.75 --top-k 100 --top-p 0.92 --typical 1 --repeat-penalty 1.07 --repeat-last-n 360 "
    "--min-p 0",  # KoboldCpp's defaults
    "--seed 7 --samplers 'top_k;top_p;min_p;temperature' --top-k 50",
    "--seed 7 --sampler-seq kpmt",
    "--seed -1 --temp 0.9",  # llama.cpp's "random seed"
    "--seed 42 --top_k 30 --repeat_penalty 1.05",  # underscores, as llama.cpp accepts them
    "--seed 42 --temperature 0.6 --top-p 0.95 --min-p 0.0",
    "--seed 3 --samplers 'top_k;adaptive_p' --adaptive-target 0.5 --adaptive-decay 0.9",
    "--seed 3 --ignore-eos --temp 0.5 -l 15043+1 --logit-bias 100-inf",
    "--seed 3 --dry-multiplier 0.8 --dry-sequence-breaker none",
    "--seed 3 --xtc-probability 0.5 --xtc-threshold 0.6 --top-k 64 --top-p 0.95",  # Gemma's card, XTC off
    "-s 11 --temp 0.8 --presence-penalty 1.5 --min-p 0.02",
]

#: (line, the flag both must name)
REFUSED = [
    ("--repeat-last-n -1", "--repeat-last-n"),
    ("--dry-penalty-last-n -1", "--dry-penalty-last-n"),
    ("--top-k abc", "--top-k"),
    ("--temp x", "--temp"),
    ("--seed abc", "--seed"),
    ("--repeat-penalty 0", "--repeat-penalty"),
    ("--mirostat 3", "--mirostat"),
    ("--dry-penalty-last-n", "--dry-penalty-last-n"),
]


#: Lines with sampler names / letters llama.cpp cannot match: it warns and leaves them out, never refuses.
UNMATCHED = [
    "--seed 7 --samplers 'top_k;foo;min_p;temperature'",
    "--seed 7 --samplers 'top_k; top_p;Temperature'",  # a space is part of the name
    "--seed 7 --samplers 'penalties;;TOP-K;typical;nucleus;temp'",  # an empty part; "typical" is no alias
    "--seed 7 --samplers 'top_k;min_p;'",  # a trailing separator
    "--seed 7 --sampler-seq kzpt",
    "--seed 7 --sampler-seq 'kK;m'",  # letters are case-sensitive
]
EQUALS_FORM = "--temperature=0.6"
WARNING = re.compile(r"unable to match sampler by (?:name|char) '(.*)'")


def _run(programs, model_path, line: str):
    args = ["-m", model_path, "-n", "1", "-c", "256", "-p", "x", "-no-cnv", "--no-display-prompt", *RUNTIME_ARGS]
    return run_completion(programs, args + shlex.split(line))


@pytest.fixture(scope="module")
def llama_runs(programs, model_path, tmp_path_factory):
    """llama-completion on every line of this file, two at a time (one thread each): line -> its run.
    Once per test run, whichever workers run these tests (tests/once.py)."""
    lines = ACCEPTED + [line for line, _ in REFUSED] + UNMATCHED + [EQUALS_FORM]

    def run_all():
        with ThreadPoolExecutor(max_workers=2) as pool:
            return dict(zip(lines, pool.map(lambda line: _run(programs, model_path, line), lines)))

    return once("parsing-agreement", tmp_path_factory, run_all)


def test_enough_lines():
    assert len(ACCEPTED) >= 20 and len(REFUSED) >= 5


@pytest.mark.parametrize("line", ACCEPTED)
def test_our_settings_equal_what_llama_cpp_printed(llama_runs, line):
    done = llama_runs[line]
    assert done.returncode == 0, done.log[-2000:]
    printed = printed_params(done.log)
    assert len(printed) == len(PRINTED), done.log[-3000:]
    ours = import_command(line)
    words = {w.split("=")[0].replace("_", "-") for w in shlex.split(line)}
    for name, field in PRINTED.items():
        if field in PINNED_FIELDS and not _line_sets(words, field):
            continue  # the model's GGUF may give llama.cpp another default
        assert f"{ours.get(field):.3f}" == f"{printed[name]:.3f}", (name, ours.get(field), printed[name])
    if ours.seed != 4294967295 and "adaptive_p" not in ours.samplers:  # it prints the dist stage's seed
        assert f"sampler seed: {ours.seed}\n" in done.log
    if ours.mirostat == 0 and _line_sets(words, "samplers"):
        chain = [c for c in printed_chain(done.log) if c in CHAIN_NAMES.values()]
        assert chain == [CHAIN_NAMES[s] for s in ours.samplers if s in CHAIN_NAMES], printed_chain(done.log)


def _line_sets(words: set, field: str) -> bool:
    from sampler.flags import FLAG_BY_NAME

    return any(FLAG_BY_NAME[w].field == field for w in words if w in FLAG_BY_NAME)


@pytest.mark.parametrize("line, flag", REFUSED)
def test_what_llama_cpp_refuses_we_refuse_naming_the_same_flag(llama_runs, line, flag):
    done = llama_runs[line]
    assert done.returncode != 0, done.log[-2000:]
    assert flag in done.log or flag.lstrip("-").replace("-", "_") in done.log or "penalty_repeat" in done.log
    with pytest.raises(FlagError) as exc:
        import_command(line)
    assert str(exc.value).startswith(flag), str(exc.value)


def test_name_equals_value_is_ours_alone(llama_runs):
    """A deliberate difference: llama.cpp refuses ``--temperature=0.6`` ("invalid argument"); the importer
    reads it (lines pasted from Python tools use that form), and the exports never write it."""
    done = llama_runs[EQUALS_FORM]
    assert done.returncode != 0 and "invalid argument: --temperature=0.6" in done.log
    assert import_command("--temperature=0.6").temp == 0.6


@pytest.mark.parametrize("line", UNMATCHED)
def test_unknown_sampler_names_are_left_out_as_llama_cpp_leaves_them_out(llama_runs, line):
    done = llama_runs[line]
    assert done.returncode == 0, done.log[-2000:]
    every = WARNING.findall(done.log)
    assert every, done.log[-2000:]
    warned = [name for name in every if name]  # an empty part: no note (app/core/llamacpp/sampler_names.py)
    ours = import_command_with_notes(line)
    notes = [n for n in ours.notes if "unable to match sampler" in n]
    assert len(notes) == (1 if warned else 0), (every, ours.notes)
    said = (notes[0] if "--sampler-seq" in line else notes[0].lower()) if notes else ""  # llama.cpp lower-cases
    for name in warned:
        assert f"{name!r}" in said, (name, said)
    assert said.count("'") == 2 * len(warned), (warned, said)
    chain = [c for c in printed_chain(done.log) if c in CHAIN_NAMES.values()]
    assert chain == [CHAIN_NAMES[s] for s in ours.settings.samplers if s in CHAIN_NAMES], printed_chain(done.log)
