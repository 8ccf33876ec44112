"""Importing a llama.cpp command line: the lane keeps its seed unless the line sets one (llama.cpp would pick a
random seed, and the writer would lose the text they can reproduce), and every option that was not applied
(``-n``, ``-c``, ``-m`` ..., not sampling settings) is listed with its value, in the import's report, its
summary line and the preset file's report."""
from __future__ import annotations

import pytest

from app.core.formats import read_preset
from app.core.llamacpp import import_command_with_notes
from sampler import SamplerSettings
from session_helpers import new_playground

LINE = 'llama-cli -m "/models/Gemma 3.gguf" -c 4096 -n 128 --temp 0.7 --top_k 20 -p "Once upon a time"'
LANE = SamplerSettings(seed=1234, top_p=0.5)


@pytest.mark.parametrize("line", [LINE, "--temp 0.7 -n 128 --top-k 20"])  # a whole command, or bare flags
def test_a_line_without_a_seed_keeps_the_lanes_and_one_with_a_seed_sets_it(line):
    kept = import_command_with_notes(line, LANE)
    assert kept.settings.seed == 1234 and kept.seed_kept
    assert (kept.settings.temp, kept.settings.top_k) == (0.7, 20)
    for spelled in ("-s 77", "--seed 77", "--seed=77"):
        given = import_command_with_notes(f"{line} {spelled}", LANE)
        assert given.settings.seed == 77 and not given.seed_kept
    assert "seed 1234 kept" in kept.summary()


def test_every_option_not_applied_is_listed_with_its_value():
    result = import_command_with_notes(LINE, LANE)
    assert result.not_applied == ("-m '/models/Gemma 3.gguf'", "-c 4096", "-n 128", "-p 'Once upon a time'")
    line = result.summary()
    assert "not applied" in line and "-n 128" in line and "-c 4096" in line and "\n" not in line
    assert result.applied == ("--temp", "--top-k")
    long = import_command_with_notes("-p '" + "word " * 500 + "' --temp 0.3", LANE)
    assert len(long.not_applied[0]) < 60  # a long prompt is cut, not pasted into the status bar whole


def test_a_command_line_preset_file_reports_what_it_did_not_apply_and_leaves_the_seed(tmp_path):
    imported = read_preset("run.sh", (LINE + "\n").encode())
    lines = imported.report.lines()
    assert "-n 128: dropped (not a sampling setting)" in lines and "-c 4096: dropped (not a sampling setting)" in lines
    assert "--temp: exact" in lines and not any(line.startswith(("-n: exact", "-c: exact", "-m: exact")) for line in lines)
    assert imported.report.kept == ("seed",)
    with_seed = read_preset("run.sh", (LINE + " -s 5\n").encode())
    assert with_seed.report.kept == () and with_seed.settings.seed == 5


def test_the_edited_lane_keeps_its_seed_when_it_takes_a_command_line_file(tmp_path):
    pg = new_playground(tmp_path)
    try:
        pg.lanes.set_settings(0, pg.state.lane().settings.replace(seed=4321), None)
        path = tmp_path / "run.sh"
        path.write_text(LINE + "\n", encoding="utf-8")
        assert pg.preset_actions.import_tool(path, save=True, name="pasted")
        lane = pg.state.lane().settings
        assert lane.seed == 4321 and lane.temp == 0.7
        assert pg.presets.get("pasted").settings.seed == 4321  # the saved preset is what the lane took
        path.write_text(LINE + " --seed 9\n", encoding="utf-8")
        assert pg.preset_actions.import_tool(path, save=False)
        assert pg.state.lane().settings.seed == 9
    finally:
        assert pg.engine.shutdown(10)
