"""The Chain page's new controls (issue 13) and the text pane's mark where a banned phrase was taken back."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QTextCursor

from app.ui.controls.list_editors import biases_text, parse_biases, parse_phrases, phrases_text
from sampler.phrases import BannedPhrase, check_phrases


@pytest.mark.parametrize("phrases", [
    (("in the end", False),), (("Paris", True), ("a | b", False)), (("=x", False), ("\\ back", True)), (),
    (("testament to", False, 0.05988111477573171), ("/x@y", False), (r"(?i)\bnot\b [^.]{3,60} but", False, 0.0, True),
     (r"a|b\|c", False, 0.5, True), ("=Sun", True, 0.25)),
])
def test_phrases_text_round_trips(phrases):
    checked = check_phrases("--ban-phrase", phrases)
    assert check_phrases("--ban-phrase", parse_phrases(phrases_text(checked))) == checked


def test_phrases_and_biases_as_typed():
    assert parse_phrases(" once upon | =Paris |  | x\\|y ") == (
        ("once upon", False, 0.0, False), ("Paris", True, 0.0, False), ("x|y", False, 0.0, False))
    assert parse_phrases("delve @0.25 | /\\bnot\\b/ | /a\\|b/ @0.5 | mail\\@home") == (
        ("delve", False, 0.25, False), (r"\bnot\b", False, 0.0, True), ("a|b", False, 0.5, True),
        ("mail@home", False, 0.0, False))
    with pytest.raises(ValueError, match="multiplier"):
        check_phrases("--ban-phrase", parse_phrases("delve @lots"))
    assert parse_biases("15043-inf, 7+1.5\t9-2 ") == ("15043-inf", "7+1.5", "9-2")
    assert biases_text(((15043, float("-inf")), (7, 1.5))) == "15043-inf, 7+1.5"


def test_the_chain_page_edits_the_new_settings(qtbot, window):
    controls = window.controls.controls
    for field in ("mirostat", "mirostat_eta", "mirostat_tau", "adaptive_target", "adaptive_decay", "ignore_eos",
                  "logit_bias", "banned_phrases"):
        assert field in controls, field
    controls["mirostat"].box.setValue(2)
    controls["ignore_eos"].box.setChecked(True)
    bias = controls["logit_bias"].line
    bias.setText("5-inf, 9+1.5")
    bias.editingFinished.emit()
    phrases = controls["banned_phrases"].line
    phrases.setText("the river | =Sun")
    phrases.editingFinished.emit()
    s = window.state.lane().settings
    assert (s.mirostat, s.ignore_eos) == (2, True)
    assert s.logit_bias == ((5, float("-inf")), (9, 1.5))
    assert s.banned_phrases == (BannedPhrase("the river"), BannedPhrase("Sun", True))
    bias.setText("5+nan")  # refused: reported, the lane's list shown again
    bias.editingFinished.emit()
    assert window.state.lane().settings.logit_bias == ((5, float("-inf")), (9, 1.5))
    assert "--logit-bias" in window.state.problem and bias.text() == "5-inf, 9+1.5"
    assert "adaptive_p" in [window.controls.order.list.item(i).data(256) for i in
                            range(window.controls.order.list.count())]


def test_a_taken_back_phrase_is_marked_in_the_text(qtbot, window, run_and_wait):
    run_and_wait(window)
    words = "".join(r.text for r in window.state.lane().records).split()
    pane = window.lanes_view.columns[0].text
    for skip in range(1, 6):  # a phrase whose new first token shows some text (a newline has no format of its own)
        phrase = " ".join(words[skip:skip + 2])
        window.playground.lanes.edit("banned_phrases", (phrase,))
        run_and_wait(window)
        records = window.state.lane().records
        banned = [r for r in records if r.banned]
        assert banned and phrase not in "".join(r.text for r in records)
        if banned[0].text.strip():
            break
    step = banned[0].step
    qtbot.waitUntil(lambda: bool(pane.records_by_step.get(step, banned[0]).banned) and step in pane.records_by_step)
    start, end = pane.spans[step]
    text = pane.toPlainText()
    cursor = QTextCursor(pane.document())
    marked = []
    for at in range(start, end):
        if not text[at].isspace():
            cursor.setPosition(at + 1)
            marked.append(cursor.charFormat().fontOverline())
    assert marked and all(marked)
    assert "banned phrase taken back" in pane.alternatives_html(banned[0])
    others = [r for r in records if r.step != step and not r.banned]
    cursor.setPosition(pane.spans[others[0].step][1])
    assert not cursor.charFormat().fontOverline()


def test_the_chain_page_is_made_when_it_opens_and_shows_the_lanes_settings(window):
    """The Chain page's controls are made when it first opens (they are most of a window's controls);
    an edit made before then is what they show, and later edits reach them as they reach the others."""
    panel = window.controls
    assert "top_k" not in panel.controls.made and "scatter.strength" in panel.controls.made
    window.playground.lanes.edit("top_k", 7)
    panel.open_page("Chain")
    top_k = panel.controls.made["top_k"]
    assert top_k.box.value() == 7 and top_k.font().italic()  # changed since the lane's preset: in italics
    window.playground.lanes.edit("top_k", 9)
    assert top_k.box.value() == 9
    assert set(panel.controls.made) == set(panel.controls)  # every control made once, none again
