"""Light and dark themes: the window's Qt palette and the plots' colours, colour-blind safe.

Every data colour comes from the Okabe-Ito palette (Okabe & Ito, "Color
Universal Design", 2008), whose eight colours stay distinct for the common
colour-vision deficiencies.  The two themes use the same hues (blue and sky
blue swap, so "before" stays readable on black); text tints are blended with
the page's background and given black or white text by their luminance.

``current()`` is the theme in use; the view controller sets it with
:func:`use` and tells every panel to restyle (``apply_theme``).
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette

# Okabe-Ito
BLACK, ORANGE, SKY_BLUE, BLUISH_GREEN = (0, 0, 0), (230, 159, 0), (86, 180, 233), (0, 158, 115)
YELLOW, BLUE, VERMILLION, REDDISH_PURPLE = (240, 228, 66), (0, 114, 178), (213, 94, 0), (204, 121, 167)

RGB = tuple  # (r, g, b)


@dataclass(frozen=True)
class Theme:
    name: str
    dark: bool
    background: RGB  # plots and text panes
    foreground: RGB  # axes, plot text
    muted: RGB  # grey things: closed gates, undamped bars, the prompt
    pre: RGB  # probabilities before scatter
    post: RGB  # after scatter
    chosen: RGB  # the chosen token
    damped: RGB  # tokens absorption damped
    fired: RGB  # an open collision gate
    entropy: RGB
    strength: RGB
    rank: RGB
    prob: RGB
    target: RGB  # the entropy target's line
    cursor: RGB  # the selected step in every plot
    selection: RGB  # the selected token's highlight in the text
    selection_text: RGB
    written: RGB  # the writer's own text
    # Tints of chosen tokens by raw rank (1, 3, 10 and beyond): yellow, orange, vermillion.
    tints: tuple[tuple[int, RGB], ...] = ((1, YELLOW), (3, ORANGE), (10, VERMILLION))

    def q(self, name: str, alpha: int = 255) -> QColor:
        c = QColor(*getattr(self, name))
        c.setAlpha(alpha)
        return c

    def blend(self, rgb: RGB, alpha: float) -> QColor:
        """``rgb`` at opacity ``alpha`` over the background, as an opaque colour."""
        a = min(max(alpha, 0.0), 1.0)
        return QColor(*(round(a * c + (1 - a) * b) for c, b in zip(rgb, self.background)))


def text_on(colour: QColor) -> QColor:
    """Black or white, whichever reads better on ``colour`` (WCAG relative luminance)."""
    def lin(v: float) -> float:
        v /= 255.0
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    lum = 0.2126 * lin(colour.red()) + 0.7152 * lin(colour.green()) + 0.0722 * lin(colour.blue())
    return QColor(0, 0, 0) if lum > 0.179 else QColor(255, 255, 255)


LIGHT = Theme(
    name="light", dark=False, background=(255, 255, 255), foreground=(40, 40, 40), muted=(150, 150, 150),
    pre=BLUE, post=ORANGE, chosen=VERMILLION, damped=REDDISH_PURPLE, fired=BLUISH_GREEN, entropy=BLUE,
    strength=ORANGE, rank=REDDISH_PURPLE, prob=BLUISH_GREEN, target=(40, 40, 40), cursor=(0, 0, 0),
    selection=BLUE, selection_text=(255, 255, 255), written=BLUE,
)
DARK = Theme(
    name="dark", dark=True, background=(30, 30, 32), foreground=(220, 220, 220), muted=(120, 120, 124),
    pre=SKY_BLUE, post=ORANGE, chosen=VERMILLION, damped=REDDISH_PURPLE, fired=BLUISH_GREEN, entropy=SKY_BLUE,
    strength=ORANGE, rank=REDDISH_PURPLE, prob=BLUISH_GREEN, target=(220, 220, 220), cursor=(255, 255, 255),
    selection=SKY_BLUE, selection_text=(0, 0, 0), written=SKY_BLUE,
)
THEMES = {"light": LIGHT, "dark": DARK}

_current = LIGHT


def current() -> Theme:
    return _current


def use(theme: Theme) -> None:
    global _current
    _current = theme


def palette(theme: Theme, base: QPalette) -> QPalette:
    """The application's palette for ``theme`` (``base``: the style's own light palette)."""
    if not theme.dark:
        return QPalette(base)
    pal = QPalette(base)
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    window, panel, text = QColor(45, 45, 48), QColor(*theme.background), QColor(*theme.foreground)
    for r, c in ((role.Window, window), (role.WindowText, text), (role.Base, panel), (role.AlternateBase, window),
                 (role.ToolTipBase, QColor(60, 60, 64)), (role.ToolTipText, text), (role.Text, text),
                 (role.Button, window), (role.ButtonText, text), (role.BrightText, QColor(255, 120, 120)),
                 (role.Link, QColor(*SKY_BLUE)), (role.Highlight, QColor(*BLUE)),
                 (role.HighlightedText, QColor(255, 255, 255)), (role.PlaceholderText, QColor(140, 140, 140)),
                 (role.Light, QColor(80, 80, 84)), (role.Midlight, QColor(62, 62, 66)), (role.Mid, QColor(40, 40, 42)),
                 (role.Dark, QColor(20, 20, 22)), (role.Shadow, QColor(0, 0, 0))):
        pal.setColor(r, c)
    for r in (role.WindowText, role.Text, role.ButtonText):
        pal.setColor(group.Disabled, r, QColor(120, 120, 120))
    return pal


def indicator_palette(theme: Theme, base: QPalette) -> QPalette:
    """The palette of a radio button or check box: Fusion draws their ring in the window colour
    darkened, which on the dark theme's grey is the page's own lightness (invisible), so there the
    "window" of these widgets is light (their own background is not painted)."""
    pal = QPalette(base)
    if theme.dark:
        pal.setColor(QPalette.ColorRole.Window, QColor(200, 200, 206))
    return pal


def style_plot(plot, theme: Theme) -> None:
    """Background, axes and tick text of a PlotWidget or PlotItem in ``theme``'s colours."""
    widget = plot if hasattr(plot, "setBackground") else None
    if widget is not None:
        widget.setBackground(QColor(*theme.background))
    item = plot.getPlotItem() if hasattr(plot, "getPlotItem") else plot
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        axis.setPen(QColor(*theme.foreground))
        axis.setTextPen(QColor(*theme.foreground))
