"""``python -m bench``: run every benchmark, print ``name: value`` lines, update docs/benchmarks.md."""
from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import sys
from pathlib import Path

from . import size

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"

TARGETS = {
    "chain_vs_native_ratio": "<= 1.0",
    "scatter_step_us": "<= 50",
    "engine_vs_native_tps_ratio": ">= 0.97",
    "lanes2_vs_1_throughput_ratio": ">= 0.95 x raw_batch2_vs_1_ratio",
    "gui_vs_headless_tps_ratio": ">= 0.95",
    "gui_first_token_ms": "<= 100",
    "gui_token_latency_ms": "<= 50",
    "gui_token_latency_ms_p95": "<= 50",
    "gui_frame_cpu_ms": "<= 5",
    "gui_frame_cpu_ms_4lanes": "<= 5",
    "gui_live_redraws_per_s": ">= 10",
    "window_to_model_ready_s": "<= 1.5",
    "engine_ipc_us_per_record": "(the engine's own process)",
    "model_ready_s": "(window shown to ready: <= 1.5)",
    "sweep_vs_generate_tps_ratio": ">= 0.95",
    "fit_stock_s": "<= 2",
    "knobs_share_of_step": "<= 0.10",
    "lookahead4x16_vs_16_time_ratio": "<= 2.0",
    "bans_1000_vs_none_tps_ratio": ">= 0.95",
    "ban_rewind_ms": "(median per rewind)",
    "presets_load_10k_s": "<= 1.0",
    "presets_save_10k_s": "<= 1.0",
    "session_apply_ms": "(GUI thread; 4 lanes x 2048 tokens)",
    "serve_vs_generate_tps_ratio": ">= 0.97",
    "serve_first_token_ms": "<= 30",
    "serve_queue_p95_ms": "(4 clients at once)",
    "grammar_json_vs_native_ratio": "<= 1.1",
    "grammar_step_us": "(a JSON grammar, random logits: most picks refused)",
    "rpc_rtt_tokens_equal": "1 (bit-equal at every round trip)",
}


NOTES = """## How to read these

See `bench/*.py` for exactly what each figure times.

- **Chain**: a 262,144-entry logits vector, llama.cpp's default flags. llama.cpp's side
  fills its `llama_token_data` array from the logits and applies its native chain;
  ours runs the same flags plus the creative-writing scatter preset. Median over 300
  steps. `chain_mirostat1_*` and `chain_mirostat2_*`: the same with `--mirostat 1` and `--mirostat 2`
  (both sides sort the whole vocabulary and softmax it), median over 100 steps.
- **Scatter**: k = 64, radius 2.5, 100 candidates. `scatter_step_us` uses sorted input,
  as the default chain hands it over; `scatter_step_unsorted_us` makes scatter sort first.
- **Softmax over the whole vocabulary**: `softmax_full_vocab_us` is our softmax of 262,144 sorted logits
  (each `expf` as the C library gives it, `sampler/cfloat.py`), median of 40: what a chain without
  top-k (`--top-k 0`) pays at every step.
- **Nearest stock preset**: `fit_stock_s` fits temperature, min-p, top-p and top-n-sigma to a preset with
  smoothing over 500 standard steps of 256 candidates (`sampler.stockfit`), the median of 3 fits.
- **Knobs that did nothing**: `knobs_step_us` is the counterfactual per step (every active stage left out once,
  on a record's 64 raw top logits); `knobs_vs_chain_step` divides it by one step of our chain alone on the full
  vocabulary, `knobs_share_of_step` by a whole generate step (decode and chain, from `sweep_generate_tps`; only
  when the sweep suite ran). It runs only when the window asks.
- **Engine**: the bundled model, 128 new tokens, the same threads. Ratios are medians
  of 5 interleaved rounds, and `_min`/`_max` give their spread: on a 2-core machine a
  round's speed wanders by about 10 %.
- **Lanes**: `lanes2_vs_1_throughput_ratio` is the tokens per second of 2 lanes against 1;
  `raw_batch2_vs_1_ratio` is llama.cpp's own gain from a decode batch of 2 sequences, so
  `lanes_vs_raw_ratio` is how much of that gain the lanes keep. Every lane's sequence has a
  KV stream of its own (`kv_unified` off): in one unified cache a lane's logits depended on
  where other lanes' cells lay (off by up to 3.3 on Gemma after a new prompt in a reused
  cache). Steps are decoded at most 3 sequences per batch: llama.cpp's CPU matrix code
  rounds differently for 4 or more tokens, which would make 4 lanes drift from the same
  lanes run alone.
- **Start-up**: `bench/startup_bench.py`. A fresh interpreter imports the engine, finds
  the bundled model, loads it and gets its token texts, as the window's loader does.
  `model_ready_s` runs from process start (before the interpreter starts) to then, with warm
  caches. `imports_s`, `find_model_s`, `load_model_s` and `token_texts_s` split it up.
  `model_ready_cold_texts_s` gives the same run with an empty token-text cache, as on a
  model's first load.
- **GUI**: every panel live, the window at 1500 x 940, its engine in a process of its own as for a
  writer (the headless runs are in the bench's process, on a model of their own). The engine's process
  sends its events at most 30 times a second where the run decodes on every core, 60 with a core to
  spare (steps closer than that go together; `app/engine/serve.py`, `app/engine/face/cores.py`).
  The text is appended at the next turn of the event loop after each record (`gui_first_token_ms`: the first record's making
  in the engine's process, right after its decode and sampling (`StepsProduced.made_at`,
  `time.monotonic()`: Linux's CLOCK_MONOTONIC, one clock for both processes), to its paint in the
  text, the pipe included; `gui_token_latency_ms`, median and `_p95`: a record's arrival on the GUI
  thread to its paint). The panels are drawn in live frames whose spacing keeps the GUI thread's CPU time (frames,
  Qt's painting, the engine's events, the text) under 4 % of the run when decoding uses every core
  (this 2-core machine: 2 decode threads), half a core when one is idle (the run's own thread count,
  `-t`, against the cores), always 10 to 60 frames a second (`app/ui/controllers/frame_budget.py`);
  `gui_live_redraws_per_s` counts them, and `gui_paint_share` is the GUI thread's share of the run's
  wall time (`time.thread_time`, so other processes' load does not count). One warm-up pair is not
  counted; each round is printed to stderr, and `GUI_BENCH_ROUNDS=9` runs more of them;
  `GUI_BENCH_THREADS=1` decodes both runs on one thread (here: a core left to the window, as on a
  machine with more cores than decode threads). On a shared machine a round's ratio swings by tens of
  percent.
- **Cold work after a sleep** (`python -m bench.wake_cost`, not part of `make bench`): a step's message
  unpickled back to back and after 1/30 s asleep, as the window's reader thread meets it.
- **Text appends and paragraphs** (`python -m bench.text_paragraph_bench`, not part of `make bench`): a step's text
  append, painting included, over a 512-step run with the text as written and as one paragraph, by quarter.
- **Window** (`bench/window_build_bench.py`): a window on the fake backend made (`window_make_ms`, the
  least of 10 after 2 warm-ups; `window_make_median_ms`), shown at 1280 x 720 and painted
  (`window_show_ms`), and closed and deleted (`window_close_ms`), in the GUI thread's CPU time:
  what each of the UI tests' `window` fixtures pays.
- **Frames** (`bench/gui_frames.py`): a Gemma run's records (128 steps, 1 lane and 4) replayed into the
  window a step at a time, each live frame timed on the GUI thread (`time.thread_time`) from its
  start until Qt has painted everything it changed (`bench/live_replay.py`), with no decoding
  running: `gui_frame_cpu_ms` and `gui_frame_cpu_ms_4lanes` are the medians (`_p90` the 90th
  percentile). `gui_panel_<name>_ms` brings only that panel up to date (`bans` included since
  2026-12-02), `gui_text_ms` only the text.
  What made frames cheap (each measured this way, 24 ms to the figures above): titles that repaint
  only themselves (a QLabel's new text laid the whole window out again, and parsed HTML, 0.5 ms a
  title); curves over the run that append the new points and repaint only the strip they grew
  into; bars set in place and filled as whole opaque pixels (a translucent fill was 30 times
  slower); axes kept as pixmaps and without SI-prefix rescaling (which rewrote hidden axes' labels
  at every range change); a step cursor and a chosen-token marker moved in place; panels of one
  step skipped when the shown step did not change. Then (2026-12-02, issue 18, each profiled with
  cProfile on the GUI thread's clock, py-spy and a per-widget paint timer): axes that keep an image
  of every look they had (`app/ui/plots/kept_axis.py`: the stage funnel's counts, the pre/post
  panel's four heights and the x extents come back, and a look seen before is a blit instead of
  pyqtgraph's tick placement and text, 1 to 1.5 ms each); title rows laid out once per text and drawn
  from kept images of their runs, repainted from the first run that changed; bars set again only when
  they changed, repainting only the rows that did (a funnel step changes two or three of twelve); the
  bans strip setting its items only on a change (it set data, ticks and a range every frame: 1 to 2 ms);
  a few new points of a curve drawn as lines without building a path; the fork radar checking only the
  new records; plot views opaque and without pyqtgraph's background pixmap (one pass over a changed
  pixel instead of three); axes' bounding rectangles kept. Then (branch `frames`, profiled with py-spy
  and a per-item paint timer over the replay): a kept axis's new look whose ticks stand where an earlier
  look's did reuses pyqtgraph's tick placement and places the labels itself, as pyqtgraph does (the stage
  funnel's right axis, its counts and ranks, had a new look about every other step, 1.2 ms each: now
  0.4 ms, the same pixels); one pixel's size in data units kept per item until its view changes
  (pyqtgraph inverted the device transform at each of twenty-odd asks a frame); the fork radar's ticks
  filled as triangles by an item of their own (pyqtgraph's scatter paint, 0.27 ms, ran every frame: the
  step cursor crosses their row); plot views repainting the one rectangle around their changes, so that
  every item's drawing is clipped to a rectangle (Qt's fast path) rather than to a region of strips.
  Then (2026-12-03, issue 18, each change measured by the instructions a frame takes under callgrind,
  `python -m bench.frame_instructions [--lanes 4]`, which the machine's load does not move): the fork
  radar's ticks keeping the view's range as their rectangle, so a tick added at the newest step repaints
  its few pixels (their growing rectangle repainted every strip whole, each curve's path built again,
  whenever a fork was added); title rows drawing a run seen for the first time straight and making its image
  when it comes back (a value that changes every step never does); the panel plots' item and view box
  answering their bounding rectangle, shape and (empty) paint in C++ (pyqtgraph's answers were a call
  into Python at each of Qt's questions); the entropy gauge's band, edges and grid drawn by one item instead of
  eight; text panes moving their append cursor inside the edit block (outside it the last paragraph
  was laid out once more at every append) and following the end with the scroll bar; every axis
  keeping its bounding rectangle (the token axes and hidden sides asked pyqtgraph's at every paint);
  the pre/post and absorption panels keeping their x range while the medium's size changes (the bars
  stretched to fill it, `token_axis.SlotView`: pyqtgraph's range change ran at nearly every step). 1
  lane 25.47 to 20.52 million instructions a frame (-19 %), 4 lanes 28.95 to 23.91 (-17 %); by the
  day before's 5.10 and 5.94 ms for the first code, 4.1 and 4.9 ms. The 4 lanes' remaining extra is Qt's
  text layout and painting of four panes (`QWidgetTextControl::drawContents` and the text shaping
  under it, a tenth of a 4-lane frame: `callgrind_annotate --inclusive=yes` over the output of
  `python -m bench.frame_instructions --lanes 4 --keep`).
  Where the GUI thread's CPU goes during a windowed run, by part:
  `python -m bench.gui_cpu_parts` (not part of `python -m bench`: it wraps the window's methods).
- **Sweep**: 8 samples of 48 tokens (4 points x 2 seeds, batches of 4 lanes) as plain Generate
  commands and as a sweep (the raw logits' log-sum-exp at every step, metrics, CSV; the entropy
  match off). Tokens per second end to end, the median of 5 interleaved rounds; `_cpu_ratio`
  uses the process's CPU time instead. On a shared 2-core machine these swing by a factor of 2
  or more from round to round, so `sweep_overhead_share` counts the sweep's additions instead:
  the time its event handling takes on the caller's thread plus one log-sum-exp per token, as a
  share of the sweep's wall time. `sweep_match_ms_per_sample` is what a sweep sample's entropy
  match adds on the engine thread (`sweep_match_share` of a sample's time); `logsumexp_us` is
  one log-sum-exp over 262,144 float32 logits.
- **Engine process**: the window's engine runs in a process of its own (`app/engine/process.py`).
  `engine_ipc_us_per_record` is what one step record costs to cross the pipe: pickled, sent and
  unpickled (`bench/ipc_bench.py`, real records of the bundled model, one batch per step as the
  engine sends them; `_4lanes`: four records a batch, so each lane's settings are pickled once a batch).
- **Lookahead**: `bench/lookahead_bench.py`. At a fork (step 32 of a 48-token text), 4 alternatives x
  16 tokens decoded as one batch sharing the prefix's KV cache, against a 16-token branch of one lane
  from the same fork in the same warm workspace; the median of 5 interleaved rounds of wall time.
- **Presets**: `bench/presets_bench.py`. 10,000 user presets, each with settings of its own, in a
  temporary presets.json. `presets_load_10k_s`: a new store reads and checks them all (the window's
  start); `presets_save_10k_s`: one more preset saved by a store that has the file loaded (the re-read
  under the lock is skipped when the file's signature is the store's own); `presets_save_cold_10k_s`:
  the same by a store that has not read it yet. Wall time, median of 3; `_cpu_s` is the process's CPU
  time, the steadier figure on a shared machine (the target is read on it: wall time here is mostly
  other processes'). Before the first round of work: 6.6 s CPU to load and 7.7 s CPU to save 10,000
  (30,000 took 45 s and 51 s of wall time); before the second, 2.5 to 3.3 s CPU to load and 0.55 to
  0.72 s to save. What the second did (cProfile of a load): each setting was checked twice, once as
  read and again when SamplerSettings was built, through a memo whose key took `repr()` of the value
  (1.9 of 2.6 s); now `sampler.codec` keeps each JSON value's checked result under a key of plain
  look-ups (its type, its value, a float's sign) and builds the settings from the checked values
  (`sampler.settings.from_checked`: the checks across fields still run), the int32 pre-check walks
  only the integer settings, and names are checked for control characters by one regular expression;
  saving reads fields directly instead of by field path (half of a save). Two runs at load average 8
  (`python -m bench --only presets --no-doc`, 01:10 and 01:11): load 0.99 and 0.79 s CPU, save 0.50 and
  0.45 s CPU; earlier the same day at load average 6 to 8: load 0.70, 0.75, 0.81, save 0.38 to 0.67.
- **Session open**: `bench/session_apply_bench.py` (`python -m bench --only session`). A session of 4 lanes
  (the most a window holds) of 2048 tokens each (fake backend, 64 candidates a step) opened in a 1280 x 720
  window, median of 3 opens. The file is read and checked off the GUI thread (with progress and Cancel);
  what stays on the GUI thread is `session_apply_ms` (the checked session put into the state, every text
  pane drawn) and `session_redraw_ms` (the window's full redraw), in its CPU time (`time.thread_time`).
  Before this work the apply took about 2,000 ms for 4,763 records: each token was inserted into the
  text with a layout of its own, and each record's fork score computed there. Now the panes insert a
  lane's tokens in one edit block (one layout) and the reader thread scores the forks. What remains
  (the tokens' formats and inserts, then the redraw: about 0.5 s together here, growing with the tokens
  shown, about 35 us a token) is Qt widget work, which must run on the GUI thread. Two runs (01:10, 01:12): apply 283 and
  260 ms, redraw 250 and 254 ms.
  `session_save_ms` and `session_autosave_ms`: the same session written as Save writes it (deflate level 6)
  and as the last-session autosave does after every run (level 1), in the writing thread's CPU time,
  alternately, median of 3 each.
- **RPC**: every layer on one `rpc-server` on 127.0.0.1, against the same 64 tokens run in-process
  (median of 5 interleaved rounds). The server shares the client's cores and each step pays a
  loopback round trip plus 1 MiB of logits, so `rpc_vs_local_tps_ratio` is a floor for two
  machines, not a forecast. `rpc_load_s` includes sending the weights to the server.
- **RPC across hosts**: `bench/rpc_hosts.py` (`python -m bench --only rpc_hosts`; root and iproute2's `ip`).
  Two network namespaces joined by a veth pair (`bench/netlab.py`): `rpc-server` on host A, the engine on
  host B in a process of its own per round trip, 64 tokens with every layer on the server; `rpc_rtt<ms>_tps`
  with 0, 1, 5 and 20 ms added to each round trip between the hosts (plot: `docs/rpc-rtt.svg`), against
  `rpc_rtt_local_tps` (the same run on host B alone, repacking off). `rpc_rtt_tokens_equal` is 1 when every
  round trip gave the local run's tokens bit for bit. `rpc_rtt_round_trips_per_token`: what a token gains
  from 0 to 20 ms, in round trips. The round trip is added by netem where the kernel has it, else by a relay
  on host A that holds every byte half of it each way (`rpc_rtt_relay` 1; `bench/delay_relay.py`): a step's
  messages wait as on a real link, but the relay answers TCP itself, so the load's bulk transfer is not
  slowed by TCP's window. One sample per round trip: on a shared 2-core machine a run swings by 10 to 20 %.
- **Bans**: `bench/bans_bench.py` (`python -m bench --only bans`). 128 tokens with 1,000 banned
  phrases (450 hard, 450 soft, 100 regular expressions, half of them beginning with a common word so
  that partial matches and holdback happen) that never occur, against no list: the same tokens (checked),
  median of 5 interleaved rounds. `bans_1000_match_ms_per_step` is what the list adds to a step in the
  stepping thread's CPU time (fake model, no decode threads), steady where the ratio swings with load.
  `ban_rewind_ms` is the median of one rewind (state cut back, the chain rebuilt at its saved position,
  the KV cache cut and one token decoded again) over a list of phrases the model wrote in a first run;
  `ban_rewinds_timed` says how many.
"""


#: Figures of the engine's own process, written in a section of their own.
IPC_FIGURES = ("engine_ipc_us_per_record", "engine_ipc_us_per_record_4lanes")


#: Every suite's name, in the order ``make bench`` runs them (``--only`` picks one).
SUITES = ("sampler", "presets", "session", "engine", "startup", "sweep", "lookahead", "rpc", "rpc_hosts", "ipc", "bans",
          "serve", "grammar", "gui", "window", "frames", "first_run")


def _suites():
    """(name, run) of each suite, imported only when reached: each reads its sizes (``bench.size``) at import."""
    from . import sampler_bench as sb

    pick = size.pick
    yield "sampler", lambda: {**sb.chain_vs_native(pick(300, 3)), **sb.mirostat_vs_native(pick(100, 3)),
                              **sb.scatter_step(pick(3000, 3)), **sb.full_vocab_softmax(pick(40, 3)),
                              **sb.fit_stock(pick(3, 1)), **sb.knobs_cost(pick(200, 3))}
    from . import presets_bench

    yield "presets", presets_bench.run_all
    try:
        from . import session_apply_bench
    except ImportError:
        pass
    else:
        yield "session", session_apply_bench.run_all
    try:
        from . import engine_bench
    except ImportError:
        return
    yield "engine", engine_bench.run_all
    from . import startup_bench

    yield "startup", startup_bench.run_all
    from . import sweep_bench

    yield "sweep", sweep_bench.run_all
    from . import lookahead_bench

    yield "lookahead", lookahead_bench.run_all
    from . import rpc_bench

    yield "rpc", rpc_bench.run_all
    from . import rpc_hosts

    yield "rpc_hosts", rpc_hosts.run_all
    from . import ipc_bench

    yield "ipc", ipc_bench.run_all
    from . import bans_bench

    yield "bans", bans_bench.run_all
    from . import serve_bench

    yield "serve", serve_bench.run_all
    from . import grammar_bench

    yield "grammar", grammar_bench.run_all
    try:
        from . import gui_bench
    except ImportError:
        return
    yield "gui", gui_bench.run_all
    from . import window_build_bench

    yield "window", window_build_bench.run_all
    from . import gui_frames

    yield "frames", gui_frames.run_all
    from . import first_run_frames

    yield "first_run", first_run_frames.run_all


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", choices=SUITES, help="run one suite")
    parser.add_argument("--no-doc", action="store_true", help="do not rewrite docs/benchmarks.md")
    parser.add_argument("--tiny", action="store_true",
                        help="a few steps of each loop (the smoke test's size); implies --no-doc")
    args = parser.parse_args(argv)
    if args.tiny:  # before any suite is imported
        os.environ[size.TINY_ENV] = "1"
        args.no_doc = True
    figures: dict[str, float] = {}
    for name, run in _suites():
        if args.only and name != args.only:
            continue
        print(f"# {name} ...", file=sys.stderr, flush=True)
        for key, value in run().items():
            figures[key] = value
            print(f"{key}: {value:.4g}", flush=True)
    if "knobs_step_us" in figures and figures.get("sweep_generate_tps"):  # a whole step: decode and chain
        figures["knobs_share_of_step"] = figures["knobs_step_us"] * 1e-6 * figures["sweep_generate_tps"]
        print(f"knobs_share_of_step: {figures['knobs_share_of_step']:.4g}", flush=True)
    if not args.no_doc:
        if args.only:  # one suite: the others' figures stay as the document had them
            figures = {**_previous_figures(), **figures}
        _write_doc(figures, " ".join(["python -m bench"] + list(argv if argv is not None else sys.argv[1:])))
        _plot_rtt(figures)
    return 0


#: tokens/s against the added round trip (the rpc_hosts suite), drawn by every run that measured it
RTT_PLOT = DOC.parent / "rpc-rtt.svg"


def _plot_rtt(figures: dict[str, float]) -> None:
    from .rpc_hosts import FIGURE_PREFIX, RTTS_MS
    from .svg_plot import line_plot

    tps = [figures.get(f"{FIGURE_PREFIX}{rtt}_tps") for rtt in RTTS_MS]
    if None not in tps:
        line_plot(RTT_PLOT, list(RTTS_MS), tps, title="RPC across two hosts: the bundled model, every layer remote",
                  x_label="round trip added between the hosts (ms)", y_label="tokens/s")


def _previous_figures() -> dict[str, float]:
    """The figures docs/benchmarks.md holds now (its table rows), in their order."""
    found = {}
    if DOC.exists():
        for line in DOC.read_text().splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 3 and cells[0].startswith("`") and cells[0].endswith("`"):
                try:
                    found[cells[0].strip("`")] = float(cells[1])
                except ValueError:
                    pass  # "not measured yet"
    return found


def _write_doc(figures: dict[str, float], command: str = "python -m bench") -> None:
    lines = [
        "# Benchmarks",
        "",
        "Produced by `make bench` (that is, `.venv/bin/python -m bench`); every ratio is measured",
        "against llama.cpp in the same run, so it holds on other machines better than absolute times.",
        "",
        f"- date: {_dt.datetime.now().strftime('%Y-%m-%d %H:%M')}",
        f"- machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        f"- command (the last one that wrote this file): `{command}`",
        "",
        "| figure | value | target |",
        "| --- | --- | --- |",
    ]
    for key, value in figures.items():
        if key not in IPC_FIGURES:
            lines.append(f"| `{key}` | {value:.4g} | {TARGETS.get(key, '')} |")
    lines += ["", "## The engine's process", "",
              "The cost of the pipe between the engine's process and the window (filled in by that work).", "",
              "| figure | value | target |", "| --- | --- | --- |"]
    for key in IPC_FIGURES:
        value = figures.get(key)
        lines.append(f"| `{key}` | {'not measured yet' if value is None else f'{value:.4g}'} | {TARGETS.get(key, '')} |")
    lines += ["", NOTES]
    log = _measurement_log()
    if log:
        lines += ["", log]
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text("\n".join(lines))


#: The heading of the document's last section, written by hand (each figure's commands, loads and
#: rounds): kept as it is when the tables are written again.
LOG_HEADING = "## Measurement log"


def _measurement_log() -> str:
    text = DOC.read_text() if DOC.exists() else ""
    at = text.find(LOG_HEADING)
    return text[at:].rstrip() + "\n" if at >= 0 else ""


if __name__ == "__main__":
    raise SystemExit(main())
