"""The type checker's view of the settings' fields (``sampler/settings_fields.pyi``) is what the flag table
makes them: the committed stub is the one ``sampler/settings_stub.py`` writes now, and it names every field
of the real classes with the type of its default value."""
from __future__ import annotations

import ast
import dataclasses

import pytest

from sampler import SamplerSettings, ScatterParams
from sampler.settings_stub import STUB, render


def test_the_committed_stub_is_current():
    assert STUB.read_text(encoding="utf-8") == render(), (
        "sampler/settings_fields.pyi is not what the flag table gives: run python -m sampler.settings_stub"
    )


def _stub_fields() -> dict[str, dict[str, str]]:
    """Each class of the stub: its annotated names and their annotations as written."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {
        node.name: {item.target.id: ast.unparse(item.annotation)
                    for item in node.body if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)}
        for node in tree.body if isinstance(node, ast.ClassDef)
    }


@pytest.mark.parametrize("stub_class, cls", [("SettingsFields", SamplerSettings), ("ScatterFields", ScatterParams)])
def test_the_stub_names_every_field_with_its_values_type(stub_class, cls):
    annotations = _stub_fields()[stub_class]
    sample = cls(logit_bias=["5+1.5"], banned_phrases=["a phrase"]) if cls is SamplerSettings else cls()
    assert list(annotations) == [f.name for f in dataclasses.fields(cls)]
    for name, annotation in annotations.items():
        value = getattr(sample, name)
        assert annotation.partition("[")[0] == type(value).__name__, (name, annotation, value)
        if annotation.startswith("tuple[") and annotation.endswith(", ...]"):  # and each item's type
            item_type = annotation[len("tuple["):-len(", ...]")].partition("[")[0]
            assert value and {type(item).__name__ for item in value} == {item_type}, (name, annotation, value)
