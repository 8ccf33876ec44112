"""Fork radar in the window (fake backend): a dotted underline on each fork's token, a tick on the strips,
the threshold from the View menu's rule, 0 turning it off."""
from __future__ import annotations

from PySide6.QtGui import QTextCharFormat, QTextCursor

from app.core.forks import fork_steps

DOT = QTextCharFormat.UnderlineStyle.DotLine


def dotted_steps(pane) -> list[int]:
    """The steps whose token the pane draws with a dotted underline."""
    out = []
    for step, (start, _end) in sorted(pane.spans.items()):
        cursor = QTextCursor(pane.document())
        cursor.setPosition(start + 1)
        if cursor.charFormat().underlineStyle() == DOT:
            out.append(step)
    return out


def shown_forks(window, qtbot) -> tuple[list[int], list[int], list[int]]:
    qtbot.wait(50)
    window.redraws.redraw(full=True)
    pane = window.lanes_view.columns[0].text
    records = [r for r in window.state.lane().records if r.text and r.step in pane.spans]
    ticks = [int(x) for x in window.strips.fork_ticks.getData()[0]]
    return dotted_steps(pane), [s for s in fork_steps(records, window.state.radar.forks)], ticks


def test_forks_are_marked_in_the_text_and_on_the_strips_and_the_threshold_rules(window, qtbot, run_and_wait):
    window.state.set_run_settings(max_tokens=48)
    window.state.radar.set_fork_rule(bits=0.5)
    run_and_wait(window)
    dotted, forks, ticks = shown_forks(window, qtbot)
    assert forks, "the fake model's run should have a fork at 0.5 bits"
    assert dotted == forks
    assert ticks == fork_steps(window.state.lane().records, window.state.radar.forks)
    window.state.radar.set_fork_rule(bits=0)
    dotted, forks, ticks = shown_forks(window, qtbot)
    assert dotted == [] and forks == [] and ticks == []
