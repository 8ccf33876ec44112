"""``kill -9`` in the middle of a save: the file is the old or the new content, never part of one.

A forked child saves a large preset over and over (each save a new
generation); the test SIGKILLs it at random moments, 50 times or more.  After each
kill the file must be exactly one complete generation (no older than before
the kill), and the next ``load()`` must remove the temporary file the killed
write left behind.
"""
from __future__ import annotations

import multiprocessing
import random
import re
import time
from pathlib import Path

import pytest

from app.core.presets import Preset, PresetStore
from app.core.presets.codec import encode
from sampler import SamplerSettings
from tiers import length

KILLS = length(50, 12)
#: Kills go on past KILLS until one has landed mid-write (on a loaded machine most land in the encoding).
MAX_KILLS = 300
SETTINGS = SamplerSettings(top_k=12, temp=0.7)
#: A write of ~1.5 MB takes long enough for a kill to land inside it: 380 other presets of 3,900 characters
#: of description each (the presets' limit is 4,000), saved before "big" and rewritten with it.
PAD_CHARS = 3_900
PADS = [Preset(f"pad {i:03d}", f"pad {i:03d}", f"{i:03d}|" * (PAD_CHARS // 4), SETTINGS, builtin=False) for i in range(380)]


def content(generation: int) -> str:
    """A description that shows, all through, which generation wrote it."""
    return f"generation {generation}: " + f"{generation:09d}|" * (PAD_CHARS // 10 - 3)


def expected_bytes(generation: int) -> bytes:
    return encode(PADS + [Preset("big", "big", content(generation), SETTINGS, builtin=False)])


def generation_of(raw: bytes) -> int | None:
    match = re.search(rb'"description": "generation (\d+): ', raw)
    return int(match.group(1)) if match else None


def temp_files(folder: Path) -> list[Path]:
    return sorted(folder.glob(".presets.json.*.tmp"))


def save_forever(path: str, started) -> None:
    """The child: one generation after another until killed."""
    store = PresetStore(path)
    generation = generation_of(Path(path).read_bytes())
    started.set()
    while True:
        generation += 1
        store.save("big", SETTINGS, content(generation), overwrite=True)


@pytest.mark.slow
def test_kill_9_mid_save_many_times_leaves_old_or_new_file_and_no_temp(tmp_path):
    path = tmp_path / "cfg" / "presets.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(expected_bytes(0))
    ctx = multiprocessing.get_context("fork")  # the child starts in milliseconds
    rng = random.Random(20261130)
    partial, lost_generations, kills_mid_write, temps_left = 0, 0, 0, 0
    last = 0
    kills = 0
    while kills < KILLS or (kills_mid_write == 0 and kills < MAX_KILLS):
        kills += 1
        started = ctx.Event()
        child = ctx.Process(target=save_forever, args=(str(path), started), daemon=True)
        child.start()
        assert started.wait(60), "the saving child did not start"
        time.sleep(rng.uniform(0.0, 0.3))
        child.kill()
        child.join(60)
        assert child.exitcode == -9

        raw = path.read_bytes()
        generation = generation_of(raw)
        if generation is None or raw != expected_bytes(generation):
            partial += 1
            path.write_bytes(expected_bytes(last))  # counted; put a whole file back and go on
            continue
        if generation < last:
            lost_generations += 1
        last = generation
        if temp_files(path.parent):
            kills_mid_write += 1
        store = PresetStore(path)
        assert store.load() == []
        assert store.get("big").description == content(generation)
        temps_left += len(temp_files(path.parent))

    print(f"kills={kills} partial={partial} mid_write={kills_mid_write} temps_left={temps_left} generations={last}")
    assert partial == 0, f"{partial} of {kills} kills left a partial file"
    assert lost_generations == 0
    assert temps_left == 0
    assert last > 0  # the child did save between kills
    assert kills_mid_write > 0, "no kill landed mid-write: the test did not test anything"
