"""A panel's title row: it reads the titles' little HTML as Qt's rich text does, and a run looks the
same drawn straight (its first frame) as from its kept image (when it comes back)."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QImage, QTextDocument

from app.ui.plots.common import legend_html, title_row
from app.ui.plots.panel_title import PanelTitle, parse_runs

TITLES = [
    "<b>Entropy</b> &nbsp;" + legend_html([((0, 114, 178), "H 0.303")], "\u2501") + " &nbsp;step 3",
    title_row("<b>Stage funnel</b>", [((90, 90, 90), "in"), ((0, 114, 178), "kept")], "step 7 <b>&lt;eos&gt;</b>"),
    "<b>Pre vs post scatter</b> &nbsp;m = 12 \u00b7 3.4% outside &amp; more",
    "plain   text\twith\nloose  white space",
]


@pytest.mark.parametrize("text", TITLES)
def test_the_runs_read_as_rich_text_reads_them(text):
    doc = QTextDocument()
    doc.setHtml(text)
    runs = parse_runs(text)
    assert runs is not None
    assert "".join(run[0] for run in runs) == doc.toRawText()  # (toPlainText makes &nbsp; a space)


def test_bold_and_colour_belong_to_their_runs():
    runs = parse_runs("<b>A</b> <span style='color:#0072b2'>b<b>c</b></span>&nbsp;d")
    assert runs == [("A", True, None), (" ", False, None), ("b", False, "#0072b2"), ("c", True, "#0072b2"),
                    ("\xa0d", False, None)]


@pytest.mark.parametrize("text", ["a<br>b", "<span>x</span>", "<i>x</i>", "<span style='font-size:9pt'>x</span>"])
def test_other_markup_goes_to_a_text_document(text):
    assert parse_runs(text) is None


def _shown(qtbot, text: str) -> PanelTitle:
    title = PanelTitle(text)
    qtbot.addWidget(title)
    title.resize(420, title.sizeHint().height())
    title.show()
    qtbot.waitExposed(title)
    return title


def _pixels(title: PanelTitle) -> QImage:
    return title.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


def test_a_run_drawn_straight_looks_as_its_kept_image(qtbot):
    text = TITLES[0]
    title = _shown(qtbot, text)
    first = _pixels(title)  # every run new: drawn straight
    assert not title._images
    second = _pixels(title)  # every run seen: its image made and drawn
    assert len(title._images) == len(parse_runs(text))
    third = _pixels(title)  # from the kept images
    assert first == second == third
    blank = _pixels(_shown(qtbot, ""))
    assert first != blank.copy(0, 0, first.width(), first.height())  # (something was drawn)


def test_a_value_that_never_comes_back_keeps_no_image(qtbot):
    title = _shown(qtbot, "step 0")
    for step in range(1, 30):
        title.setText(f"step {step}")
        title.repaint()
    assert not title._images
