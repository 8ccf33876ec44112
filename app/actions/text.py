"""The writer's hand on a lane's text: edits, switching between branches, undo and redo."""
from __future__ import annotations

from app.core.history import History
from app.core.state import PlaygroundState
from app.core.text_tree import Written
from app.engine.face.records import StepRecord


def kept_pieces(pieces, new_text: str) -> tuple[int, int]:
    """How many leading pieces ``new_text`` still begins with whole, and their length in characters."""
    kept = chars = 0
    for piece in pieces:
        end = chars + len(piece.text)
        if new_text[chars:end] != piece.text:
            break
        kept, chars = kept + 1, end
    return kept, chars


class TextActions:
    def __init__(self, state: PlaygroundState, history: History):
        self.state = state
        self.history = history

    def edit(self, index: int, new_text: str) -> bool:
        """Lane ``index``'s text (after the prompt) becomes ``new_text``.

        The pieces it still starts with stay (with their records); the rest is
        the writer's, on a new branch, so the old text stays one switch away.
        False when nothing changed.
        """
        lane = self.state.lanes[index]
        if self.state.busy or lane.branch is None or new_text == lane.text:
            return False
        pieces = lane.tree.pieces()
        kept, chars = kept_pieces(pieces, new_text)
        if kept == len(pieces) and not lane.branch.pieces and chars == len(new_text):
            return False
        self.history.checkpoint()
        self.state.text.fork_with(index, kept, [Written(new_text[chars:])] if new_text[chars:] else [])
        return True

    def switch(self, index: int, offset: int) -> bool:
        """Show the previous (-1) or next (+1) branch at the selected step (or the text's end)."""
        lane = self.state.lanes[index]
        if self.state.busy:
            return False
        at = None
        if self.state.selected is not None:
            pieces = lane.tree.pieces()
            at = next((i for i, p in enumerate(pieces) if isinstance(p, StepRecord) and p.step == self.state.selected),
                      None)
        after = lane.tree.switch_target(offset, at)
        if after is None:
            return False
        self.history.checkpoint()
        self.state.text.show_branch(index, after)
        return True

    def undo(self) -> bool:
        return self.history.undo()

    def redo(self) -> bool:
        return self.history.redo()
