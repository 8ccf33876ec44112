"""A change's kind is a Changed member: a misspelt kind fails at once, wherever it is written."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from app.core.changes import Change, Changed
from app.core.state import PlaygroundState

ROOT = Path(__file__).resolve().parents[2]


def test_emitting_a_string_or_a_misspelt_kind_fails():
    state = PlaygroundState()
    seen = []
    state.subscribe(seen.append)
    with pytest.raises(TypeError, match="records"):
        state.emit("records")
    with pytest.raises(AttributeError):
        state.emit(Changed.RECORDZ)
    assert seen == []
    state.emit(Changed.RECORDS, 1)
    assert seen == [Change(Changed.RECORDS, 1)]


def test_comparing_a_kind_with_a_string_fails_instead_of_never_matching():
    with pytest.raises(TypeError, match="records"):
        Changed.RECORDS == "records"  # noqa: B015
    with pytest.raises(TypeError):
        Changed.RECORDS in ("prompt", "records")  # noqa: B015
    assert Changed.RECORDS in {Changed.PROMPT, Changed.RECORDS} and Changed.RECORDS != Changed.PROMPT


def _string_kinds(tree: ast.AST):
    """Where a source emits a string or compares ``.what`` with strings (the old, unchecked style)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "emit" \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
                and node.args[0].value.upper() in Changed.__members__:
            yield node.lineno
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, (ast.Attribute, ast.Name)) and getattr(s, "attr", getattr(s, "id", "")) == "what"
                   for s in sides):
                consts = [c for s in sides for c in ast.walk(s) if isinstance(c, ast.Constant)]
                if any(isinstance(c.value, str) for c in consts):
                    yield node.lineno


def test_no_source_names_a_kind_by_string():
    found = []
    sources = (p for folder in ("app", "bench", "tests") for p in (ROOT / folder).rglob("*.py"))
    for path in sorted(p for p in sources if p != Path(__file__).resolve()):  # this file emits strings on purpose
        text = path.read_text()
        if "emit" in text or "what" in text:  # (a source with neither names neither: no need to parse it)
            found += [f"{path.relative_to(ROOT)}:{line}" for line in _string_kinds(ast.parse(text))]
    assert found == []


def test_the_source_scan_catches_the_old_style():
    old = 'state.emit("records")\nif change.what == "lane_settings": pass\nif what in ("a", "b"): pass\n'
    assert len(list(_string_kinds(ast.parse(old)))) == 3


def _emits_on_the_states_behalf(tree: ast.AST):
    """Where a source outside the state calls ``<something>.state.emit`` or ``state.emit``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "emit":
            owner = node.func.value
            if (isinstance(owner, ast.Name) and owner.id == "state") or \
                    (isinstance(owner, ast.Attribute) and owner.attr == "state"):
                yield node.lineno


def test_only_the_state_announces_its_changes():
    """Actions, controllers and views change the state through its methods, which announce each change."""
    found = []
    for path in sorted(p for p in (ROOT / "app").rglob("*.py") if "core" not in p.relative_to(ROOT / "app").parts):
        text = path.read_text()
        if "emit" in text:
            found += [f"{path.relative_to(ROOT)}:{line}" for line in _emits_on_the_states_behalf(ast.parse(text))]
    assert found == []
    assert len(list(_emits_on_the_states_behalf(ast.parse("self.state.emit(Changed.PRESETS)\nstate.emit(x)\n")))) == 2


def test_a_refused_value_and_a_preset_change_are_announced_by_the_state():
    state = PlaygroundState()
    seen = []
    state.subscribe(seen.append)
    state.settings_refused(0)
    state.presets_changed()
    assert seen == [Change(Changed.LANE_SETTINGS, 0), Change(Changed.PRESETS)]
    with pytest.raises(ValueError, match="lane: expected 1 to 1, got 3"):
        state.settings_refused(2)
    assert len(seen) == 2
