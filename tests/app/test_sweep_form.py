"""The sweep window's form as the state holds it (``state.jobs.sweep_form``): checked fields, one change per edit,
the plan built from the fields alone, and a sweep file's plan read back into them."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.core.changes import Changed
from app.core.jobs import SweepFormFields
from app.core.state import PlaygroundState
from app.core.sweep.build import build_plan
from app.core.sweep.form import form_changes, form_plan


def test_the_defaults_are_the_forms_as_it_always_opened():
    fields = PlaygroundState().jobs.sweep_form
    assert (fields.flag1, fields.range1, fields.flag2, fields.range2) == ("--scatter-strength", "0:0.4:0.1", "", "")
    assert (fields.preset, fields.extra, fields.baseline, fields.prompts) == ("creative-writing", "", "0.6:1.4:0.2", "")
    assert (fields.seeds, fields.first_seed, fields.tokens, fields.match) == (3, 1, 48, True)
    assert fields.output == str(Path.home() / "sweep.csv")


def test_an_edit_is_kept_and_announced_once_and_an_equal_one_not_at_all(state, seen):
    state.jobs.set_sweep_form(range1="0,0.2", flag2="--temp", range2="0.7,1.0", seeds=2)
    state.jobs.set_sweep_form(range1="0,0.2")
    assert (state.jobs.sweep_form.range1, state.jobs.sweep_form.flag2, state.jobs.sweep_form.seeds) == ("0,0.2", "--temp", 2)
    assert [c.what for c in seen] == [Changed.SWEEP_FORM]


@pytest.mark.parametrize("changes, words", [
    ({"flag1": "--nope"}, "numeric flag to sweep"), ({"flag1": ""}, "numeric flag to sweep"),
    ({"flag2": "--nope"}, "numeric flag or none"), ({"range1": 0.4}, "range1: expected text"),
    ({"output": None}, "output: expected text"), ({"seeds": 0}, "seeds: expected 1 to 1000"),
    ({"seeds": 1001}, "seeds"), ({"first_seed": -1}, "first_seed"), ({"tokens": 0}, "tokens"),
    ({"tokens": 4.0}, "tokens"), ({"seeds": True}, "seeds"), ({"match": "yes"}, "match: expected on or off"),
])
def test_a_bad_field_names_itself_and_changes_nothing(changes, words, state, seen):
    before = state.jobs.sweep_form
    with pytest.raises(ValueError, match=words):
        state.jobs.set_sweep_form(**changes)
    assert state.jobs.sweep_form is before and not seen


def test_the_fields_cannot_be_changed_in_place():
    with pytest.raises(dataclasses.FrozenInstanceError):
        PlaygroundState().jobs.sweep_form.range1 = "0"  # type: ignore[misc]


def test_the_plan_is_the_command_lines_plan_of_the_fields(tmp_path):
    (tmp_path / "p.txt").write_text("once upon a time\n", encoding="utf-8")
    fields = SweepFormFields(range1="0,0.3", flag2="--temp", range2="0.7,1.0", baseline="", prompts=str(tmp_path),
                             seeds=2, first_seed=5, tokens=6, match=False)
    plan = form_plan(fields, 512)
    assert plan == build_plan([("--scatter-strength", "0,0.3"), ("--temp", "0.7,1.0")], preset="creative-writing",
                              baseline="", prompt_paths=[str(tmp_path)], seeds=2, first_seed=5, tokens=6, n_ctx=512,
                              match=False)
    assert len(form_plan(dataclasses.replace(fields, flag2="", range2="junk"), 512).axes) == 1, "no second flag"
    with pytest.raises(ValueError, match="--scatter-strength"):
        form_plan(dataclasses.replace(fields, range1="0:2:0.5"), 512)


def test_a_sweep_files_plan_reads_back_into_the_same_plan(tmp_path):
    (tmp_path / "p.txt").write_text("once upon a time\n", encoding="utf-8")
    typed = SweepFormFields(range1="0:0.2:0.1", flag2="--top-k", range2="20,40", preset="off", baseline="0.8",
                            prompts=str(tmp_path), seeds=4, first_seed=9, tokens=12, match=False)
    header = form_plan(typed, 256).describe()
    state = PlaygroundState()
    state.jobs.set_sweep_form(prompts=str(tmp_path), **form_changes(header))
    assert form_plan(state.jobs.sweep_form, 256).describe() == header
    assert (state.jobs.sweep_form.flag2, state.jobs.sweep_form.seeds, state.jobs.sweep_form.first_seed) == ("--top-k", 4, 9)
    one_flag = dict(header, sweep=header["sweep"][:1], preset="no such preset", seeds=list(range(5000)))
    state.jobs.set_sweep_form(**form_changes(one_flag))
    assert (state.jobs.sweep_form.flag2, state.jobs.sweep_form.range2, state.jobs.sweep_form.preset) == ("", "", "off")
    assert state.jobs.sweep_form.seeds == 1000, "held to the form's limit"
