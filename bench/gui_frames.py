"""What a live frame costs on the GUI thread, painting included, with 1 lane and with 4, and per panel.

A headless run on the bundled model makes the records; they are replayed into a
window at 1500 x 940, a step at a time, and each live frame (the text and every
visible panel brought up to the newest step, as ``RedrawController.redraw`` draws
it during a run) is timed with ``time.thread_time`` from its start until Qt has
painted what it changed (``bench.live_replay.flush``).  No decoding runs meanwhile,
so the figure is the window's own cost.  ``gui_panel_<name>_ms`` is a frame that
brings only that panel up to date (the text not included); ``gui_text_ms`` one that
appends only the text.
"""
from __future__ import annotations

import os
import statistics
import tempfile

from .live_replay import open_replay_window, record_steps, replay
from .size import pick

PANELS = ("pre_post", "entropy", "collision", "absorption", "strips", "funnel", "bans")
#: steps replayed: the first ``live_replay.replay`` leaves out (8) and the timed ones
N_TOKENS = pick(128, 10)


def _one_panel(window, name: str):
    panel = getattr(window, name)
    state = window.state

    def frame() -> None:
        rec = state.current_record()
        if hasattr(panel, "show_run"):
            panel.show_run(state.lane().records, rec)
        else:
            panel.show_record(rec)

    return frame


def _frame(window):
    redraws = window.redraws

    def frame() -> None:
        redraws.show_new_text()
        redraws.redraw()

    return frame


def run_all() -> dict[str, float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-bench-")
    from app.engine.llama.model import LoadedModel, default_model_path

    model = LoadedModel(default_model_path(), gpu_layers=0)
    out: dict[str, float] = {}
    try:
        for lanes, key in ((1, "gui_frame_cpu_ms"), (4, "gui_frame_cpu_ms_4lanes")):
            steps = record_steps(model, lanes, N_TOKENS)
            app, window = open_replay_window(model, lanes)
            try:
                costs = replay(app, window, steps, _frame(window))
                out[key] = 1e3 * statistics.median(costs)
                out[key + "_p90"] = 1e3 * sorted(costs)[int(0.9 * len(costs))]
                if lanes == 1:
                    out.update(_per_panel(model, steps))
            finally:
                window.close()
    finally:
        model.close()
    return out


def _per_panel(model, steps) -> dict[str, float]:
    out = {}
    for name in PANELS + ("text",):
        app, window = open_replay_window(model, 1)
        try:
            frame = window.redraws.show_new_text if name == "text" else _one_panel(window, name)
            if name != "text":
                window.redraws.text_timer.timeout.disconnect()  # only the panel: no text drawn
            costs = replay(app, window, steps, frame)
            out[f"gui_{'text' if name == 'text' else 'panel_' + name}_ms"] = 1e3 * statistics.median(costs)
        finally:
            window.close()
    return out
