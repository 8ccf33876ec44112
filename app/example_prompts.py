"""Example prompts by kind (``assets/prompts/<kind>/NN-slug.txt``; format in assets/prompts/README.md)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from app.resources import asset_path

KINDS = ("prose", "dialogue", "poetry")


@dataclass(frozen=True)
class ExamplePrompt:
    kind: str
    key: str  # "prose/01-lighthouse-letter"
    title: str  # "Lighthouse letter"
    text: str


@lru_cache(maxsize=1)
def example_prompts() -> dict[str, tuple[ExamplePrompt, ...]]:
    """``{kind: prompts in file order}``; the known kinds first, then any other folder."""
    root = asset_path("prompts")
    folders = sorted((p for p in root.iterdir() if p.is_dir()),
                     key=lambda p: (KINDS.index(p.name) if p.name in KINDS else len(KINDS), p.name))
    out: dict[str, tuple[ExamplePrompt, ...]] = {}
    for folder in folders:
        prompts = []
        for f in sorted(folder.glob("*.txt")):
            text = f.read_text(encoding="utf-8")
            if text.endswith("\n"):
                text = text[:-1]
            slug = f.stem.split("-", 1)[1] if f.stem[:1].isdigit() and "-" in f.stem else f.stem
            title = slug.replace("-", " ").capitalize()
            prompts.append(ExamplePrompt(folder.name, f"{folder.name}/{f.stem}", title, text))
        if prompts:
            out[folder.name] = tuple(prompts)
    return out
