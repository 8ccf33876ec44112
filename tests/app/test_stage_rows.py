"""One description of a stage: a row of :mod:`sampler.stagetable` is all the funnel, the in-effect report and
the exports (llama.cpp's command line, llama-server's JSON, ``llama_cpp.Llama``'s keyword arguments) need to
know a stage.  A test stage is added to the rows (and taken out after) and each of them is asked about it; the
tables derived from the rows are checked against llama.cpp's own names (``tests/sampler/data/llama.cpp``)."""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace as NS

import numpy as np
import pytest

from app.core.formats.in_effect import effective_chain, in_effect
from app.core.formats.llama_names import LLAMA_SERVER_NAMES, STOCK_STAGES
from app.core.llamacpp import export_text
from app.core.llamacpp.python_api import active_stages, llama_kwargs
from app.core.llamacpp.server import server_request
from app.ui.plots.funnel_ranks import funnel, stage_label
from sampler import SamplerChain, SamplerSettings
from sampler.candidates import Candidates
from sampler.chain import StageCount
from sampler.flags import to_flags
from sampler.stage import Stage
from sampler.stagetable import (
    DIST,
    EXTRA_STAGES,
    STAGE_ALIASES,
    STAGE_BY_NAME,
    STAGES,
    UNSUPPORTED_STAGES,
    StageRow,
    added_stage,
)

NAME = "halve_for_test"
EXCERPT = Path(__file__).parents[1] / "sampler" / "data" / "llama.cpp" / "sampling.cpp.excerpt"


class Halve(Stage):
    """Keeps the more likely half of the candidates; on while ``--dynatemp-exp`` is not 1 (a field only
    the temperature reads, and only with a dynamic range, so nothing else changes)."""

    name = NAME

    def __init__(self, exponent: float):
        self.exponent = exponent
        self.enabled = exponent != 1.0

    def apply(self, cur: Candidates) -> None:
        keep = np.argsort(-cur.logits, kind="stable")[:max(1, len(cur) // 2)]
        cur.take(keep, sorted=True)

    def clone(self) -> Halve:
        return Halve(self.exponent)


def row(**kw) -> StageRow:
    fields = dict(name=NAME, letter="Z", aliases=("halve-for-test",), native="llama_sampler_init_halve_for_test",
                  args=("dynatemp_exponent",), make=Halve, label="halve", keeps_rank=True, default=False)
    return StageRow(**{**fields, **kw})


ON = dict(dynatemp_exponent=2.0)


def settings(**kw) -> SamplerSettings:
    order = ("top_k", NAME, "top_p", "temperature")
    return SamplerSettings(samplers=order, **kw)


@pytest.fixture
def llama_stage():
    """A stage llama.cpp has (as a new llama.cpp would), added to the rows."""
    with added_stage(row()) as added:
        yield added


@pytest.fixture
def own_stage():
    """A stage no llama.cpp has (as sampler.stages.beyond's), added to the rows."""
    with added_stage(row(upstream=False, llamacpp=False)) as added:
        yield added


def test_without_its_row_no_one_knows_the_stage():
    with pytest.raises(ValueError, match=NAME):
        settings()
    assert stage_label(NAME) == NAME
    assert NAME not in STAGE_BY_NAME


def test_the_chain_runs_it(llama_stage):
    trace = SamplerChain.from_settings(settings(top_k=8, top_p=1.0, temp=1.0, **ON)).sample(
        np.arange(32, dtype=np.float32), accept=False)
    assert StageCount(NAME, 8, 4, True) in trace.stages
    off = SamplerChain.from_settings(settings(top_k=8, top_p=1.0, temp=1.0)).sample(
        np.arange(32, dtype=np.float32), accept=False)
    assert StageCount(NAME, 8, 8, False) in off.stages


def _record(active: bool):
    return NS(stages=(StageCount(NAME, 100, 50, active), StageCount("penalties", 50, 50, False),
                      StageCount("dist", 50, 50, True)),
              raw_rank=4, final_ids=np.array([1, 2]), final_p=np.array([.5, .5]), token=9, scatter=None)


def test_the_funnel_labels_it_and_carries_the_rank_through_it(llama_stage):
    assert stage_label(NAME) == "halve"
    assert [r.rank for r in funnel(_record(True))] == [4, 4, 4]


def test_the_funnel_without_keeps_rank_does_not_carry_it():
    with added_stage(row(keeps_rank=False)):
        assert [r.rank for r in funnel(_record(True))] == [None, None, None]
        assert [r.rank for r in funnel(_record(False))] == [4, 4, 4]  # off: the rank goes through


def test_the_funnel_marks_a_stage_no_llama_cpp_has(own_stage):
    assert stage_label(NAME) == "halve \u2020"


def test_in_effect_lists_it_when_it_is_on(llama_stage):
    assert NAME in effective_chain(settings(**ON))
    assert NAME not in effective_chain(settings())
    ours, theirs, _ = in_effect(settings(**ON), "llama.cpp")
    assert NAME in ours and NAME in theirs  # written in --samplers, read back, run by llama.cpp


def test_in_effect_leaves_it_out_of_llama_cpps_chain_when_llama_cpp_lacks_it(own_stage):
    ours, theirs, _ = in_effect(settings(**ON), "llama.cpp")
    assert NAME in ours and NAME not in theirs


def test_the_command_line_names_it(llama_stage):
    line = export_text(settings(**ON))
    assert f"--samplers 'top_k;{NAME};top_p;temperature'" in line
    assert "--sampler-seq kZpt" in " ".join(to_flags(settings(**ON), order="seq"))
    assert NAME not in "\n".join(n for n in line.splitlines() if n.startswith("#"))


def test_the_command_line_notes_it_when_llama_cpp_lacks_it(own_stage):
    notes = [n for n in export_text(settings(**ON)).splitlines() if n.startswith("#")]
    assert any(NAME in n and "is not in llama.cpp" in n for n in notes)
    assert not any(NAME in n for n in export_text(settings()).splitlines() if n.startswith("#"))


def test_the_server_request_names_it(llama_stage):
    body = server_request(settings(**ON)).body
    assert body["samplers"] == ["top_k", NAME, "top_p", "temperature"]


def test_the_python_kwargs_say_llama_has_no_such_stage(llama_stage):
    assert active_stages(settings(**ON)) == ["top_k", NAME, "top_p", "temperature"]
    assert "halve: Llama has no halve stage" in llama_kwargs(settings(**ON)).gaps
    assert not any("halve" in gap for gap in llama_kwargs(settings()).gaps)


def test_the_table_is_restored_after():
    with added_stage(row()):
        settings()
    assert NAME not in STAGE_BY_NAME and NAME not in STAGE_ALIASES
    with pytest.raises(ValueError, match=NAME):
        settings()  # the checked orders are forgotten too
    with pytest.raises(ValueError, match="already"):
        with added_stage(row(name="top_k")):
            pass


# --------------------------------------------------------------------------
# The derived tables, against llama.cpp's names
# --------------------------------------------------------------------------


def _llama_spellings() -> dict[str, str]:
    """Every spelling ``common_sampler_types_from_names`` matches -> its canonical name (sampling.cpp)."""
    text = EXCERPT.read_text(encoding="utf-8")
    names = dict(re.findall(r'case (COMMON_SAMPLER_TYPE_\w+):\s+return "(\w+)";', text))
    canonical = dict(re.findall(r'\{ "(\w+)",\s+(COMMON_SAMPLER_TYPE_\w+)\s*\}', text))
    out = {}
    for spelling, kind in canonical.items():
        out[spelling] = names[kind]
        if "_" in spelling:
            out[spelling.replace("_", "-")] = out[spelling.replace("_", "")] = names[kind]
    for spelling, kind in re.findall(r'alias_name_map\.insert\(\{"(\w+)",\s*(COMMON_SAMPLER_TYPE_\w+)\}\)', text):
        out[spelling] = names[kind]
    return out


def test_llama_server_names_are_llama_cpps_own():
    theirs = {s: n for s, n in _llama_spellings().items() if n not in UNSUPPORTED_STAGES}
    assert len(theirs) > 20
    assert LLAMA_SERVER_NAMES == theirs
    assert set(STOCK_STAGES) == set(theirs.values())


def test_every_row_builds_its_own_stage():
    for stage_row in STAGES + (DIST,) + EXTRA_STAGES:
        assert callable(stage_row.constructor)
        assert bool(stage_row.native) == stage_row.llamacpp  # a llama.cpp stage has its native constructor
        assert stage_row.llamacpp or not stage_row.llama_names
    defaults = SamplerSettings()
    for stage_row in STAGES + (DIST,):
        stage = stage_row.constructor(*(defaults.get(a) for a in _field_args(stage_row)))
        assert isinstance(stage, Stage) and stage.name == stage_row.name


def _field_args(stage_row: StageRow) -> list[str]:
    from sampler.stageargs import arg_paths

    return [p for p in arg_paths(stage_row) if not p.startswith("<")]


#: Settings that turn the filters and the temperature on, one at a time.
ON_SETTINGS = [
    SamplerSettings(top_k=5), SamplerSettings(top_p=0.5), SamplerSettings(min_p=0.2), SamplerSettings(top_n_sigma=0.5),
    SamplerSettings(temp=0.5, dynatemp_range=0.3), SamplerSettings(top_a=0.3), SamplerSettings(tfs_z=0.5),
    SamplerSettings(typ_p=0.5), SamplerSettings(smoothing_factor=0.5, smoothing_curve=2.5),
]


@pytest.mark.parametrize("name", [r.name for r in STAGES + (DIST,) if r.keeps_rank])
def test_a_stage_that_keeps_rank_drops_only_the_least_likely_and_reorders_none(name):
    rng = np.random.default_rng(7)
    stages = [STAGE_BY_NAME[name].constructor(*(s.get(a) for a in _field_args(STAGE_BY_NAME[name]))) for s in ON_SETTINGS]
    assert any(stage.enabled for stage in stages)
    for stage in stages:
        for _ in range(20):
            logits = (rng.standard_normal(64) * 3).astype(np.float32)
            cur = Candidates.from_logits(logits)
            if stage.enabled:
                stage.apply(cur)
            live = cur.logits > -np.inf  # llama.cpp's filters may leave a dropped candidate at -inf
            kept = cur.ids[live][np.argsort(-cur.logits[live], kind="stable")].tolist()
            assert kept == np.argsort(-logits, kind="stable")[:len(kept)].tolist()


def test_active_stages_are_the_chains_own():
    """The exports' "is this stage on" is the chain's: the stage built from the settings says."""
    rng = np.random.default_rng(3)
    logits = rng.standard_normal(200).astype(np.float32)
    cases = ON_SETTINGS + [
        SamplerSettings(penalty_repeat=1.2), SamplerSettings(penalty_last_n=0, penalty_repeat=1.2),
        SamplerSettings(dry_multiplier=0.8, dry_sequence_breakers=()), SamplerSettings(xtc_probability=0.5),
        SamplerSettings(xtc_probability=0.5, xtc_threshold=0.6), SamplerSettings(typ_p=0.7),
        SamplerSettings(temp=1.0), SamplerSettings(smoothing_factor=0.4, samplers=("smoothing", "top_k")),
        SamplerSettings(top_a=0.2, samplers=("top_a", "temperature")),
        SamplerSettings().replace(scatter_strength=0.3), SamplerSettings(mirostat=2, temp=0.7),
        SamplerSettings(mirostat=2, temp=1.0),
    ]
    for s in cases:
        chain = SamplerChain.from_settings(s)
        counts = chain.sample(logits, accept=False).stages[:-1]  # the pick is not a stage of the order
        on = [c.name for c in counts if c.active]
        assert active_stages(s) == on, s
