"""File ▸ Export text: the prompt, then the shown branch of each lane under a title, as .txt and .md."""
from __future__ import annotations

import pytest

from app.core.session import export_file, export_text
from session_helpers import new_playground, run


@pytest.fixture
def pg(tmp_path):
    playground = new_playground(tmp_path)
    yield playground
    assert playground.engine.shutdown(10)


def test_two_lanes_as_plain_text_and_markdown(pg, tmp_path):
    pg.lanes.add()
    run(pg)
    # each text without the newlines it may begin or end with: the blocks are one blank line apart
    a, b = (lane.text.strip("\n") for lane in pg.state.lanes)
    assert a and b and a != b
    title_a, title_b = (f"Lane {i + 1} - Creative writing, seed {lane.settings.seed}"
                        for i, lane in enumerate(pg.state.lanes))
    txt = tmp_path / "story.txt"
    assert export_file(pg.state, txt) == "txt"
    assert txt.read_text(encoding="utf-8") == (
        "Prompt\n======\n\nonce upon a time\n\n"
        f"{title_a}\n{'=' * len(title_a)}\n\n{a}\n\n"
        f"{title_b}\n{'=' * len(title_b)}\n\n{b}\n"
    )
    md = tmp_path / "story.md"
    assert export_file(pg.state, md) == "md"
    assert md.read_text(encoding="utf-8") == (
        f"## Prompt\n\nonce upon a time\n\n## {title_a}\n\n{a}\n\n## {title_b}\n\n{b}\n"
    )


def test_the_shown_branch_is_exported(pg):
    run(pg)
    first = pg.state.lane().text
    pg.lanes.new_seeds()
    run(pg)  # another root: the first text stays a branch away
    second = pg.state.lane().text
    assert first != second
    assert second in export_text(pg.state) and first not in export_text(pg.state)
    pg.text.switch(0, -1)
    assert first in export_text(pg.state, "md") and second not in export_text(pg.state, "md")


def test_a_lane_without_text_and_a_lane_on_an_older_prompt_say_so(pg):
    run(pg)
    pg.lanes.add()
    pg.state.set_prompt("a new prompt")
    text = export_text(pg.state, "md")
    assert text.startswith("## Prompt\n\nonce upon a time\n\n"), "the prompt the lanes continue"
    assert text.rstrip().endswith("(no text yet)")
    pg.state.lanes[1], pg.state.lanes[0] = pg.state.lanes[0], pg.state.lanes[1]
    run(pg, pg.runs.generate)  # both lanes now continue the new prompt
    assert export_text(pg.state, "txt").startswith("Prompt\n======\n\na new prompt\n\n")


def test_an_unknown_kind_is_refused(pg):
    with pytest.raises(ValueError, match="txt, md"):
        export_text(pg.state, "html")
