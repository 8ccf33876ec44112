"""The Chain page's Grammar box (fake backend; llama.cpp's grammar parser is the real one, in the engine's
CheckGrammar task): a grammar llama.cpp takes is applied, a bad one is llama.cpp's one line and nothing is
applied, an empty box clears it, a file fills the box, and presets keep it."""
from __future__ import annotations

import json

GOOD = 'root ::= "yes" | "no"'


def box_of(window):
    panel = window.controls
    panel.open_page("Chain")
    return panel.grammar


def test_a_good_grammar_is_applied_and_a_bad_one_is_one_line(qtbot, window):
    box = box_of(window)
    box.text.setPlainText(GOOD)
    box.apply_button.click()
    qtbot.waitUntil(lambda: window.state.lane().settings.grammar == GOOD, timeout=10_000)
    assert "GBNF grammar" in box.status.text()
    box.text.setPlainText('root ::= "a" x')
    box.apply_button.click()
    qtbot.waitUntil(lambda: bool(window.state.problem), timeout=10_000)
    assert window.state.problem == "--grammar: llama.cpp cannot parse the grammar: Undefined rule identifier 'x'"
    assert window.state.lane().settings.grammar == GOOD  # nothing applied


def test_a_schema_replaces_the_grammar_and_an_empty_box_clears_it(qtbot, window):
    box = box_of(window)
    box.kind.setCurrentIndex(1)
    schema = json.dumps({"enum": ["red", "blue"]})
    box.text.setPlainText(schema)
    box.apply_button.click()
    qtbot.waitUntil(lambda: window.state.lane().settings.json_schema == schema, timeout=10_000)
    box.text.setPlainText('{"type": "frob"}')
    box.apply_button.click()
    qtbot.waitUntil(lambda: bool(window.state.problem), timeout=10_000)
    assert window.state.problem.startswith("--json-schema: JSON schema conversion failed: ")
    box.text.setPlainText("")
    box.apply_button.click()
    assert (window.state.lane().settings.grammar, window.state.lane().settings.json_schema) == ("", "")
    assert box.status.text() == "No grammar in use."


def test_a_file_fills_the_box_and_its_ending_picks_the_kind(window, tmp_path):
    box = box_of(window)
    path = tmp_path / "colour.json"
    path.write_text('{"enum": ["red"]}', encoding="utf-8")
    box.read_file(str(path))
    assert box.field == "json_schema" and box.text.toPlainText() == '{"enum": ["red"]}'
    box.read_file(str(tmp_path / "missing.gbnf"))
    assert window.state.problem.startswith("grammar file ") and "\n" not in window.state.problem
