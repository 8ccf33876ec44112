"""What appending a step's text costs as a run goes on, with the text as the model wrote it and as one
paragraph: ``python -m bench.text_paragraph_bench [--lanes N] [--steps N]``.

Qt lays a changed paragraph (a ``QTextBlock``) out whole again, shaping every glyph of it, so an append
to a long paragraph costs in proportion to its length, and a run that writes without line breaks
(dialogue without them, a model that never ends its paragraphs, one long chat reply) pays more at each
step as it goes.  The records of a headless run on the bundled model are replayed into a window
(``bench.live_replay``, 1500 x 940), and each step's text append (``RedrawController.show_new_text``,
every lane's pane) is timed with Qt's painting of it, on the GUI thread (``time.thread_time``).  Then
the same records, their line breaks made spaces, again.  Printed: the median append of each quarter
of the run, in milliseconds, for both.  Not part of ``python -m bench``: it describes how the cost
grows, for a change to the text panes to be held against.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import tempfile


def _one_paragraph(steps: list[list]) -> list[list]:
    """The same records, their texts' line breaks made spaces (the token ids and pieces kept)."""
    return [[dataclasses.replace(rec, text=rec.text.replace("\n", " ")) for rec in step] for step in steps]


def _quarters(costs: list[float]) -> list[float]:
    size = max(1, len(costs) // 4)
    return [1e3 * statistics.median(costs[i:i + size]) for i in range(0, size * 4, size)]


def run(lanes: int, n_steps: int) -> tuple[int, dict[str, list[float]]]:
    """The first lane's line breaks as written, and the quarters' medians for each text."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-bench-")
    from app.engine.llama.model import LoadedModel, default_model_path

    from .live_replay import open_replay_window, record_steps, replay

    model = LoadedModel(default_model_path(), gpu_layers=0)
    try:
        written = record_steps(model, lanes, n_tokens=n_steps)
        breaks = sum(rec.text.count("\n") for step in written for rec in step if rec.lane == 0)
        out = {}
        for name, steps in (("as written", written), ("one paragraph", _one_paragraph(written))):
            app, window = open_replay_window(model, lanes)
            try:
                out[name] = _quarters(replay(app, window, steps, window.redraws.show_new_text, skip=0))
            finally:
                window.close()
        return breaks, out
    finally:
        model.close()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.text_paragraph_bench", description=__doc__.split("\n")[0])
    parser.add_argument("--lanes", type=int, default=4)
    parser.add_argument("--steps", type=int, default=512, help="steps of the run (default 512)")
    args = parser.parse_args(argv)
    if args.lanes < 1 or args.steps < 8:
        parser.error("--lanes must be at least 1 and --steps at least 8")
    breaks, out = run(args.lanes, args.steps)
    print(f"the first lane's text as written has {breaks} line breaks")
    for name in ("as written", "one paragraph"):
        quarters = ", ".join(f"{ms:.3f}" for ms in out[name])
        print(f"{name:14s} text append ms, median of each quarter of {args.steps} steps ({args.lanes} lane(s)): {quarters}")


if __name__ == "__main__":
    main()
