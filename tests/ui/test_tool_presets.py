"""Presets ▸ Import / Export for other tools, and a preset file dropped onto the window (fake backend)."""
from __future__ import annotations

import json

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent

from app.ui.dialogs.preset_formats_dialog import ImportReportDialog, report_html


def _st_file(tmp_path):
    path = tmp_path / "Warm Writer.json"
    path.write_text(json.dumps({"temp": 1.3, "min_p": 0.08, "samplers": ["min_p", "temperature"], "odd": 1}))
    return path


def test_import_saves_the_preset_with_its_report_and_applies_it(window, tmp_path):
    tools = window.presets.tools
    assert tools.import_file(str(_st_file(tmp_path)), choice="save", name="Warm Writer")
    lane = window.state.lane()
    assert (lane.settings.temp, lane.settings.min_p, lane.preset) == (1.3, 0.08, "Warm Writer")
    stored = window.playground.presets.get("Warm Writer")
    assert "odd: unknown (not a field this format documents; not applied)" in stored.report


def test_a_bad_file_is_one_line_and_changes_nothing(window, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"temp": "hot", "samplers": []}))
    before = window.state.lane().settings
    assert not window.presets.tools.import_file(str(path), choice="apply")
    assert window.state.lane().settings == before
    assert "temp" in window.state.problem and "\n" not in window.state.problem


def test_the_import_dialog_shows_each_field(qtbot, window, tmp_path):
    from app.core.formats import read_preset

    path = _st_file(tmp_path)
    imported = read_preset(path.name, path.read_bytes())
    dialog = ImportReportDialog(str(path), imported, window)
    qtbot.addWidget(dialog)
    text = dialog.view.toPlainText()
    assert "odd" in text and "unknown" in text and "min_p" in text
    assert dialog.name.text() == "Warm Writer"
    assert "<table" in report_html(imported.report)


def test_export_writes_the_chosen_format(window, tmp_path):
    window.playground.lanes.edit("temp", 0.55)
    dialog = window.presets.tools.export_file(show=False)
    dialog.format.setCurrentIndex(dialog.format.findData("kobold"))
    out = tmp_path / "k.json"
    assert dialog.save(str(out))
    assert json.loads(out.read_text())["temperature"] == 0.55
    dialog.close()


def test_a_dropped_file_is_imported(qtbot, window, tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(window.presets.tools, "import_file", lambda path: seen.append(path) or True)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(_st_file(tmp_path)))])
    enter = QDragEnterEvent(QPoint(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier)
    drop = QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                      Qt.KeyboardModifier.NoModifier)
    # Qt delivers a drop only after a real drag entered (no synthetic drag offscreen): call the window's filter
    tools = window.presets.tools
    assert window.acceptDrops()
    assert tools.eventFilter(window, enter) and enter.isAccepted()
    assert tools.eventFilter(window, drop)
    assert seen == [str(_st_file(tmp_path))]
    text_only = QMimeData()
    text_only.setText("hello")
    assert not tools.eventFilter(window, QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, text_only,
                                                    Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier))


def test_knobs_that_did_nothing_are_marked_and_reported(qtbot, window, run_and_wait):
    window.playground.lanes.edit("top_k", 100000)  # keeps everything: a knob that does nothing
    run_and_wait(window)
    effects = window.presets.tools.idle_knobs(show=False)
    top_k = next(e for e in effects if e.stage == "top_k")
    assert top_k.idle and top_k.n_steps == len(window.state.lane().records)
    label = window.controls.controls["top_k"].label
    assert label.text().endswith("∘")
    assert any(line.startswith("top_k: did nothing") for line in window.presets.tools.idle_lines)
    window.presets.tools.last_dialog.close()
    window.presets.save("Quiet")
    assert any(line.startswith("top_k: did nothing") for line in window.playground.presets.get("Quiet").report)


def test_a_registered_format_is_offered_by_the_dialogs(monkeypatch, window, tmp_path):
    from app.core.formats import FORMATS
    from app.ui.dialogs.preset_formats_dialog import file_filter
    from dummy_format import DUMMY

    assert "*.dmy" not in file_filter()
    monkeypatch.setitem(FORMATS, DUMMY.name, DUMMY)
    assert "*.dmy" in file_filter() and file_filter().endswith(";;All files (*)")
    window.playground.lanes.edit("temp", 0.55)
    dialog = window.presets.tools.export_file(show=False)
    index = dialog.format.findData("dummy")
    assert dialog.format.itemText(index) == DUMMY.label
    dialog.format.setCurrentIndex(index)
    out = tmp_path / "p.dmy"
    assert dialog.save(str(out)) and out.read_text() == "DUMMY 0.55\n"
    dialog.close()
    out.write_text("DUMMY 0.3\n")
    assert window.presets.tools.import_file(str(out), choice="apply")
    assert window.state.lane().settings.temp == 0.3
