"""Shared fixtures.  Tests write only to temporary folders; Qt runs offscreen (set here, once).

Tests that decode with the bundled Gemma model (they use ``default_model`` or
``model_path``) are marked ``gemma`` automatically, and tests in modules that import
llama.cpp's native samplers (``app.engine.native``, ``llama_cpp``) ``native``; ``make test``
runs both, ``make check`` neither.
"""
from __future__ import annotations

import os
import pathlib
import tempfile
import types

# Hypothesis keeps its caches outside the repository (it would write .hypothesis/ here).
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", os.path.join(tempfile.gettempdir(), "scatter-playground-hypothesis"))

import pytest  # noqa: E402
from hypothesis import settings as hypothesis_settings  # noqa: E402

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# One decode thread wherever a run does not name its own (the engine, the window's engine process, the
# command line in subprocesses): the suite's parallel workers share this machine's cores, and llama.cpp's
# threads spin-wait on each other when another process holds a core (a Gemma window test took 72 s with
# two threads and 4.6 s with one).  llama.cpp's CPU kernels give the same numbers on any thread count.
os.environ.setdefault("SCATTER_PLAYGROUND_THREADS", "1")
from tiers import FULL, examples  # noqa: E402

# Hypothesis keeps no example database (it would write .hypothesis/ into the repository).  A property
# without its own count gets Hypothesis's 100 examples in the full tier, a fifth by default (tiers.py).
hypothesis_settings.register_profile("suite", database=None, max_examples=examples(100))
hypothesis_settings.load_profile("suite")

GEMMA_FIXTURES = {"default_model", "model_path", "gemma_window"}
UI_TESTS = pathlib.Path(__file__).parent / "ui"


def pytest_report_header(config):
    return "tier: full (SCATTER_TESTS=full)" if FULL else "tier: default (make test-full runs the full one)"


def _reaches_native(module) -> bool:
    """The test module imports llama.cpp's native samplers (app.engine.native) or llama_cpp itself."""
    if module is None:
        return False
    for value in vars(module).values():
        name = str(value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", ""))
        if name.split(".")[0] == "llama_cpp" or name.startswith("app.engine.native"):
            return True
    return False


def pytest_collection_finish(session):
    """Everything collection imported (Qt, pyqtgraph, NumPy, hypothesis, the app, the test modules)
    lives until the worker ends: freeze it, so each full collection after a window test walks only what
    tests made since (about 70 ms a collection before, two per window test).  The window's own modules
    are imported first where window tests will run: the test modules import them only inside their
    tests, and what the first window test imported stayed unfrozen: tests/ui's collections and timer
    checks walked all of it again at every test."""
    import gc
    import importlib

    if any(item.path.is_relative_to(UI_TESTS) for item in session.items):
        importlib.import_module("app.ui.main_window")
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(items):
    native: dict[str, bool] = {}
    for item in items:
        if GEMMA_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.gemma)
        module = getattr(item, "module", None)
        key = getattr(module, "__name__", "")
        if key not in native:
            native[key] = _reaches_native(module)
        if native[key]:
            item.add_marker(pytest.mark.native)


@pytest.fixture(scope="session", autouse=True)
def no_fsync():
    """The suite's files live in temporary folders, and whether a write survives a power cut is not
    something a test can see: ``os.fsync`` returns at once here instead of waiting for the disk (every
    window a test closes writes its last session and its view settings, each write fsyncs the file and
    its folder, and this machine's disk is shared).  The tests of the writes' order
    (tests/app/test_presets_store.py) put their own ``os.fsync`` in its place and still see every call;
    child processes (the command line, the engine's process) fsync as they always do."""
    real = os.fsync
    os.fsync = lambda fd: None
    yield
    os.fsync = real


@pytest.fixture(scope="session", autouse=True)
def private_config(tmp_path_factory):
    """Presets, recent models and sessions go to a temporary folder, never the user's."""
    folder = tmp_path_factory.mktemp("config")
    old = os.environ.get("SCATTER_PLAYGROUND_CONFIG")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("SCATTER_PLAYGROUND_CONFIG", None)
    else:
        os.environ["SCATTER_PLAYGROUND_CONFIG"] = old


@pytest.fixture(autouse=True)
def qt_garbage_collected_here(request):
    """After a test that made Qt objects (it used ``qtbot``; pytest-qt has closed its widgets by the time
    this ends), collect on the main thread.  A closed window's Qt objects left in reference cycles would
    otherwise be collected by whichever thread next crosses the threshold, say a later test's engine
    thread, which deadlocks against the GUI thread (seen: tests/ui then tests/app in one run)."""
    yield
    if "qtbot" in request.fixturenames:
        import gc

        from PySide6.QtCore import QCoreApplication, QEvent

        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gc.collect()


@pytest.fixture(scope="session")
def default_model():
    from app.engine.llama.model import LoadedModel, default_model_path

    model = LoadedModel(default_model_path(), gpu_layers=0)
    yield model
    model.close()


@pytest.fixture(scope="session")
def model_path() -> str:
    from app.engine.llama.model import default_model_path

    return str(default_model_path())


# -- the suite never writes into the repository -------------------------------------------

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_DIRS = {".git", ".venv", "__pycache__", ".gl", ".whl", "build", "dist", ".mypy_cache", ".ruff_cache"}


def _repo_files() -> dict[str, tuple[int, int]]:
    files = {}
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        for name in names:
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            files[os.path.relpath(path, ROOT)] = (st.st_size, st.st_mtime_ns)
    return files


def pytest_sessionstart(session):
    session.config._repo_files_before = _repo_files()


def pytest_sessionfinish(session, exitstatus):
    before = getattr(session.config, "_repo_files_before", None)
    if before is None:
        return
    after = _repo_files()
    touched = sorted(p for p, sig in after.items() if before.get(p) != sig)
    if touched:
        print(f"\nthe tests wrote into the repository: {touched}")
        session.exitstatus = 1
