"""``make bench`` cannot rot: every suite runs at a tiny size (``python -m bench --tiny``) in ``make test``.

The lookahead suite once stopped ``make bench`` with a traceback (``RunOptions.replace(48)``: it takes
keywords) and nothing noticed, because nothing ran it.  Here the whole command runs as a user would run
it, each suite a few steps of each of its loops (``bench/size.py``), and fails on a traceback, a suite
that printed nothing (an ImportError that skipped it included), a figure that is not a finite number,
and a figure that docs/benchmarks.md's tables or ``bench.__main__.TARGETS`` name but no suite makes
(a figure nobody can reproduce).  The tiny figures themselves mean nothing and are never written.
"""
from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import netlab, rpc_hosts  # noqa: E402
from bench.__main__ import DOC, SUITES, TARGETS  # noqa: E402

pytestmark = [pytest.mark.gemma, pytest.mark.slow, pytest.mark.rpc]

#: A figure line as ``python -m bench`` prints it on stdout.
FIGURE = re.compile(r"^(\w+): (\S+)$")
#: A suite's heading as it prints it on stderr.
HEADING = re.compile(r"^# (\w+) \.\.\.$", re.M)
#: Where docs/benchmarks.md's figure tables end: the notes and the hand-written log follow.
NOTES_HEADING = "## How to read these"


def doc_figures(text: str) -> list[str]:
    """The figure names in docs/benchmarks.md's tables (above its notes)."""
    tables = text.split(NOTES_HEADING, 1)[0]
    return re.findall(r"^\| `(\w+)` \|", tables, re.M)


def parse_figures(stdout: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in map(FIGURE.match, stdout.splitlines()) if m}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """``python -m bench --tiny`` once: (return code, stdout, stderr, docs/benchmarks.md before it).  Its own
    config folder, so the window suites read and write no user's settings."""
    before = DOC.read_bytes() if DOC.exists() else None
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               SCATTER_PLAYGROUND_CONFIG=str(tmp_path_factory.mktemp("bench-config")),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "bench", "--tiny"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=840)
    return proc.returncode, proc.stdout, proc.stderr, before


@pytest.mark.timeout(900)
def test_every_suite_runs_at_a_tiny_size_without_a_traceback(tiny_run):
    code, _, err, _ = tiny_run
    assert code == 0 and "Traceback" not in err, err[-4000:]
    assert HEADING.findall(err) == list(SUITES), "a suite was skipped (an ImportError?):\n" + err[-2000:]


@pytest.mark.timeout(900)
def test_every_figure_is_a_finite_number(tiny_run):
    figures = parse_figures(tiny_run[1])
    assert len(figures) >= len(SUITES)
    bad = {k: v for k, v in figures.items() if not math.isfinite(float(v))}
    assert not bad, bad


@pytest.mark.timeout(900)
def test_every_documented_figure_and_target_is_made_by_a_suite(tiny_run):
    figures = parse_figures(tiny_run[1])
    named = doc_figures(DOC.read_text(encoding="utf-8")) + list(TARGETS)
    if netlab.unavailable():  # the one suite that needs root: its figures come from machines where it ran
        named = [name for name in named if not name.startswith(rpc_hosts.FIGURE_PREFIX)]
    assert [name for name in named if name not in figures] == []


@pytest.mark.timeout(900)
def test_the_tiny_run_leaves_the_document_as_it_was(tiny_run):
    """--tiny implies --no-doc: docs/benchmarks.md keeps the figures of the last real run."""
    assert tiny_run[3] == (DOC.read_bytes() if DOC.exists() else None)


def test_doc_figures_reads_only_the_tables():
    text = ("| figure | value | target |\n| `a_s` | 1 | |\n\n## The engine's process\n\n| `b_ms` | 2 | |\n\n"
            f"{NOTES_HEADING}\n\n| `old_figure` | 3 | |\n")
    assert doc_figures(text) == ["a_s", "b_ms"]
