"""Presets as actions, without Qt (app/actions/presets.py): save, rename, duplicate and delete tell the lanes;
another tool's preset is applied or saved with its per-field report; a bad file or a refused name is one
line and leaves the state and the store as they were; ``preset convert`` reads through the same reader."""
from __future__ import annotations

import json

import pytest

import app.actions.presets as preset_actions
from app.actions.presets import PresetActions
from app.cli import main
from app.core.changes import Change, Changed
from app.core.presets import PresetFileError, PresetStore
from session_helpers import new_playground, run

ST_PRESET = {"temp": 1.3, "min_p": 0.08, "samplers": ["min_p", "temperature"], "odd": 1}


@pytest.fixture
def pg(tmp_path):
    playground = new_playground(tmp_path)
    yield playground
    assert playground.engine.shutdown(10)


@pytest.fixture
def actions(pg) -> PresetActions:
    return pg.preset_actions


def _st_file(tmp_path, name="Warm Writer.json", doc=ST_PRESET):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _store_bytes(pg) -> bytes | None:
    return pg.presets.path.read_bytes() if pg.presets.path.exists() else None


def test_save_keeps_the_edited_lane_under_a_name_it_then_shows(pg, actions):
    seen = []
    pg.state.subscribe(seen.append)
    pg.lanes.edit("temp", 1.25)
    preset = actions.save("Warm", report=("top_k: did nothing",))
    assert preset is not None and pg.state.lane().preset == "Warm"
    stored = PresetStore(pg.presets.path).get("Warm")  # on disk, read afresh
    assert stored.settings == pg.state.lane().settings and stored.report == ("top_k: did nothing",)
    assert Change(Changed.PRESETS) in seen


def test_rename_and_delete_follow_in_the_lanes(pg, actions):
    actions.save("Warm")
    assert actions.rename("Warm", "Hot").name == "Hot" and pg.state.lane().preset == "Hot"
    assert actions.duplicate("Hot", "Hot copy") and set(pg.presets.names()) == {"Hot", "Hot copy"}
    assert actions.delete("Hot")
    assert pg.state.lane().preset is None and set(pg.presets.names()) == {"Hot copy"}
    assert pg.state.problem == ""


@pytest.mark.parametrize("change", [
    lambda a: a.rename("Nobody", "Somebody"),
    lambda a: a.delete("Nobody"),
    lambda a: a.duplicate("Nobody", "Copy"),
    lambda a: a.save("\u202e" * 3),
    lambda a: a.save("x" * 500),
    lambda a: a.rename("Mine", "Creative writing"),  # a built-in's name is taken
])
def test_a_refused_change_is_one_line_and_changes_nothing(pg, actions, change):
    actions.save("Mine")
    before, lane = _store_bytes(pg), pg.state.lane()
    settings, preset = lane.settings, lane.preset
    assert not change(actions)
    assert pg.state.problem and "\n" not in pg.state.problem
    assert _store_bytes(pg) == before and (lane.settings, lane.preset) == (settings, preset)


def test_a_file_of_our_presets_is_imported_and_exported(pg, actions, tmp_path):
    actions.save("Mine")
    out = tmp_path / "out.json"
    assert actions.export_file(out) and str(out) in pg.state.status
    actions.delete("Mine")
    assert actions.import_file(out) == ["Mine"] and "Mine" in pg.presets.names()


def test_another_tools_preset_is_saved_with_its_report_and_applied(pg, actions, tmp_path):
    assert actions.import_tool(_st_file(tmp_path), save=True, name="Warm Writer")
    lane = pg.state.lane()
    assert (lane.settings.temp, lane.settings.min_p, lane.preset) == (1.3, 0.08, "Warm Writer")
    stored = PresetStore(pg.presets.path).get("Warm Writer")
    assert "odd: unknown (not a field this format documents; not applied)" in stored.report
    assert stored.description.startswith("imported from Warm Writer.json (SillyTavern")
    assert pg.state.status.startswith("Imported Warm Writer.json as SillyTavern")


def test_another_tools_preset_applied_only_names_no_preset(pg, actions, tmp_path):
    pg.state.set_current_lane(pg.lanes.add())
    before = _store_bytes(pg)
    assert actions.import_tool(_st_file(tmp_path), save=False)
    assert pg.state.lane(1).settings.temp == 1.3 and pg.state.lane(1).preset is None
    assert pg.state.lane(0).settings.temp != 1.3, "only the edited lane"
    assert _store_bytes(pg) == before


def test_an_imported_preset_is_named_after_its_file_by_default(pg, actions, tmp_path):
    assert actions.import_tool(_st_file(tmp_path, "Cold.json"), save=True)
    assert pg.state.lane().preset == "Cold" and "Cold" in pg.presets.names()


def _hostile(tmp_path, kind: str):
    """A file of this kind, and what the line names."""
    path = _hostile_file(tmp_path, kind)
    return path, ("temp: expected a number, got 'hot'" if kind == "bad value" else path.name)


def _hostile_file(tmp_path, kind: str):
    if kind == "bad value":
        return _st_file(tmp_path, "bad.json", {"temp": "hot", "samplers": []})
    if kind == "not UTF-8":
        path = tmp_path / "latin.json"
        path.write_bytes(b'{"temp": "\xe9t\xe9"}')
        return path
    if kind == "nested":
        path = tmp_path / "deep.json"
        path.write_text("[" * 100_000 + "]" * 100_000)
        return path
    if kind == "not a preset":
        return _st_file(tmp_path, "other.json", {"hello": "world"})
    if kind == "a folder":
        (tmp_path / "folder.json").mkdir()
        return tmp_path / "folder.json"
    if kind == "missing":
        return tmp_path / "missing.json"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["bad value", "not UTF-8", "nested", "not a preset", "a folder", "missing"])
@pytest.mark.parametrize("save", [True, False])
def test_a_hostile_or_invalid_file_leaves_state_and_store_intact_with_one_line(pg, actions, tmp_path, kind, save):
    actions.save("Mine")
    path, named = _hostile(tmp_path, kind)
    before, lane = _store_bytes(pg), pg.state.lane()
    settings, preset, seen = lane.settings, lane.preset, []
    pg.state.subscribe(seen.append)
    assert not actions.import_tool(path, save=save, name="Evil")
    problem = pg.state.problem
    assert problem and "\n" not in problem and "Traceback" not in problem
    assert named in problem, "the line names the file, or the field and its value"
    assert _store_bytes(pg) == before and (lane.settings, lane.preset) == (settings, preset)
    assert Change(Changed.PRESETS) not in seen and Change(Changed.LANE_SETTINGS, 0) not in seen


def test_a_file_past_the_limit_is_refused_by_the_window_and_the_command_line_alike(pg, actions, tmp_path,
                                                                                   monkeypatch, capsys):
    path = _st_file(tmp_path)
    monkeypatch.setattr(preset_actions, "MAX_TOOL_PRESET_BYTES", 10)
    assert not actions.import_tool(path, save=False)
    assert "cannot be read" in pg.state.problem and str(path) in pg.state.problem
    assert main(["preset", "convert", str(path), str(tmp_path / "out.yaml"), "--to", "webui"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot be read" in err and not (tmp_path / "out.yaml").exists()


def test_a_name_the_store_refuses_leaves_the_lane_as_it_was(pg, actions, tmp_path):
    settings = pg.state.lane().settings
    assert not actions.import_tool(_st_file(tmp_path), save=True, name="x" * 500)
    assert "at most" in pg.state.problem and "\n" not in pg.state.problem
    assert pg.state.lane().settings == settings and "x" * 100 not in "".join(pg.presets.names())


def test_a_store_that_cannot_be_written_is_one_line(pg, actions, tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise PresetFileError(pg.presets.path, "could not be written (No space left on device)")

    monkeypatch.setattr(pg.presets, "save", refuse)
    settings = pg.state.lane().settings
    assert not actions.import_tool(_st_file(tmp_path), save=True)
    assert "No space left" in pg.state.problem and pg.state.lane().settings == settings


def test_knobs_that_did_nothing_go_into_the_next_saved_preset(pg, actions):
    assert actions.idle_knobs() == [] and actions.idle_lines == (), "no steps yet: nothing to judge"
    pg.lanes.edit("top_k", 100000)  # keeps everything: a knob that does nothing
    run(pg)
    effects = actions.idle_knobs()
    top_k = next(e for e in effects if e.stage == "top_k")
    assert top_k.idle and top_k.n_steps == len(pg.state.lane().records)
    assert actions.save("Quiet").report == actions.idle_lines
    assert any(line.startswith("top_k: did nothing") for line in pg.presets.get("Quiet").report)
    assert actions.save("Told", report=("mine",)).report == ("mine",)


def test_loading_a_damaged_store_is_one_line(pg, actions):
    pg.presets.path.write_bytes(b"\x00 not presets")
    problems = actions.load()
    assert problems and pg.state.problem == "Presets: " + "; ".join(problems) and "\n" not in pg.state.problem
    aside = list(pg.presets.path.parent.glob("presets.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == b"\x00 not presets", "the store set the file aside"
