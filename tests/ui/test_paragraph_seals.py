"""A long paragraph is sealed a line at a time (app/ui/paragraph_seals.py): the pane looks exactly as
without the seals, its text, spans and copies are the lane's, and a new width wraps the text anew."""
from __future__ import annotations

import dataclasses

import pytest

from app.ui.text_pane import TokenTextPane

PROMPT = "Once upon a time"


@pytest.fixture
def records(window, run_and_wait):
    """A fake-backend run's records, their texts made one long paragraph with one line break in it."""
    window.state.set_run_settings(max_tokens=120)
    run_and_wait(window)
    recs = window.state.lane().records
    assert len(recs) == 120
    words = "the keeper climbed the narrow stairs of the old lighthouse and found a letter".split()
    return [dataclasses.replace(rec, text=("\n" if rec.step == 70 else " ") + words[rec.step % len(words)])
            for rec in recs]


def _pane(qtbot, width: int = 260, sealed: bool = True) -> TokenTextPane:
    pane = TokenTextPane(lambda token: "")
    qtbot.addWidget(pane)
    pane.resize(width, 160)  # the text outgrows it: a scroll bar comes (the text narrows) and it scrolls
    pane.show()
    pane.show_prompt(PROMPT)
    if not sealed:
        pane.seals.seal_tail = lambda: None  # Qt's own layout of the paragraph, for comparison
    return pane


def _looks(qtbot, pane: TokenTextPane) -> list:
    """The viewport's pixels at the top of the text and at its end."""
    bar = pane.verticalScrollBar()
    images = []
    for value in (0, bar.maximum()):
        bar.setValue(value)
        qtbot.wait(1)
        images.append(pane.viewport().grab().toImage())
    return images


def _text_between(pane: TokenTextPane, start: int, end: int) -> str:
    """The document's characters from ``start`` to ``end``, its seals' breaks left out."""
    text, seals = pane.document().toPlainText(), set(pane.seals.positions)
    return "".join(text[i] for i in range(start, end) if i not in seals)


def _sealed_blocks(pane: TokenTextPane) -> int:
    """The pane's blocks beyond its text's own paragraphs."""
    return pane.document().blockCount() - 1 - pane.toPlainText().count("\n")


def test_a_long_paragraph_is_laid_out_a_line_at_a_time_and_looks_as_without_seals(qtbot, records):
    sealed, plain = _pane(qtbot), _pane(qtbot, sealed=False)
    for rec in records:
        sealed._append([rec])
    plain._append(records)
    text = PROMPT + "".join(rec.text for rec in records)
    assert sealed.toPlainText() == plain.toPlainText() == plain.document().toPlainText() == text
    assert _sealed_blocks(sealed) >= 5 and _sealed_blocks(plain) == 0
    assert sealed.verticalScrollBar().maximum() > 0  # the scroll bar came (and narrowed the text) on the way
    assert sealed.document().lastBlock().layout().lineCount() == 1  # an append lays out one line
    assert sealed.document().size() == plain.document().size()
    assert _looks(qtbot, sealed) == _looks(qtbot, plain)


def test_every_token_span_still_holds_its_token_and_is_highlighted_whole(qtbot, records):
    pane = _pane(qtbot)
    for rec in records:
        pane._append([rec])
    assert _sealed_blocks(pane) >= 5
    for rec in records:
        start, end = pane.spans[rec.step]
        assert _text_between(pane, start, end) == rec.text, rec.step
    pane.show_selected(records[-1].step)
    selections = pane.extraSelections()
    selected = selections[0].cursor
    assert _text_between(pane, selected.selectionStart(), selected.selectionEnd()) == records[-1].text


def test_a_new_width_wraps_the_text_anew_and_later_appends_seal_again(qtbot, records):
    sealed, plain = _pane(qtbot), _pane(qtbot, sealed=False)
    for rec in records[:100]:
        sealed._append([rec])
    plain._append(records[:100])
    assert _sealed_blocks(sealed) >= 5
    for pane in (sealed, plain):
        pane.resize(200, 160)
    qtbot.waitUntil(lambda: sealed.document().textWidth() == plain.document().textWidth())
    assert _sealed_blocks(sealed) == 0 and sealed.seals.positions == []
    assert _looks(qtbot, sealed) == _looks(qtbot, plain)
    for rec in records[:100]:
        start, end = sealed.spans[rec.step]
        assert sealed.document().toPlainText()[start:end] == rec.text
    for rec in records[100:]:
        sealed._append([rec])
    plain._append(records[100:])
    assert _sealed_blocks(sealed) >= 1
    assert sealed.toPlainText() == plain.toPlainText()
    assert _looks(qtbot, sealed) == _looks(qtbot, plain)


def test_a_copy_is_the_copy_of_the_text_without_seals(qtbot, records):
    sealed, plain = _pane(qtbot), _pane(qtbot, sealed=False)
    for rec in records:
        sealed._append([rec])
    plain._append(records)
    assert _sealed_blocks(sealed) >= 5
    sealed.selectAll()
    copied = sealed.createMimeDataFromSelection()
    assert copied.text() == PROMPT + "".join(rec.text for rec in records)
    assert copied.text().count("\n") == 1  # the text's own line break
    plain.selectAll()
    assert copied.html() == plain.createMimeDataFromSelection().html()  # the tints and links as they were
    for first, last in ((3, 9), (40, 90), (80, 115)):  # inside one token to inside another, across seals
        for pane in (sealed, plain):
            cursor = pane.textCursor()
            cursor.setPosition(pane.spans[records[first].step][0] + 1)
            cursor.setPosition(pane.spans[records[last].step][1] - 1, cursor.MoveMode.KeepAnchor)
            pane.setTextCursor(cursor)
        mine, theirs = sealed.createMimeDataFromSelection(), plain.createMimeDataFromSelection()
        assert (mine.text(), mine.html()) == (theirs.text(), theirs.html())
