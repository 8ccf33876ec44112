"""File ▸ Export text: the prompt, then the shown branch of every lane, as plain text or Markdown.

Plain text (``.txt``) underlines each title with ``=``; Markdown (``.md``)
makes each one a ``##`` heading.  The texts themselves are written as they
are.  The prompt at the top is the one the lanes continue; a lane that
continues another one (the prompt was edited since it ran) names its own.
"""
from __future__ import annotations

import os
from pathlib import Path

from app.core.lane_text import LaneText
from app.core.state import PlaygroundState
from app.fileio import atomic_write

KINDS = ("txt", "md")


def kind_for(path: str | os.PathLike) -> str:
    """``"md"`` for a ``.md`` or ``.markdown`` file, else ``"txt"``."""
    return "md" if Path(path).suffix.lower() in (".md", ".markdown") else "txt"


def lane_title(index: int, lane: LaneText) -> str:
    return f"Lane {index + 1} - {lane.preset or 'custom settings'}, seed {lane.settings.seed}"


def _prompt(state: PlaygroundState) -> str:
    """The prompt the lanes continue (the state's when they differ or have no text)."""
    prompts = {lane.prompt for lane in state.lanes if lane.prompt is not None}
    return prompts.pop() if len(prompts) == 1 else state.prompt


def _title(kind: str, title: str) -> str:
    if kind == "md":
        return f"## {' '.join(title.split())}"
    title = " ".join(title.split())
    return f"{title}\n{'=' * len(title)}"


def export_text(state: PlaygroundState, kind: str = "txt") -> str:
    """The text of the prompt and of each lane's shown branch, as ``kind`` (``"txt"`` or ``"md"``)."""
    if kind not in KINDS:
        raise ValueError(f"export: expected one of {', '.join(KINDS)}, got {kind!r}")
    prompt = _prompt(state)
    blocks = [_title(kind, "Prompt"), prompt.rstrip("\n")]
    for index, lane in enumerate(state.lanes):
        blocks.append(_title(kind, lane_title(index, lane)))
        if lane.prompt is not None and lane.prompt != prompt:
            quoted = "\n".join(f"> {line}" for line in lane.prompt.split("\n"))
            blocks.append(quoted if kind == "md" else f"(continues another prompt:)\n{lane.prompt}")
        blocks.append(lane.text.strip("\n") if lane.branch is not None else "(no text yet)")
    return "\n\n".join(blocks) + "\n"


def export_file(state: PlaygroundState, path: str | os.PathLike) -> str:
    """Write :func:`export_text` to ``path`` (kind from its suffix; atomically, UTF-8); the kind."""
    kind = kind_for(path)
    atomic_write(path, export_text(state, kind).encode("utf-8", "replace"))
    return kind
