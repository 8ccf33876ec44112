"""A session as ``session.json`` plus record columns: taken from a state, checked, put back into one.

``session.json``::

    {"format": "scatter-playground-session", "version": 1,
     "prompt": "...", "run_settings": {"max_tokens": 200, "stop_strings": [], "n_ctx": 4096},
     "current_lane": 0, "selected": null,
     "model": {"name": "...", "path": "...", "n_vocab": 262144} or null,
     "lanes": [{"settings": {...}, "preset": "creative-writing", "tree": {...}}],
     "records": {"count": 2000, "final_keep": 64, "settings": [{...}], "stage_sets": [["top_k", ...]]},
     "parts": {}}

``settings`` are the sampler codec's (:func:`sampler.settings_to_dict`), the
seed included; ``tree`` is :mod:`app.core.session.tree_codec`'s, its pieces naming
records by their place in the record columns (:mod:`app.core.session.records_codec`).

Version rules: a file names its format and version; a newer version than
:data:`VERSION` is refused as such (nothing else is read).  A change that an
older reader would misread gets a new version; a new part (:mod:`app.core.session.parts`)
does not, since readers skip parts they do not know.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from app.core.lane_text import LaneText
from app.core.state import PlaygroundState
from app.core.text_tree import TextTree
from app.engine.face.model_info import ModelInfo
from app.engine.face.options import MAX_LANES, RunOptions
from sampler import settings_from_dict, settings_to_dict

from .parts import PARTS, SessionPart
from .records_codec import decode_records, encode_records
from .run_codec import decode_run_settings, encode_run_settings
from .tree_codec import PieceBudget, RecordTable, decode_tree, encode_tree

FORMAT = "scatter-playground-session"
VERSION = 1
#: A longer prompt is refused: the window would take many seconds to show it (a 20 KB file held
#: 20 M characters), and no context the window offers holds more.
MAX_PROMPT_CHARS = 4 * 2**20
#: A lane's preset is a label: at most this long.
MAX_NAME_CHARS = 200
KEYS = {"format", "version", "prompt", "run_settings", "current_lane", "selected", "model", "lanes", "records", "parts"}


class NewerVersion(ValueError):
    """Written by a newer Scatter Playground."""


@dataclass
class Session:
    """What a session file holds: read and checked, ready to go into a state, or taken from one to be saved."""

    prompt: str
    lanes: list[LaneText]
    run_settings: RunOptions
    current_lane: int = 0
    selected: int | None = None
    model: dict | None = None  # the model it was made with (name, path, vocabulary size)
    #: by name: what each part's from_json made (read), or its JSON (a snapshot to save)
    parts: dict[str, object] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # parts in the file this version does not know


def _model_json(info: ModelInfo | None):
    return None if info is None else {"name": info.name, "path": info.path, "n_vocab": info.n_vocab}


def snapshot(state: PlaygroundState, parts: list[SessionPart] = PARTS) -> Session:
    """The state as it is now, copied (cheap: step records are immutable and shared), with each
    part's JSON; :func:`encode` may then run on another thread."""
    lanes = []
    for lane in state.lanes:
        tree = TextTree()
        tree.restore(lane.tree.snapshot())
        lanes.append(LaneText(lane.settings, lane.preset, tree, name=lane.name))
    saved_parts = {}
    for part in parts:
        value = part.to_json(state)
        if value is not None:
            saved_parts[part.name] = value
    return Session(state.prompt, lanes, state.run_settings, state.current_lane, state.selected,
                   _model_json(state.model), saved_parts)


def encode(session: Session) -> tuple[dict, dict[str, np.ndarray]]:
    """``(session.json's object, record columns)`` of a :func:`snapshot`."""
    table = RecordTable()
    lanes = [_lane_json(lane, table) for lane in session.lanes]
    meta, arrays = encode_records(table.records)
    doc = {
        "format": FORMAT, "version": VERSION, "prompt": session.prompt,
        "run_settings": encode_run_settings(session.run_settings),
        "current_lane": session.current_lane, "selected": session.selected, "model": session.model,
        "lanes": lanes, "records": meta, "parts": session.parts,
    }
    return doc, arrays


def _lane_json(lane: LaneText, table: RecordTable) -> dict:
    """A lane's object; its ``name`` only when it has one (a served request's lane), so every other lane is
    written as before."""
    out = {"settings": settings_to_dict(lane.settings), "preset": lane.preset, "tree": encode_tree(lane.tree, table)}
    if lane.name:
        out["name"] = lane.name
    return out


def capture(state: PlaygroundState, parts: list[SessionPart] = PARTS) -> tuple[dict, dict[str, np.ndarray]]:
    """``(session.json's object, record columns)`` for the state as it is."""
    return encode(snapshot(state, parts))


def check_header(doc) -> None:
    """ValueError unless ``doc`` is a session this version reads (NewerVersion for a newer one)."""
    if not isinstance(doc, dict):
        raise ValueError(f"not a session file (session.json holds {type(doc).__name__}, not an object)")
    if doc.get("format") != FORMAT:
        raise ValueError(f"not a session file (format {doc.get('format')!r:.60}, expected {FORMAT!r})")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(f"bad format version {version!r:.60}")
    if version > VERSION:
        raise NewerVersion(f"written by a newer Scatter Playground (format version {version}, this one reads "
                           f"{VERSION})")


def _lane(i: int, value, records, budget: PieceBudget) -> LaneText:
    where = f"lanes[{i}]"
    if not isinstance(value, dict) or not {"settings", "preset", "tree"} <= set(value) <= {"settings", "preset", "tree",
                                                                                           "name"}:
        raise ValueError(f"{where}: expected an object with settings, preset and tree (and a name)")
    name = value.get("name", "")
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
        raise ValueError(f"{where}.name: expected a name of at most {MAX_NAME_CHARS} characters, got {name!r:.60}")
    preset = value["preset"]
    if preset is not None and not isinstance(preset, str):
        raise ValueError(f"{where}.preset: expected a name or null, got {preset!r:.60}")
    settings = settings_from_dict(value["settings"], f"{where}.settings")
    if preset is not None and len(preset) > MAX_NAME_CHARS:
        raise ValueError(f"{where}.preset: a name of {len(preset)} characters (at most {MAX_NAME_CHARS})")
    return LaneText(settings, preset, decode_tree(f"{where}.tree", value["tree"], records, budget), name=name)


def _check_tokens(model, lanes: list[LaneText], records) -> None:
    """Every token id below the vocabulary size the file names (the engine checks them again against the
    model that runs them: llama.cpp aborts the process on an id past its vocabulary)."""
    n_vocab = model.get("n_vocab") if isinstance(model, dict) else None
    if isinstance(n_vocab, bool) or not isinstance(n_vocab, int) or n_vocab < 1:
        return
    past = [r for r in records if r.token >= n_vocab]
    if past:
        raise ValueError(f"records: lane {past[0].lane + 1}, step {past[0].step}: token {past[0].token} is past "
                         f"the model's vocabulary of {n_vocab}")
    for i, lane in enumerate(lanes):
        branches, _, _ = lane.tree.snapshot()
        for b in branches.values():
            ids = list(b.prompt_tokens) + list(b.result.tokens if b.result else ())
            bad = [t for t in ids if t >= n_vocab]
            if bad:
                raise ValueError(f"lanes[{i}]: token {bad[0]} is past the model's vocabulary of {n_vocab}")


def decode(doc, arrays: dict[str, np.ndarray], parts: list[SessionPart] = PARTS) -> Session:
    """The session ``doc`` and ``arrays`` describe; ValueError names the first problem."""
    check_header(doc)
    unknown = sorted(set(doc) - KEYS)
    missing = sorted(KEYS - set(doc))
    if unknown or missing:
        raise ValueError(f"session.json: {'unknown' if unknown else 'missing'} key(s) "
                         f"{', '.join(map(repr, unknown or missing))}")
    if not isinstance(doc["prompt"], str):
        raise ValueError(f"prompt: expected text, got {doc['prompt']!r:.60}")
    if len(doc["prompt"]) > MAX_PROMPT_CHARS:
        raise ValueError(f"prompt: {len(doc['prompt'])} characters, more than a session holds ({MAX_PROMPT_CHARS})")
    records = decode_records(doc["records"], arrays)
    if not isinstance(doc["lanes"], list) or not 1 <= len(doc["lanes"]) <= MAX_LANES:
        raise ValueError(f"lanes: expected a list of 1 to {MAX_LANES} lanes")
    budget = PieceBudget(len(records), len(doc["lanes"]))
    lanes = [_lane(i, value, records, budget) for i, value in enumerate(doc["lanes"])]
    _check_tokens(doc["model"], lanes, records)
    current, selected = doc["current_lane"], doc["selected"]
    if isinstance(current, bool) or not isinstance(current, int) or not 0 <= current < len(lanes):
        raise ValueError(f"current_lane: expected a lane's number, got {current!r:.60}")
    if selected is not None and (isinstance(selected, bool) or not isinstance(selected, int) or selected < 0):
        raise ValueError(f"selected: expected a step or null, got {selected!r:.60}")
    model = doc["model"]
    if model is not None and not isinstance(model, dict):
        raise ValueError(f"model: expected an object or null, got {model!r:.60}")
    if not isinstance(doc["parts"], dict):
        raise ValueError("parts: expected an object")
    known = {part.name: part for part in parts}
    loaded = {}
    for name, value in doc["parts"].items():
        if name in known:
            try:
                loaded[name] = known[name].from_json(value)
            except (TypeError, KeyError, ValueError) as exc:
                raise ValueError(f"parts.{name}: {exc}") from None
    skipped = sorted(name for name in doc["parts"] if name not in known)
    run_settings = decode_run_settings(doc["run_settings"], doc["version"])
    return Session(doc["prompt"], lanes, run_settings, current, selected, model, loaded, skipped)


def apply(session: Session, state: PlaygroundState, parts: list[SessionPart] = PARTS) -> None:
    """Put ``session`` into ``state`` (ValueError, and no change, while the engine is busy)."""
    state.replace_all(session.prompt, session.lanes, session.run_settings, session.current_lane, session.selected)
    for part in parts:
        part.apply(state, session.parts.get(part.name))
