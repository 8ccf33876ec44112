"""Issue 20.8: the model file vanishing or changing under a run (the bundled Gemma copied to tmp_path).

llama.cpp maps the file: a deletion or a rename over it leaves the run unharmed, a file cut short
makes the next read of its weights a SIGBUS, a rewrite in place changes the weights under the run.
Every case ends, with one line naming the file (app.engine.llama.model_file).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.core.changes import Changed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from cli_run import ROOT, cli_env, start_cli  # noqa: E402

pytestmark = pytest.mark.gemma
WAIT_S = 180


@pytest.fixture
def model_copy(tmp_path, model_path) -> Path:
    copy = tmp_path / "model.gguf"
    shutil.copyfile(model_path, copy)
    return copy


def _cut(path: Path) -> None:
    os.truncate(path, 1000)


def _rewrite_in_place(path: Path) -> None:
    with open(path, "r+b") as f:  # same size, same inode: the weights change under the mapping
        f.seek(100 * 2**20)
        f.write(b"\0" * 2**20)


def _delete(path: Path) -> None:
    path.unlink()


def _replace_by_rename(path: Path) -> None:
    new = path.with_name("new.gguf")
    new.write_bytes(b"not a model")
    os.replace(new, path)


def _generate_and(action, model: Path, n: int = 200) -> tuple[int, str, str]:
    """``generate`` on ``model``; ``action(model)`` once its first text is out."""
    proc = start_cli(["-m", str(model), "-p", "Once upon a time", "-n", str(n), "-s", "1", "-t", "1"])
    first = proc.stdout.read(1)  # the first generated character: the run is decoding
    action(model)
    out, err = proc.communicate(timeout=WAIT_S)
    return proc.returncode, first + out, err


@pytest.mark.parametrize("action", [_cut, _rewrite_in_place], ids=["cut", "rewritten"])
def test_generate_on_a_file_changed_in_place_ends_with_one_line_naming_it(model_copy, action):
    code, out, err = _generate_and(action, model_copy)
    lines = err.strip().splitlines()
    assert code == 1, err
    assert lines[-1].startswith("error: the model file ") and str(model_copy) in lines[-1], err
    assert "Traceback" not in err and out  # the text printed before the change stays


@pytest.mark.parametrize("action", [_delete, _replace_by_rename], ids=["deleted", "renamed-over"])
def test_generate_goes_on_when_the_file_is_deleted_or_renamed_over(model_copy, action):
    code, out, err = _generate_and(action, model_copy, n=40)
    assert code == 0, err
    assert "lane 0: 40 tokens" in err  # the mapping holds the loaded file: the whole run


def test_the_next_load_of_a_vanished_model_names_it_at_once(model_copy):
    _generate_and(_delete, model_copy, n=8)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "app", "generate", "-m", str(model_copy), "-p", "x", "-n", "4"],
                          cwd=ROOT, env=cli_env(), capture_output=True, text=True, timeout=WAIT_S)
    assert done.returncode == 1 and str(model_copy) in done.stderr.strip().splitlines()[-1]
    assert time.monotonic() - started < WAIT_S


def _sweep_and(action, model: Path, csv: Path) -> subprocess.CompletedProcess:
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "sweep", "-o", str(csv), "-m", str(model), "--scatter-strength", "0,0.1,0.2,0.3",
         "-p", "Once upon a time", "--seeds", "2", "-n", "32", "-t", "1"],
        cwd=ROOT, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:  # its plan: the model is loaded, the samples start
        if " samples: " in line:
            break
    time.sleep(1.0)
    action(model)
    out, err = proc.communicate(timeout=WAIT_S)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("action", [_cut, _rewrite_in_place], ids=["cut", "rewritten"])
def test_sweep_on_a_file_changed_in_place_ends_with_one_line_and_whole_rows(model_copy, tmp_path, action):
    csv = tmp_path / "sweep.csv"
    done = _sweep_and(action, model_copy, csv)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and last.startswith("error: ") and str(model_copy) in last, done.stderr
    assert "Traceback" not in done.stderr
    text = csv.read_text()
    assert text.endswith("\n")  # whole rows only: --resume goes on from them


def test_sweep_goes_on_when_the_file_is_deleted(model_copy, tmp_path):
    csv = tmp_path / "sweep.csv"
    done = _sweep_and(_delete, model_copy, csv)
    from app.core.sweep import output

    assert done.returncode == 0, done.stderr
    assert len(output.read_sweep(str(csv))[1]) == 8  # every sample: the mapping holds the loaded file


def test_the_engine_stops_a_run_between_decodes_when_the_file_grows_or_is_rewritten(model_copy):
    """In-process (no SIGBUS possible: the file only grows): the check before each decode names the file."""
    from app.engine.face.options import LaneConfig, RunOptions
    from app.engine.llama.model import LoadedModel
    from app.engine.llama.model_file import ModelFileChanged
    from app.engine.run.generation import Generation
    from sampler import SamplerSettings

    model = LoadedModel(model_copy, gpu_layers=0)
    try:
        gen = Generation(model, "Once upon a time", [LaneConfig(SamplerSettings(seed=1), "a")],
                         RunOptions(max_tokens=50, n_ctx=128))
        steps = iter(gen)
        next(steps)
        with open(model_copy, "ab") as f:
            f.write(b"\0" * 4096)
        with pytest.raises(ModelFileChanged, match=f"the model file {model_copy} was rewritten"):
            for _ in range(60):
                next(steps)
        gen.close()
    finally:
        model.close()


def test_the_window_engine_names_the_file_when_it_dies_of_it_and_the_reload_says_why(model_copy):
    """The window's engine process: the crash (or the check) names the file; Generate's reload then fails
    with a line naming it, within the wait (state.lost_model's path)."""
    from engine_events import collect

    from app.engine.face import commands as cmd
    from app.engine.face import events as ev
    from app.engine.face.model_info import LoadRequest
    from app.engine.face.options import LaneConfig, RunOptions
    from app.engine.process import EngineProcess
    from sampler import SamplerSettings

    engine = EngineProcess().start()
    try:
        engine.submit(cmd.LoadModel(1, LoadRequest(str(model_copy), 0)))
        loaded = collect(engine, lambda e: isinstance(e, (ev.ModelLoaded, ev.ModelLoadFailed)), WAIT_S)[-1]
        assert isinstance(loaded, ev.ModelLoaded), loaded
        lanes = (LaneConfig(SamplerSettings(seed=1), "a"),)
        engine.submit(cmd.Generate(2, "Once upon a time", lanes, RunOptions(max_tokens=400, n_ctx=512, n_threads=1)))
        collect(engine, lambda e: isinstance(e, ev.StepsProduced), WAIT_S)
        _cut(model_copy)
        ended = collect(engine, lambda e: isinstance(e, ev.RunEnded), WAIT_S)
        crashed = [e for e in ended if isinstance(e, ev.EngineCrashed)]
        said = crashed[0].message if crashed else ended[-1].error
        assert f"the model file {model_copy} was cut to 1,000 bytes" in said, said
        engine.submit(cmd.LoadModel(3, LoadRequest(str(model_copy), 0)))
        again = collect(engine, lambda e: isinstance(e, (ev.ModelLoaded, ev.ModelLoadFailed)), WAIT_S)[-1]
        assert isinstance(again, ev.ModelLoadFailed) and str(model_copy) in again.message, again
    finally:
        engine.shutdown(30)


def test_token_texts_of_a_model_whose_file_was_deleted_come_from_the_loaded_model(model_copy, tmp_path,
                                                                                    monkeypatch, default_model):
    """The vocabulary cache is keyed by the file (path, size, mtime): with the file gone there is no key, and
    the texts come from the loaded vocabulary (no hang, the same texts); another file put at the path is
    refused by name, its cached texts never reached."""
    from app.engine.llama.model import LoadedModel

    monkeypatch.setenv("SCATTER_PLAYGROUND_CACHE", str(tmp_path / "cache"))
    model = LoadedModel(model_copy, gpu_layers=0)
    try:
        model_copy.unlink()
        texts = model.vocab.token_texts()
        assert texts == default_model.vocab.token_texts()
        model_copy.write_bytes(b"GGUF but not a model")  # another file at the path: its load names it
        with pytest.raises(Exception, match=str(model_copy)):
            LoadedModel(model_copy, gpu_layers=0)
    finally:
        model.close()


def test_generate_and_continue_after_a_crash_with_the_model_file_gone_say_so_and_end(tmp_path):
    """After an engine crash the window's next run loads the lost model again (state.lost_model): with its
    file gone that load fails naming the file, the run ends at once (no model), and each later try says
    the same; nothing waits.  The engine here is llama.cpp's, in-process, holding no model (as a new one
    after a crash)."""
    from app.core.presets import PresetStore
    from app.core.state import PlaygroundState
    from app.engine.engine import Engine
    from app.engine.face.model_info import LoadRequest
    from app.playground import Playground

    gone = tmp_path / "gone.gguf"
    state = PlaygroundState("once upon a time")
    engine = Engine().start()
    pg = Playground(state, engine, PresetStore(tmp_path / "presets.json"))
    problems = []
    state.subscribe(lambda change: change.what == Changed.PROBLEM and problems.append(state.problem))
    try:
        state.set_model(None, lost=LoadRequest(str(gone), 0))
        for action in (pg.runs.generate, pg.runs.continue_run, pg.runs.generate):
            problems.clear()
            action()
            deadline = time.monotonic() + 60
            while (state.busy or state.load_id is not None) and time.monotonic() < deadline:
                pg.handle_all()
                time.sleep(0.01)
            pg.handle_all()
            assert not state.busy and state.load_id is None
            assert any(str(gone) in p for p in problems if p), problems
            assert state.lost_model is not None and state.lost_model.path == str(gone)  # the next try loads it again
    finally:
        engine.shutdown()
