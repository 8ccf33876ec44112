"""Damage that keeps the bundled model's size and mtime (issue 26.2): the stamp still matches, the load
fails, and the failed load re-verifies the hash and rebuilds the file.  The files are built in tmp_path:
small fake parts, and once the real package's parts with the real command."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import ROOT, cli_env

from app.engine.llama.bundled import ENV_VAR, Source, ensure_bundled_model
from app.engine.llama.bundled_check import load_bundled


class LoadFailed(Exception):
    pass


@pytest.fixture
def source(tmp_path) -> Source:
    parts_dir = tmp_path / "parts"
    parts_dir.mkdir()
    data = [os.urandom(size) for size in (70_000, 30_001)]
    parts = []
    for i, chunk in enumerate(data):
        p = parts_dir / f"m.gguf.part{i}"
        p.write_bytes(chunk)
        parts.append(p)
    return Source("m.gguf", tuple(parts), hashlib.sha256(b"".join(data)).hexdigest())


def _damage_in_place(path: Path, offset: int, new: bytes) -> None:
    """Overwrite bytes without changing the size, then put the mtime back: the stamp still matches."""
    st = path.stat()
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(new)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_mtime_ns == st.st_mtime_ns and path.stat().st_size == st.st_size


@pytest.mark.parametrize("offset,new", [(0, b"XXXX"), (8, b"\x00\x00\x00\x00\x00\x00\x00\x40"), (50_000, b"\xff" * 7),
                                        (100_000, b"!")])
def test_a_failed_load_rebuilds_a_file_damaged_in_place(tmp_path, source, offset, new):
    target = ensure_bundled_model(tmp_path / "cache", source=source)
    good = target.read_bytes()
    _damage_in_place(target, offset, new)
    assert ensure_bundled_model(tmp_path / "cache", source=source) == target  # the stamp trusts it
    assert target.read_bytes() != good
    loads, said = [], []

    def load():
        loads.append(target.read_bytes() == good)
        if not loads[-1]:
            raise LoadFailed("number of tensors is 4611686018427387904")
        return "model"

    assert load_bundled(target, load, LoadFailed, said.append, source) == "model"
    assert loads == [False, True] and target.read_bytes() == good
    assert len(said) == 1 and "damaged" in said[0] and str(target) in said[0]


def test_an_intact_file_that_fails_to_load_is_not_rebuilt(tmp_path, source):
    target = ensure_bundled_model(tmp_path / "cache", source=source)
    inode = target.stat().st_ino
    said = []

    def load():
        raise LoadFailed("out of memory")

    with pytest.raises(LoadFailed, match="out of memory"):
        load_bundled(target, load, LoadFailed, said.append, source)
    assert said == [] and target.stat().st_ino == inode


@pytest.mark.gemma
def test_generate_heals_the_real_bundled_model_flipped_in_place(tmp_path):
    env = dict(cli_env(), **{ENV_VAR: str(tmp_path / "cache")})
    first = subprocess.run([sys.executable, "-m", "app", "generate", "-p", "Hello", "-n", "2", "--quiet"], cwd=ROOT,
                           env=env, capture_output=True, timeout=600)
    assert first.returncode == 0, first.stderr
    model = next((tmp_path / "cache").glob("*.gguf"))
    _damage_in_place(model, 8, (4611686018427387904).to_bytes(8, "little"))  # the tensor count
    done = subprocess.run([sys.executable, "-m", "app", "generate", "-p", "Hello", "-n", "2"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "is damaged" in done.stderr and "rebuilding" in done.stderr
