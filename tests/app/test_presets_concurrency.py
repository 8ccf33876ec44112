"""Presets saved at the same moment by several windows: nothing is lost.

Every change takes the file's inter-process lock, re-reads the file under it
and writes it back atomically; these tests race real processes and threads
against one file and count what survives.  The lock timeout is a clear error.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import app.core.presets.store as store_module
from app.core.presets import PresetFileError, PresetStore
from sampler import SamplerSettings
from tiers import length

REPO = Path(__file__).resolve().parents[2]


def child_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a child Python: this checkout's packages, a private config folder."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    env["SCATTER_PLAYGROUND_CONFIG"] = str(tmp_path / "child-config")
    env.pop("PYTHONSTARTUP", None)
    return env


def start_python(code: str, args: list[str], tmp_path: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args], env=child_env(tmp_path),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def wait_for(path: Path, procs: list[subprocess.Popen]) -> None:
    """Wait until ``path`` exists (fails early if a child died first)."""
    while not path.exists():
        for p in procs:
            if p.poll() is not None:
                out, err = p.communicate()
                pytest.fail(f"child exited with {p.returncode} before {path.name}:\n{out}\n{err}")
        time.sleep(0.005)


SAVER = """
    import sys, time
    from pathlib import Path
    from app.core.presets import PresetStore
    from sampler import SamplerSettings

    path, folder, tag, count = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    store = PresetStore(path)
    (folder / f"ready-{tag}").touch()
    while not (folder / "go").exists():  # both start together
        time.sleep(0.0005)
    for i in range(count):
        store.save(f"{tag}-{i:03d}", SamplerSettings(top_k=i + 1), f"saved by {tag}")
"""


@pytest.mark.slow
def test_two_processes_saving_many_presets_each_lose_none(tmp_path):
    path = tmp_path / "cfg" / "presets.json"
    count = length(200, 60)
    procs = [start_python(SAVER, [str(path), str(tmp_path), tag, str(count)], tmp_path) for tag in ("a", "b")]
    try:
        for tag in ("a", "b"):
            wait_for(tmp_path / f"ready-{tag}", procs)
        (tmp_path / "go").touch()
        for p in procs:
            out, err = p.communicate(timeout=240)
            assert p.returncode == 0, err
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    store = PresetStore(path)
    assert store.load() == []
    expected = {f"{tag}-{i:03d}" for tag in ("a", "b") for i in range(count)}
    lost = expected - set(store.names())
    assert sorted(lost) == [], f"{len(lost)} of {len(expected)} presets lost"
    assert len(store.names()) == 2 * count
    assert all(store.get(f"b-{i:03d}").settings.top_k == i + 1 for i in range(count))
    interleaved = [n[0] for n in store.names()]
    assert interleaved.count("a") == interleaved.count("b") == count


@pytest.mark.slow
def test_two_stores_on_two_threads_both_survive_every_round(path_in):
    """Each round both threads save their own preset at the same moment (a barrier); both changes must be on disk.

    A lost update would show one preset still holding the previous round.
    """
    path, rounds = path_in, length(200, 60)
    stores = {"left": PresetStore(path), "right": PresetStore(path)}
    start, done = threading.Barrier(3, timeout=60), threading.Barrier(3, timeout=60)
    errors: list[BaseException] = []

    def worker(name: str) -> None:
        try:
            for r in range(rounds):
                start.wait()
                stores[name].save(name, SamplerSettings(seed=r), f"round {r}", overwrite=True)
                done.wait()
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
            start.abort()
            done.abort()

    threads = [threading.Thread(target=worker, args=(name,)) for name in stores]
    for t in threads:
        t.start()
    lost_rounds = []
    try:
        for r in range(rounds):
            start.wait()
            done.wait()
            on_disk = {p.name: p.description for p in PresetStore(path).presets()}
            if on_disk != {name: f"round {r}" for name in stores}:
                lost_rounds.append(r)
    except threading.BrokenBarrierError:
        pass
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert lost_rounds == [], f"a save was lost in {len(lost_rounds)} of {rounds} rounds"
    assert PresetStore(path).get("left").settings.seed == rounds - 1


@pytest.fixture
def path_in(tmp_path) -> Path:
    return tmp_path / "cfg" / "presets.json"


HOLDER = """
    import sys, time
    from pathlib import Path
    from filelock import FileLock

    lock_path, folder = sys.argv[1], Path(sys.argv[2])
    with FileLock(lock_path):
        (folder / "held").touch()
        while not (folder / "release").exists():
            time.sleep(0.01)
"""


def test_lock_held_by_another_process_times_out_with_one_clear_line(tmp_path, monkeypatch):
    path = tmp_path / "cfg" / "presets.json"
    PresetStore(path).save("before", SamplerSettings())
    raw = path.read_bytes()
    monkeypatch.setattr(store_module, "LOCK_TIMEOUT_S", 0.2)
    holder = start_python(HOLDER, [str(path) + ".lock", str(tmp_path)], tmp_path)
    try:
        wait_for(tmp_path / "held", [holder])
        store = PresetStore(path)
        with pytest.raises(PresetFileError) as exc:
            store.save("blocked", SamplerSettings())
        message = str(exc.value)
        assert "\n" not in message
        assert message.startswith(f"{path}: ") and "another" in message and "0.2 s" in message
        assert path.read_bytes() == raw
        # Reading still works (the GUI can start): the problem is reported, the presets are there.
        problems = store.load()
        assert store.names() == ["before"]
        assert len(problems) == 1 and "0.2 s" in problems[0]
    finally:
        (tmp_path / "release").touch()
        holder.communicate(timeout=60)
    assert holder.returncode == 0
    store.save("after", SamplerSettings())
    assert PresetStore(path).names() == ["before", "after"]
