"""``python -m bench.frame_instructions [--lanes N] [--steps N]``: the instructions a live frame takes,
counted by valgrind's callgrind, for comparing two versions of the window on a noisy machine.

The GUI-thread CPU time of a frame (``bench/gui_frames.py``) moves by 30 to 50 % on this shared
machine from one minute to the next (the reference ``sum(i*i for i in range(10**7))`` takes 0.45 to
0.96 s): a change that saves 5 % of a frame cannot be seen in it.  The number of instructions a
frame executes does not depend on the machine's load, so two versions compared this way differ by
what they do.  The same Gemma run's records (``bench.live_replay.record_steps``, made once, in
this process) are replayed into a window as ``gui_frames`` replays them, in a child process run
under callgrind with instrumentation off; after ``--warm`` frames (first paints, caches filling)
instrumentation is switched on (``callgrind_control -i on``) for the remaining frames, and the
child exits without tearing the window down.  The figure is every instruction of the process in
those frames (the GUI thread's, and the few of Qt's and llama.cpp's idle threads) over their
number: ``frame_minstr`` (millions).  Under callgrind a frame runs about 40 times slower, so the
default 60 steps take about 3 minutes.  Needs valgrind (Debian's ``valgrind``).
"""
from __future__ import annotations

import argparse
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

READY, GO = "ready", "go"


def _child(steps_file: Path, lanes: int, warm: int) -> None:
    """In the process under callgrind: the window, warm frames, then (counted) the rest."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.engine.llama.model import LoadedModel, default_model_path

    from .gui_frames import _frame
    from .live_replay import open_replay_window, replay

    steps = pickle.loads(steps_file.read_bytes())
    model = LoadedModel(default_model_path(), gpu_layers=0)
    app, window = open_replay_window(model, lanes)
    replay(app, window, steps[:warm], _frame(window), skip=0)
    (steps_file.parent / READY).touch()
    while not (steps_file.parent / GO).exists():
        time.sleep(0.05)
    replay(app, window, steps[warm:], _frame(window), skip=0)
    sys.stdout.flush()
    os._exit(0)  # (nothing after the frames is counted: no teardown)


def _total(out_file: Path) -> int:
    """The instructions counted in a callgrind output file (its ``summary:`` or ``totals:`` line)."""
    text = out_file.read_text(errors="replace")
    found = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.MULTILINE)
    if found is None:
        raise SystemExit(f"frame_instructions: no totals in {out_file}")
    return int(found.group(1))


def measure(lanes: int, steps: int, warm: int, keep: bool = False) -> dict[str, float]:
    """``keep``: leave the callgrind output (for ``callgrind_annotate``) and say where."""
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            raise SystemExit(f"frame_instructions: {tool} not found (Debian's package valgrind)")
    from app.engine.llama.model import LoadedModel, default_model_path

    from .live_replay import record_steps

    model = LoadedModel(default_model_path(), gpu_layers=0)
    try:
        records = record_steps(model, lanes, n_tokens=steps)
    finally:
        model.close()
    work = Path(tempfile.mkdtemp(prefix="scatter-frame-instr-"))
    steps_file, out_file = work / "steps.pkl", work / "callgrind.out"
    steps_file.write_bytes(pickle.dumps(records))
    env = dict(os.environ, SCATTER_PLAYGROUND_CONFIG=str(work / "config"), QT_QPA_PLATFORM="offscreen")
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out_file}",
           sys.executable, "-m", "bench.frame_instructions", "--child", str(steps_file),
           "--lanes", str(lanes), "--warm", str(warm)]
    root = Path(__file__).resolve().parent.parent
    with open(work / "child.log", "w") as log:
        child = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            while not (work / READY).exists():
                if child.poll() is not None:
                    raise SystemExit(f"frame_instructions: the replay ended early; see {work / 'child.log'}")
                time.sleep(0.5)
            subprocess.run(["callgrind_control", "-i", "on", str(child.pid)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            (work / GO).touch()
            child.wait()
        finally:
            if child.poll() is None:
                child.kill()
    frames = len(records) - warm
    try:
        return {"frame_minstr": _total(out_file) / frames / 1e6, "frames": frames}
    finally:
        if keep:
            print(f"callgrind output: {out_file}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.frame_instructions", description=__doc__.split("\n")[0])
    parser.add_argument("--lanes", type=int, default=1)
    parser.add_argument("--steps", type=int, default=60, help="steps of the run (default 60)")
    parser.add_argument("--warm", type=int, default=10, help="frames not counted, first (default 10)")
    parser.add_argument("--keep", action="store_true", help="keep the callgrind output and print its path")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        _child(args.child, args.lanes, args.warm)
        return
    if not 0 <= args.warm < args.steps:
        parser.error(f"--warm {args.warm}: must be at least 0 and less than --steps {args.steps}")
    out = measure(args.lanes, args.steps, args.warm, args.keep)
    print(f"frame_minstr: {out['frame_minstr']:.2f}  ({args.lanes} lane(s), {out['frames']} frames counted)")


if __name__ == "__main__":
    main()
