"""Writers' workflow in the window: lanes, the temperature baseline, match entropy, presets, flags."""
from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from app.analysis import baseline_entropy, post_chain_entropy  # noqa: E402
from app.export import import_command  # noqa: E402
from sampler import SamplerSettings  # noqa: E402


def run(qtbot, w, tokens: int):
    w.controls.max_tokens.setValue(tokens)
    w.generate(continue_text=False)
    qtbot.waitUntil(lambda: w.worker is not None and not w.worker.running and not w.worker.events.qsize(), timeout=180_000)
    qtbot.wait(60)


def test_baseline_lane_runs_beside_scatter_and_matches_entropy(qtbot, window):
    assert len(window.lane_states) == 1
    assert window.lane_states[0].settings.scatter.enabled  # the default lane is "Creative writing"
    window.add_baseline_lane()
    assert len(window.lane_states) == 2 and len(window.lanes_view.columns) == 2
    baseline = window.lane_states[1].settings
    assert not baseline.scatter.enabled
    assert baseline.seed == window.lane_states[0].settings.seed
    run(qtbot, window, 24)
    lanes = [window.session.lane(i) for i in range(2)]
    assert all(len(l) == 24 for l in lanes)
    # each lane's text pane shows its own tokens; both show stats
    for i, col in enumerate(window.lanes_view.columns):
        assert col.text.text_so_far() == "".join(r.text for r in lanes[i])
        assert col.stats_values["tokens"] == 24
        assert 0 < col.stats_values["distinct_2"] <= 1
    if [r.token for r in lanes[0]] != [r.token for r in lanes[1]]:
        assert "diverge" in window.lanes_view.columns[0].note.text()
    target = post_chain_entropy(lanes[0])
    window.match_entropy()
    matched = window.lane_states[1].settings
    assert matched.temp != baseline.temp or window.last_match.reached
    assert window.last_match.reached
    got = baseline_entropy(lanes[1], matched, matched.temp, vocab=window.model.vocab)
    assert got == pytest.approx(target, abs=2e-3)
    assert f"{window.last_match.temperature:.3f}" in window.statusBar().currentMessage()


def test_selecting_a_step_selects_it_in_every_lane(qtbot, window):
    window.add_baseline_lane()
    run(qtbot, window, 10)
    window.lanes_view.columns[1].text.stepClicked.emit(4)
    assert window.session.selected == 4
    for lane in range(2):
        assert window.session.current(lane).step == 4
    window.set_current_lane(1)
    window.redraw()
    rec = window.session.current(1)
    assert all(c.value() == 4 for c in window.strips.cursors)
    np.testing.assert_allclose(window.pre_post.pre.opts["height"], np.sort(rec.final_p.astype(float))[::-1][:64])


def test_export_round_trips_and_marks_the_scatter_build(qtbot, window):
    window.controls.controls["top_k"].box.setValue(55)
    window.controls.controls["scatter.collision"].box.setValue(0.5)
    settings = window.lane_states[window.current_lane].settings
    window.export_command()
    dialog = window.export_dialog
    for prompt in (False, True):
        for seq in (False, True):
            for everything in (False, True):
                dialog.include_prompt.setChecked(prompt)
                dialog.use_seq.setChecked(seq)
                dialog.all_flags.setChecked(everything)
                text = dialog.text.toPlainText()
                assert "scatter" in text.lower() and "llama_sampler_init_scatter_ext(" in text
                assert import_command(dialog.command(), SamplerSettings()) == settings
    assert window.model.info.path in dialog.command()
    dialog.close()


def test_import_applies_all_or_nothing(qtbot, window):
    before = window.lane_states[0].settings
    from app.ui.dialogs import ImportDialog

    dialog = ImportDialog(before, window)
    dialog.edit.setPlainText("llama-cli -m x.gguf --temp 0.4 --top-k abc --bogus-flag 3")
    dialog.apply()
    assert dialog.result_settings is None
    assert "--top-k" in dialog.error.text() and "--bogus-flag" in dialog.error.text()
    dialog.edit.setPlainText("llama-cli -m x.gguf -n 64 --temperature 0.4 --top-k 7 --sampler-seq kmrt")
    dialog.apply()
    assert dialog.result_settings is not None
    window.apply_imported(dialog.result_settings)
    now = window.lane_states[0].settings
    assert (now.temp, now.top_k, now.samplers) == (0.4, 7, ("top_k", "min_p", "scatter", "temperature"))
    assert window.controls.controls["top_k"].value() == 7


def test_user_presets_save_rename_delete(qtbot, window):
    window.controls.controls["scatter.strength"].box.setValue(0.22)
    window.save_preset("Mine")
    assert "Mine" in window.store.names()
    assert window.lane_states[0].preset == "Mine"
    assert "Mine" in [window.lanes_view.columns[0].preset.itemText(i) for i in range(window.lanes_view.columns[0].preset.count())]
    window.save_preset("Off (llama.cpp defaults)")  # built-in names are refused, with a message
    assert window.controls.error.text()
    window.add_lane(preset="Mine")
    assert window.lane_states[1].settings.scatter.strength == pytest.approx(0.22)
    window.store.rename("Mine", "Ours")
    window.store.delete("Ours")
    assert "Ours" not in window.store.names()


def test_fan_shows_continuations_of_every_lane(qtbot, window):
    window.add_baseline_lane()
    run(qtbot, window, 6)
    window.session.select(3)
    window.fan(n=2)
    dialog = window.fan_dialog
    qtbot.waitUntil(lambda: not window.fan_worker.running and not window.fan_worker.events.qsize(), timeout=180_000)
    qtbot.wait(120)
    assert len(dialog.results) == 4
    assert {r.lane for r in dialog.results} == {0, 1}
    assert len({r.seed for r in dialog.results if r.lane == 0}) == 2
    html = dialog.view.toHtml()
    assert "Lane 1" in html and "Lane 2" in html
    dialog.close()
