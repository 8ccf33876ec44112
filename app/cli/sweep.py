"""``scatter-playground sweep``: run a sweep headless, into a CSV; a summary on stdout.

The engine thread does the model's work, as in the window; this command pumps
its events itself.  Progress goes to stderr (not with ``--quiet``).  Failures
are one line on stderr (``error: ...``) and an exit status: 2 for a bad command
line, 1 for a model or file that cannot be used (an output file of another
sweep included).  Ctrl-C stops after the current step: the CSV keeps every
whole group written so far, a line says how to go on (``--resume``), and the
exit status is 130; a second Ctrl-C ends the process at once.
"""
from __future__ import annotations

import os
import sys
import time

from app.core.sweep import output
from app.core.sweep.report import progress_line, summary_text
from app.core.sweep.runner import SweepRunner
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.model_info import LoadRequest

from .common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    Interrupt,
    StdoutError,
    fail,
    print_out,
    read_command_line,
    route_llama_logs,
    silence_stdout,
)
from .pump import EnginePump
from .sweep_args import HELP_HINT, SweepArgs, parse_sweep_args, sweep_parser

PROGRESS_INTERVAL_S = 0.5


def main(argv: list[str], *, loader=None) -> int:
    """``loader`` replaces the engine's model loader (tests pass the fake one)."""
    parsed, code = read_command_line(argv, sweep_parser, parse_sweep_args, HELP_HINT)
    if parsed is None:
        return code
    route_llama_logs(False)
    interrupt = Interrupt()
    with interrupt.installed():
        try:
            return _run(parsed, loader, interrupt)
        except KeyboardInterrupt:  # not on the main thread (a test): Ctrl-C arrives as an exception
            print("interrupted", file=sys.stderr, flush=True)
            return EXIT_INTERRUPTED


def _say(quiet: bool):
    return (lambda *_, **__: None) if quiet else (lambda message, end="\n": print(message, end=end, file=sys.stderr, flush=True))


def _run(parsed: SweepArgs, loader, interrupt: Interrupt) -> int:
    say = _say(parsed.options.quiet)
    pump = EnginePump(loader)
    try:
        return _load_and_sweep(pump, parsed, interrupt, say)
    except RuntimeError as exc:
        return fail(str(exc), EXIT_FAILED)
    finally:
        pump.engine.shutdown(30)


def _load_and_sweep(pump: EnginePump, parsed: SweepArgs, interrupt: Interrupt, say) -> int:
    args, plan = parsed.options, parsed.plan
    info = _load(pump, args, interrupt, say)
    if isinstance(info, int):
        return info
    header = output.make_header(plan, output.model_description(info))
    try:
        if args.resume and os.path.exists(args.output) and os.path.getsize(args.output) > 0:
            out, rows = output.resume(args.output, header)
            done = [output.row_key(r) for r in rows]
        else:  # an empty file (an older version's creation cut by a full disk) holds nothing to keep
            if args.resume:
                say(f"{args.output}: {'empty' if os.path.exists(args.output) else 'not there yet'}, starting it")
            out, done = output.create(args.output, header, force=args.force or args.resume), []
    except (OSError, ValueError) as exc:
        return fail(str(exc) if isinstance(exc, ValueError) else f"-o {args.output}: {exc.strerror or exc}",
                    EXIT_FAILED)
    from app.engine.host import sigbus_says

    # the model file cut short under a decode: one line naming it
    with sigbus_says(info.path, f"the samples written so far are in {args.output}"):
        return _sweep(pump, parsed, out, done, interrupt, say)


def _load(pump: EnginePump, args, interrupt: Interrupt, say):
    """The model's info once the engine has loaded it, or the exit status."""
    say(f"loading {args.model or 'the bundled model'} ...")
    e = pump.ask(cmd.LoadModel(pump.engine.next_id(), LoadRequest(args.model, args.gpu_layers, labels=False)),
                 lambda e: isinstance(e, (ev.ModelLoaded, ev.ModelLoadFailed)), interrupt, what="the sweep")
    if interrupt.requested:
        print("interrupted while loading the model", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    if isinstance(e, ev.ModelLoadFailed):
        return fail(e.message, EXIT_FAILED)
    say(f"model: {e.info.name} ({e.info.architecture}, {e.info.n_vocab} tokens)")
    return e.info


def _sweep(pump: EnginePump, parsed: SweepArgs, out, done, interrupt: Interrupt, say) -> int:
    args, plan = parsed.options, parsed.plan
    tty = sys.stderr.isatty()
    last = [0.0, None]
    runner = None

    def on_change():
        p = runner.progress
        now = time.monotonic()
        key = (p.done, runner.finished)
        if key != last[1] and (not tty or now - last[0] >= PROGRESS_INTERVAL_S or runner.finished):
            last[:] = [now, key]
            say(progress_line(p), end="\r" if tty and not runner.finished else "\n")

    try:
        runner = SweepRunner(pump.engine, plan, out.write_rows, done=done, threads=args.n_threads, on_change=on_change)
    except ValueError as exc:
        return fail(f"{args.output}: {exc}", EXIT_FAILED)
    say(f"{runner.progress.total} samples: {len(plan.points())} points x {len(plan.prompts)} prompts x "
        f"{len(plan.seeds)} seeds, {plan.tokens} tokens each -> {args.output}")
    runner.start()
    pump.until(lambda: runner.finished, runner.handle, interrupt, runner.cancel, what="the sweep")
    if runner.error:
        return fail(runner.error, EXIT_FAILED)
    if runner.cancelled:
        rows = runner.progress.skipped + runner.progress.written
        print(f"interrupted: {rows} of {runner.progress.total} samples are in {args.output}; "
              "run the same command with --resume to go on", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    header, rows = output.read_sweep(args.output)
    try:
        print_out(summary_text(header, rows) + "\n")
    except BrokenPipeError:
        silence_stdout()
        return fail("stdout was closed before the summary was printed (broken pipe)", EXIT_FAILED)
    except StdoutError as exc:
        return fail(f"{exc}; the sweep itself is complete in {args.output}", EXIT_FAILED)
    return 0
