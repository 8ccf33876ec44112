"""The grammar's row in the funnel and its panel beside the Bans panel: the steps where the grammar refused the
chain's first pick, read from the grammar's stage count (sampler.chain.SamplerChain._grammar_step)."""
from __future__ import annotations

from types import SimpleNamespace

from app.ui.plots.funnel_ranks import row_label
from app.ui.plots.grammar import GrammarPanel, refusals
from sampler.chain import StageCount
from sampler.grammar_text import GRAMMAR, pick_refused

V = 1000


def rec(step, stages):
    return SimpleNamespace(step=step, stages=tuple(stages))


RECORDS = [
    rec(0, [StageCount(GRAMMAR, V, V, False), StageCount("top_k", V, 40, True)]),
    rec(1, [StageCount(GRAMMAR, V, 12, True), StageCount("top_k", V, 40, True)]),
    rec(2, [StageCount(GRAMMAR, V, V, False)]),
    rec(3, [StageCount(GRAMMAR, V, 3, True)]),
]


def test_refusals_are_the_steps_whose_grammar_count_is_active():
    assert refusals(RECORDS) == ([(1, V - 12, 12), (3, V - 3, 3)], 4)
    assert refusals([rec(0, [StageCount("top_k", V, 40, True)])]) == ([], 0)
    assert [pick_refused(r.stages) for r in RECORDS] == [False, True, False, True]


def test_the_funnel_row_says_whether_the_pick_fitted():
    assert row_label(GRAMMAR, False) == "Grammar: pick fits"
    assert row_label(GRAMMAR, True) == "Grammar: pick refused"
    assert row_label("top_k", False).endswith("(off)")


def test_the_panel_lists_the_refused_steps_and_says_how_many(qtbot):
    panel = GrammarPanel()
    qtbot.addWidget(panel)
    clicked = []
    panel.stepClicked.connect(clicked.append)
    panel.show_run(RECORDS, RECORDS[1])
    assert panel.list.count() == 2 and panel.list.item(1).text().startswith("step 3: ")
    assert "2 of 4 steps refused" in panel.header.text()
    panel.list.itemClicked.emit(panel.list.item(0))
    assert clicked == [1]
    panel.show_run([rec(0, [StageCount("top_k", V, 40, True)])])
    assert panel.list.count() == 0 and "no grammar" in panel.header.text()
