"""The Bans panel (strip, hover and list), list import and save from the Chain page, and Find slop."""
from __future__ import annotations

import json
import re
from pathlib import Path

from PySide6.QtCore import Qt

from app.core.bans.events import ban_events
from app.ui.controls.ban_list_row import BanListRow
from app.ui.dialogs.slop_dialog import SlopDialog
from sampler.ban_lists import read_ban_list

ANTISLOP = Path(__file__).parent.parent / "sampler" / "data" / "antislop"


def test_the_bans_panel_lists_every_hit_and_a_row_selects_its_step(qtbot, window, run_and_wait):
    run_and_wait(window)
    words = "".join(r.text for r in window.state.lane().records).split()
    phrases = tuple(dict.fromkeys(" ".join(words[i:i + 2]) for i in range(1, 8, 2)))
    window.playground.lanes.edit("banned_phrases", phrases + (("x y", False, 0.5),))
    run_and_wait(window)
    records = window.state.lane().records
    events = ban_events(records)
    assert events, "a phrase it wrote before was met again"
    panel = window.bans
    window.bans.show_run(records, None)
    assert panel.list.count() == len(events)
    assert [panel.list.item(i).text() for i in range(panel.list.count())] == [e.line() for e in events]
    first = events[0]
    assert first.phrase in panel.tip_at(first.step) and repr(first.about) in panel.tip_at(first.step)
    item = panel.list.item(0)
    panel.list.itemClicked.emit(item)
    assert window.state.current_record().step == item.data(Qt.ItemDataRole.UserRole) == first.step
    assert "hit" in panel.header.text()


def test_import_and_save_lists_from_the_chain_page(window, tmp_path):
    assert not window.controls.findChildren(BanListRow)  # the Chain page is made when it first opens
    window.controls.open_page("Chain")
    row = next(w for w in window.controls.findChildren(BanListRow))
    assert row.import_from(str(ANTISLOP / "slop_phrase_prob_adjustments.json"))
    assert row.import_from(str(ANTISLOP / "slop_regexes.txt"), regex=True)
    phrases = window.state.lane().settings.banned_phrases
    assert len(phrases) == 15 and sum(p.regex for p in phrases) == 3 and phrases[0].multiplier == 0.03125
    out = tmp_path / "bans.json"
    assert row.save_to(str(out)) and read_ban_list(out.read_text()) == phrases
    bad = tmp_path / "counts.json"
    bad.write_text((ANTISLOP / "slop_phrases_counts.json").read_text())
    assert not row.import_from(str(bad))
    assert "counts.json" in window.state.problem and "\n" not in window.state.problem
    assert window.state.lane().settings.banned_phrases == phrases  # left as it was
    assert not row.save_to(str(bad / "x.json")) and "cannot be written" in window.state.problem  # under a file


def test_find_slop_proposes_recurring_phrases_and_adds_only_on_click(qtbot, window, run_and_wait):
    for seed in range(6):  # six independent samples (each Generate keeps the last as a branch), seeds of their own
        window.playground.lanes.set_settings(0, window.state.lane().settings.replace(seed=seed + 1), None)
        run_and_wait(window)
    dialog = SlopDialog(window.state, window.playground, window)
    qtbot.addWidget(dialog)
    assert dialog.proposals, "the fake model's texts share phrases far beyond their probability"
    assert window.state.lane().settings.banned_phrases == ()  # nothing banned by looking
    top = dialog.proposals[0]
    assert top.samples >= 2 and top.ratio >= 4
    texts = ["".join(r.text for r in b.pieces).lower() for b in window.state.lane().tree.branches.values()]
    assert sum(top.phrase in " ".join(t.split()) for t in texts) >= top.samples
    dialog.buttons[0].click()
    assert [p.text for p in window.state.lane().settings.banned_phrases] == [top.phrase]
    assert not dialog.buttons[0].isEnabled()
    json.dumps([p._asdict() for p in dialog.proposals])  # plain data


def test_the_list_follows_the_run_even_when_the_count_of_hits_stays(window):
    from types import SimpleNamespace

    from app.engine.face.records import BanHit

    def records(at):
        return [SimpleNamespace(step=i, text="x ", ban_hits=(BanHit("'p q'", "p q", 2),) if i == at else ())
                for i in range(40)]

    panel = window.bans
    panel.show_run(records(3))
    panel.show_run(records(30))
    assert panel.list.count() == 1 and panel.list.item(0).text().startswith("step 30:")
    xs, ys = panel.bars.getData()
    assert list(xs) == [30.0, 30.0] and list(ys) == [0.0, 2.0]


def test_find_slop_counts_reruns_once_says_so_and_bans_a_recurring_construction_as_a_pattern(qtbot, window):
    from types import SimpleNamespace

    tree = window.state.lane().tree
    before = tree.snapshot()  # the made-up records below are for the finder only: the session file never sees them
    texts = ["It was not the wind but the sea.", "She was not afraid but tired.", "They came not for gold but for him."]
    for text in texts + [texts[0]] * 3:  # the first text written four times (same-seed reruns): one sample
        branch = tree.add_branch(None, 0, prompt="once upon a time")
        branch.pieces.extend(SimpleNamespace(text=w, raw_logit=-0.7, raw_logsumexp=0.0, top_logits=())
                             for w in re.findall(r" ?\S+", text))
    try:
        dialog = SlopDialog(window.state, window.playground, window)
        qtbot.addWidget(dialog)
        assert "3 independent samples of 6 texts" in dialog.note.text()
        top = dialog.proposals[0]
        assert top.regex and top.name == "not X but Y" and (top.samples, top.of) == (3, 3)
        assert dialog.table.item(0, 3).text() == "pattern"
        dialog.buttons[0].click()
        (banned,) = window.state.lane().settings.banned_phrases
        assert banned.regex and banned.text == top.phrase
    finally:
        tree.restore(before)
