"""A/B files: the CSV export (round trip, atomic replacement) and the example-prompt reader."""
from __future__ import annotations

import csv
import os
import shlex

import pytest

from app.core.ab import ABRound, ABSide, Pick, csv_export
from app.core.ab.csv_export import COLUMNS, csv_text, write_csv
from app.core.ab.plan import PLAYGROUND_PROMPT
from app.core.ab.prompts import keyed_prompt_sets, read_example_prompts
from app.core.presets import find_builtin
from sampler import parse_flags

CREATIVE = find_builtin("creative-writing").settings
OFF = find_builtin("off").settings


def make_round(number: int, order, pick, text_a: str, text_b: str, seed: int) -> ABRound:
    a = ABSide("Creative writing", CREATIVE.replace(seed=seed))
    b = ABSide('temperature 0.87 (matched, "quoted")', OFF.replace(seed=seed, temp=0.87))
    return ABRound(number, "prose/01-lighthouse-letter", "The keeper,\nat low tide", seed, 64, a, b, order,
                   text_a, text_b, pick, f"2026-11-30T10:0{number}:00+00:00")


ROUNDS = [
    make_round(1, ("B", "A"), Pick.LEFT, " She read it twice.\n\nThen, \"no\".", " A gull; a bell, ringing", 11),
    make_round(2, ("A", "B"), Pick.BOTH_FINE, " été, naïve — ✓", "", 22),
    make_round(3, ("A", "B"), Pick.RIGHT, "=SUM(A1)", "tab\there\r\nCRLF", 33),
    make_round(4, ("B", "A"), Pick.BOTH_BAD, "x", "y", 44),
]


def read_back(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        assert tuple(header) == COLUMNS
        return [dict(zip(header, row)) for row in reader]


def test_csv_round_trip(tmp_path):
    path = tmp_path / "out" / "ab.csv"
    write_csv(path, ROUNDS)
    rows = read_back(path)
    assert len(rows) == len(ROUNDS)
    for row, r in zip(rows, ROUNDS):
        assert row["round"] == str(r.number) and row["seed"] == str(r.seed) and row["max_tokens"] == "64"
        assert row["prompt_id"] == r.prompt_id and row["prompt"] == r.prompt
        assert (row["text_a"], row["text_b"]) == (r.text_a, r.text_b), "texts must come back byte for byte"
        assert (row["a_name"], row["b_name"]) == (r.a.name, r.b.name)
        assert (row["left"], row["right"]) == r.order
        assert row["pick"] == r.pick.value and row["outcome"] == r.outcome and row["decided_at"] == r.decided_at
        # the flags are llama.cpp's and give the very settings back, the round's seed included
        for key, side in (("a_flags", r.a), ("b_flags", r.b)):
            settings, _rest = parse_flags(shlex.split(row[key]))
            assert settings == side.settings
            assert f"--seed {r.seed}" in row[key]
    assert rows[0]["winner_name"] == ROUNDS[0].b.name  # left was B and left was picked
    assert rows[2]["winner_name"] == ROUNDS[2].b.name  # right was B
    assert rows[1]["winner_name"] == rows[3]["winner_name"] == ""


def test_csv_leaves_out_an_undecided_round_and_always_has_a_header():
    undecided = make_round(5, ("A", "B"), None, "a", "b", 55)
    assert csv_text([]).splitlines() == [",".join(COLUMNS)]
    assert len(list(csv.reader(csv_text([*ROUNDS, undecided]).splitlines(keepends=True)))) == 1 + len(ROUNDS)


def test_csv_replaces_the_file_atomically(tmp_path, monkeypatch):
    path = tmp_path / "ab.csv"
    path.write_text("old content\n", encoding="utf-8")
    calls = []
    real = csv_export.atomic_write
    monkeypatch.setattr(csv_export, "atomic_write", lambda p, data: calls.append(p) or real(p, data))
    write_csv(path, ROUNDS[:1])
    assert calls == [path] and read_back(path)[0]["seed"] == "11"

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    before = path.read_bytes()
    with pytest.raises(OSError):
        write_csv(path, ROUNDS)
    assert path.read_bytes() == before, "a failed write must leave the old file whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ab.csv"], "no temporary file may be left"


# -- example prompts ----------------------------------------------------------------------------


def write(path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_example_prompts_follow_the_readme(tmp_path):
    root = tmp_path / "prompts"
    write(root / "creative.txt", b"the default prompt, not an example\n")
    write(root / "prose" / "10-later-one.txt", b"Later.\n")
    write(root / "prose" / "02-closed-bakery.txt", b"The bakery had been closed")  # no newline: kept as is
    write(root / "prose" / "notes.txt", b"not NN-slug: skipped")
    write(root / "poetry" / "01-winter-orchard.txt", b"A poem.\n\nThe trees\n\n")
    write(root / "dialogue" / "01-night-shift.txt", b"\"Still here?\" she asked.\r\n")
    write(root / "zeta" / "01-other-kind.txt", b"more kinds may be added\n")
    write(root / "dialogue" / "02-bad-bytes.txt", b"\xff\xfe not UTF-8")
    write(root / "dialogue" / "03-empty.txt", b"\n")
    prompts, problems = read_example_prompts(root)
    assert list(prompts) == ["prose", "dialogue", "poetry", "zeta"]
    prose = prompts["prose"]
    assert [p.key for p in prose] == ["prose/02-closed-bakery", "prose/10-later-one"]  # NN orders, as a number
    assert [p.title for p in prose] == ["closed bakery", "later one"]  # the slug, "-" read as a space
    assert prose[0].text == "The bakery had been closed" and prose[1].text == "Later."
    assert prompts["poetry"][0].text == "A poem.\n\nThe trees\n"  # only the one trailing newline is dropped
    assert prompts["dialogue"][0].text == "\"Still here?\" she asked."
    assert [p.key for p in prompts["dialogue"]] == ["dialogue/01-night-shift"]
    assert len(problems) == 2 and "02-bad-bytes.txt" in problems[0] + problems[1]
    assert any("03-empty.txt" in p and "empty" in p for p in problems)


def test_no_example_folder_means_no_examples(tmp_path):
    assert read_example_prompts(tmp_path / "missing") == ({}, [])


def test_prompt_sets_offer_the_playground_prompt_then_examples(tmp_path):
    write(tmp_path / "prose" / "01-a.txt", b"one\n")
    write(tmp_path / "prose" / "02-b.txt", b"two\n")
    write(tmp_path / "poetry" / "01-c.txt", b"three\n")
    examples, _ = read_example_prompts(tmp_path)
    sets = {s.label: s.prompts for s in keyed_prompt_sets("my prompt", examples)}
    labels = list(sets)
    assert labels[0] == "The playground's prompt" and sets[labels[0]][0].id == PLAYGROUND_PROMPT
    assert sets[labels[0]][0].text == "my prompt"
    assert [p.text for p in sets["All example prompts (3)"]] == ["one", "two", "three"]
    assert [p.id for p in sets["All prose (2)"]] == ["prose/01-a", "prose/02-b"]
    assert [p.text for p in sets["poetry: c"]] == ["three"]
    assert [s.label for s in keyed_prompt_sets("p", {})] == ["The playground's prompt"]
