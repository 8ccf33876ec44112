"""View > Panels: one check per panel of the list (:data:`app.ui.panels.PANELS`) that shows or hides it.

A hidden panel is folded in its splitter (its size 0, as a drag to the edge
leaves it), so what the writer hid is kept with the splitters' sizes in
``view.json``, and View > Reset panel sizes shows every panel again.  A panel
shown again gets its share of its splitter back from the parts beside it.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction


class PanelToggles:
    """``on_resized(splitter name)``: after a toggle changed that splitter's sizes."""

    def __init__(self, window, menu, on_resized: Callable[[str], None] = lambda _name: None):
        self.window, self.on_resized = window, on_resized
        self.actions: dict[str, QAction] = {}
        for spec in window.panel_specs:
            action = menu.addAction(spec.title)
            action.setObjectName(f"panel_{spec.key}")
            action.setCheckable(True)
            action.toggled.connect(lambda on, key=spec.key: self.set_shown(key, on))
            self.actions[spec.key] = action
        menu.aboutToShow.connect(self.sync)  # drags, Reset panel sizes and the reading layout change them too
        self.sync()

    def _place(self, key: str):
        """(the splitter the panel sits in, its index there)."""
        spec = next(s for s in self.window.panel_specs if s.key == key)
        split = self.window.splitters[spec.area.value]
        return split, split.indexOf(self.window.panels[key])

    def shown(self, key: str) -> bool:
        split, index = self._place(key)
        return split.sizes()[index] > 0

    def sync(self) -> None:
        """Each check as its panel is now (the check's own signal not sent)."""
        for key, action in self.actions.items():
            action.blockSignals(True)
            action.setChecked(self.shown(key))
            action.blockSignals(False)

    def set_shown(self, key: str, on: bool) -> None:
        if on == self.shown(key):
            return
        split, index = self._place(key)
        sizes = split.sizes()
        total = sum(sizes)
        if on:  # its default share of the splitter, taken from the others in proportion to theirs
            default = split.default_sizes
            want = max(1, total * default[index] // (sum(default) or 1))
            others = total - sizes[index]
            sizes = [s * (total - want) // others if others else 0 for s in sizes]
            sizes[index] = want
        else:  # its height to the others, in proportion to theirs
            freed, sizes[index] = sizes[index], 0
            others = total - freed
            sizes = [s + freed * s // others if others else 0 for s in sizes]
        split.setSizes(sizes)
        self.on_resized(split.objectName().removeprefix("split_"))
        self.window.redraws.schedule(live=bool(self.window.state.busy))  # a panel shown again is drawn
        self.sync()
