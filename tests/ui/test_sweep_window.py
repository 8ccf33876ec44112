"""The Sweep window on the fake backend: a run with its plots and table, opening a point as a lane, cancel."""
from __future__ import annotations

import pyqtgraph as pg

from app.core.sweep import output


def open_sweep(window, tmp_path, *, tokens=6, seeds=2):
    window.actions.open_sweep()
    sw = window.actions.sweep_window
    (tmp_path / "p.txt").write_text("once upon a time\n", encoding="utf-8")
    (tmp_path / "q.txt").write_text("the cat sat\n", encoding="utf-8")
    f = sw.form
    f.range1.setText("0,0.3")
    f.baseline.setText("0.6,1.0")
    f.prompts.setText(str(tmp_path))
    f.seeds.setValue(seeds)
    f.tokens.setValue(tokens)
    f.output.setText(str(tmp_path / "sweep.csv"))
    return sw


def test_a_sweep_fills_the_plots_and_a_point_opens_as_a_lane(qtbot, window, tmp_path):
    sw = open_sweep(window, tmp_path)
    assert window.actions.sweep.isEnabled()
    sw.start_button.click()
    assert window.state.busy == "sweep" and not window.actions.generate.isEnabled()
    qtbot.waitUntil(lambda: not window.state.busy, timeout=60_000)
    assert sw.progress.value() == 1000 and "done: 16 samples" in sw.message.text()
    _, rows = output.read_sweep(tmp_path / "sweep.csv")
    assert len(rows) == (2 + 2) * 2 * 2
    dots = [i for i in sw.frontier.plot.getPlotItem().items if isinstance(i, pg.ScatterPlotItem)]
    assert len(dots) == 2 and sorted(len(d.data) for d in dots) == [2, 2]  # scatter's curve, temperature's curve
    assert any(isinstance(i, pg.ErrorBarItem) for i in sw.sweep_plot.plot.getPlotItem().items)
    assert sw.table.rowCount() == 2
    keys = [spot["data"] for d in dots for spot in d.data]
    assert "--scatter-strength 0.3" in keys and "--temp 0.6" in keys
    sweep_dots = next(d for d in dots if "--scatter-strength 0.3" in [spot["data"] for spot in d.data])
    spot = next(p for p in sweep_dots.points() if p.data() == "--scatter-strength 0.3")
    sweep_dots.sigClicked.emit(sweep_dots, [spot], None)  # what a mouse click on the dot sends
    lane = window.state.lane()
    assert lane.settings.scatter.strength == 0.3 and lane.settings.seed == 1
    sw.variety_box.setCurrentIndex(sw.variety_box.findData("entropy"))
    sw.metric_box.setCurrentIndex(sw.metric_box.findData("distinct_2"))
    sw.close()


def test_cancel_leaves_a_partial_csv_and_resume_finishes_it(qtbot, window, tmp_path):
    sw = open_sweep(window, tmp_path, tokens=40, seeds=3)
    sw.start_button.click()
    qtbot.waitUntil(lambda: len(window.state.jobs.sweep.rows) >= 3, timeout=60_000)
    sw.cancel_button.click()
    qtbot.waitUntil(lambda: not window.state.busy, timeout=60_000)
    _, rows = output.read_sweep(tmp_path / "sweep.csv")
    assert "stopped" in sw.message.text() and 3 <= len(rows) < 24
    sw.resume_button.click()
    qtbot.waitUntil(lambda: not window.state.busy, timeout=60_000)
    assert len(output.read_sweep(tmp_path / "sweep.csv")[1]) == 24
    sw.close()


def test_a_bad_range_is_reported_in_the_window(window, tmp_path):
    sw = open_sweep(window, tmp_path)
    sw.form.range1.setText("0:2:0.5")
    sw.start_button.click()
    assert "--scatter-strength" in sw.message.text() and not window.state.busy
    assert not (tmp_path / "sweep.csv").exists()
    sw.close()


def test_an_earlier_sweep_can_be_shown_and_its_plan_fills_the_form(qtbot, window, tmp_path):
    sw = open_sweep(window, tmp_path)
    sw.start_button.click()
    qtbot.waitUntil(lambda: not window.state.busy, timeout=60_000)
    sw.close()
    window.state.jobs.show_sweep(tmp_path / "none.csv", None, [], "")
    sw.form.range1.setText("0.1")
    sw.open_file(str(tmp_path / "sweep.csv"))
    assert len(window.state.jobs.sweep.rows) == 16 and sw.form.range1.text() == "0,0.3"
    assert sw.form.extra.text() == "--scatter-strength 0.18"
    sw.close()


def test_the_forms_edits_reach_the_state_and_the_states_changes_reach_the_form(qtbot):
    from app.core.changes import Changed
    from app.core.state import PlaygroundState
    from app.ui.sweep.form import NONE, SweepForm

    state = PlaygroundState()
    form = SweepForm(state)
    qtbot.addWidget(form)
    assert (form.range1.text(), form.flag2.currentText(), form.tokens.value()) == ("0:0.4:0.1", NONE, 48)
    seen = []
    state.subscribe(seen.append)
    form.range1.setText("0,0.2")
    form.flag2.setCurrentText("--temp")
    form.seeds.setValue(5)
    form.match.setChecked(False)
    form.preset.setCurrentIndex(form.preset.findData("off"))
    fields = state.jobs.sweep_form
    assert (fields.range1, fields.flag2, fields.seeds, fields.match, fields.preset) == ("0,0.2", "--temp", 5, False, "off")
    assert [c.what for c in seen] == [Changed.SWEEP_FORM] * 5
    state.jobs.set_sweep_form(range1="0.1", flag2="", tokens=7, match=True, preset="creative-writing", output="/tmp/x.csv")
    assert (form.range1.text(), form.flag2.currentText(), form.tokens.value()) == ("0.1", NONE, 7)
    assert form.match.isChecked() and form.preset.currentData() == "creative-writing"
    assert form.output.text() == "/tmp/x.csv"
    assert len(seen) == 6, "showing the state's fields writes nothing back"


def test_one_seed_frontier_says_why_it_is_blank(qtbot, window, tmp_path):
    """Issue 45, item 17: with one seed a point has no self-BLEU, so the default frontier draws nothing; it says so."""
    sw = open_sweep(window, tmp_path, tokens=4, seeds=1)
    sw.start_button.click()
    qtbot.waitUntil(lambda: not window.state.busy, timeout=60_000)
    sw.variety_box.setCurrentIndex(sw.variety_box.findData("diversity"))
    sw.redraw()
    dots = [i for i in sw.frontier.plot.getPlotItem().items if isinstance(i, pg.ScatterPlotItem)]
    assert not dots
    assert "Nothing to draw" in sw.frontier.title.text() and "2 seeds or more" in sw.frontier.title.text()
    sw.variety_box.setCurrentIndex(sw.variety_box.findData("entropy"))  # a measure one seed has: drawn, no notice
    assert "Nothing to draw" not in sw.frontier.title.text()
    sw.close()


def test_in_the_windows_engine_process_a_matching_sweep_names_its_phases_and_cancel_ends_it(qtbot, config, tmp_path):
    """The window as it runs (its engine in a process of its own, on the fake backend): a sweep with entropy
    matching names each phase with its progress, and Cancel ends it within a step, also inside a match."""
    from app.core.sweep import runner
    from app.engine.process import EngineProcess, LoaderSpec
    from app.ui.main_window import MainWindow

    w = MainWindow(load_default=False, restore_session=False,
                   engine=EngineProcess(LoaderSpec("app.engine.fake:fake_loader", {})))
    qtbot.addWidget(w)
    w.show()
    try:
        w.playground.runs.load_model(None)
        qtbot.waitUntil(lambda: w.state.model is not None, timeout=60_000)
        sw = open_sweep(w, tmp_path)
        seen: list[str] = []
        w.state.subscribe(lambda c: seen.append(sw.phases.text()))
        sw.start_button.click()
        qtbot.waitUntil(lambda: not w.state.busy, timeout=60_000)
        assert "done: 16 samples" in sw.message.text() and sw.progress.value() == 1000
        assert any("entropy matched" in s and "now: matching the entropy of sample" in s for s in seen)
        assert any("now: generating samples" in s for s in seen)
        runner.MATCH_TOL, tol = 1e-300, runner.MATCH_TOL  # long matches (60 bisection steps each) to cancel in
        try:
            sw.form.tokens.setValue(200)
            sw.form.output.setText(str(tmp_path / "long.csv"))
            sw.start_button.click()
            qtbot.waitUntil(lambda: "now: matching" in sw.phases.text(), timeout=60_000)
            sw.cancel_button.click()
            qtbot.waitUntil(lambda: not w.state.busy, timeout=5_000)
        finally:
            runner.MATCH_TOL = tol
        assert sw.message.text().startswith("stopped:") and not w.state.problem
        sw.close()
    finally:
        w.close()
