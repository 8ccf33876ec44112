"""The window's panels, one row each: the window builds, lays out, themes, feeds and lists them from here.

A new panel is its module (a QWidget that is a :class:`app.ui.panel.StepPanel`
or a :class:`app.ui.panel.RunPanel`) and one row below.  The rows of one area
stand in it top to bottom in the order listed.
"""
from __future__ import annotations

from .panel import Area, Feed, PanelSpec
from .plots.absorption import AbsorptionPanel
from .plots.bans import BansPanel
from .plots.collision import CollisionPanel
from .plots.entropy import EntropyPanel
from .plots.funnel import FunnelPanel
from .plots.grammar import GrammarPanel
from .plots.metric_strips import MetricStrips
from .plots.pre_post import PrePostPanel

#: The least height of the entropy and absorption panels and of the metric strips: what their own hints
#: ask for added up to a window too tall for a 1280 x 720 screen (691 px with 4 lanes; now 627).  Only a
#: floor: they open larger.  Pre vs post and the collision gate keep theirs (they need it at 720 px).
PANEL_MIN_PX, STRIPS_MIN_PX = 56, 80
#: The Grammar panel (under Bans) may shrink to its header: the left column still fits 1280 x 720 with it.
GRAMMAR_MIN_PX = 20


def _pre_post(window) -> PrePostPanel:
    panel = PrePostPanel(window.state.token_text)
    panel.tokenChosen.connect(window.branch_with)  # a double-clicked bar: a new branch with that token
    return panel


def _strips(window) -> MetricStrips:
    strips = MetricStrips()
    strips.stepClicked.connect(window.state.select)
    return strips


def _bans(window) -> BansPanel:
    bans = BansPanel()
    bans.stepClicked.connect(window.state.select)
    return bans


def _grammar(window) -> GrammarPanel:
    panel = GrammarPanel()
    panel.stepClicked.connect(window.state.select)
    return panel


PANELS: tuple[PanelSpec, ...] = (
    PanelSpec("funnel", "Stage funnel", lambda w: FunnelPanel(w.state.token_text), Feed.STEP, Area.LEFT, 2),
    PanelSpec("bans", "Bans", _bans, Feed.RUN, Area.LEFT, 1),
    PanelSpec("grammar", "Grammar", _grammar, Feed.RUN, Area.LEFT, 1, GRAMMAR_MIN_PX),
    PanelSpec("pre_post", "Pre vs post scatter", _pre_post, Feed.STEP, Area.MIDDLE_LEFT, 3),
    PanelSpec("collision", "Collision gate", lambda w: CollisionPanel(), Feed.RUN, Area.MIDDLE_LEFT, 2),
    PanelSpec("entropy", "Entropy", lambda w: EntropyPanel(), Feed.RUN, Area.MIDDLE_RIGHT, 1, PANEL_MIN_PX),
    PanelSpec("absorption", "Absorption", lambda w: AbsorptionPanel(w.state.token_text), Feed.STEP,
              Area.MIDDLE_RIGHT, 1, PANEL_MIN_PX),
    PanelSpec("strips", "Metric strips", _strips, Feed.RUN, Area.BOTTOM, 28, STRIPS_MIN_PX),
)
