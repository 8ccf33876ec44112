"""Lanes side by side: baseline and matched entropy, shared selection, export and import, fan."""
from __future__ import annotations

from app.core.analysis import post_chain_entropy
from app.core.llamacpp import import_command


def test_baseline_lane_runs_beside_scatter_and_matches_entropy(qtbot, window, run_and_wait):
    window.playground.lanes.edit("scatter.strength", 0.4)
    window.actions.baseline.trigger()
    window.state.set_run_settings(max_tokens=40)
    run_and_wait(window)
    assert not window.state.lanes[1].settings.scatter.enabled
    window.actions.match.trigger()
    qtbot.waitUntil(lambda: not window.state.busy, timeout=30_000)
    assert "matches lane 1" in window.status.stop.text()
    match = window.playground.analysis.last_match
    assert window.state.lanes[1].settings.temp == round(match.temperature, 4)
    if match.reached:  # the replay of the baseline's records at that temperature meets the target
        from app.core.analysis import baseline_entropy

        target = post_chain_entropy(window.state.lanes[0].records)
        got = baseline_entropy(window.state.lanes[1].records, window.state.lanes[1].settings, match.temperature)
        assert abs(got - target) < 1e-3


def test_selecting_a_step_selects_it_in_every_lane(qtbot, window, run_and_wait):
    window.actions.add_lane.trigger()
    run_and_wait(window)
    window.lanes_view.columns[1].text.stepClicked.emit(5)
    assert window.state.selected == 5
    for index in range(2):
        assert window.state.current_record(index).step == 5


def test_export_round_trips_and_marks_the_scatter_build(qtbot, window):
    window.playground.lanes.edit("scatter.strength", 0.25)
    window.actions.export.trigger()
    dialog = window.actions.export_dialog
    command = dialog.command()
    assert "stock llama.cpp cannot run this: it needs the scatter fork" in command
    assert import_command(command.splitlines()[-1]) == window.state.lane().settings
    dialog.close()


def test_import_applies_all_or_nothing(qtbot, window):
    from app.ui.dialogs import ImportDialog

    before = window.state.lane().settings
    dialog = ImportDialog(before, window)
    dialog.edit.setPlainText("--temp 0.5 --top-k nope --mirostat 2")
    dialog.apply()
    assert dialog.result_settings is None and "--top-k" in dialog.error.text()
    dialog.edit.setPlainText("llama-cli -m x.gguf --temp 0.5 --top-k 7")
    dialog.apply()
    assert dialog.result_settings.temp == 0.5 and dialog.result_settings.top_k == 7
    window.playground.lanes.set_settings(0, dialog.result_settings, None)
    assert window.controls.controls["top_k"].box.value() == 7


def test_fan_shows_continuations_of_every_lane(qtbot, window, run_and_wait):
    window.actions.add_lane.trigger()
    run_and_wait(window)
    window.actions.open_fan(3)
    qtbot.waitUntil(lambda: not window.state.busy, timeout=30_000)
    dialog = window.actions.fan_dialog
    assert dialog.status.text() == "From the end of the text: 6 continuations"
    assert dialog.view.toHtml().count("seed ") >= 6
    lane = window.state.lanes[0]
    before = lane.text
    from PySide6.QtCore import QUrl

    dialog.view.anchorClicked.emit(QUrl("adopt:1"))
    fan = window.state.jobs.fan
    assert fan.results[1].adopted and lane.text == before + fan.results[1].text
    assert "adopted" in dialog.view.toPlainText()
    dialog.close()


def test_a_real_run_on_gemma_draws_every_panel_from_its_records(qtbot, gemma_window, run_and_wait):
    w = gemma_window
    w.playground.lanes.edit("scatter.strength", 0.3)
    w.playground.lanes.edit("scatter.absorption", 0.2)
    w.playground.lanes.edit("scatter.collision", 0.7)
    run_and_wait(w, timeout=120_000)
    records = w.state.lane().records
    assert len(records) == 24
    rec = [r for r in records if r.scatter.fired][-1]
    w.state.select(rec.step)
    qtbot.wait(20)
    assert list(w.pre_post.ids) == list(rec.scatter.ids[: len(rec.scatter.p_before)])
    assert abs(w.entropy.bars.right[1] - w.entropy.bars.left[1] - rec.scatter.entropy) < 1e-12
    assert w.lanes_view.stats_table.row_text(0)[2] == f"{w.lanes_view.columns[0].stats_values['entropy']:.3f}"
