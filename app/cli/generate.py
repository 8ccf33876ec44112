"""``scatter-playground generate``: a headless run that streams text to stdout.

Progress and a summary go to stderr (not with ``--quiet``; llama.cpp's own
warnings only with ``--verbose``).  Every failure is one line on stderr
(``error: ...``) and a non-zero exit: 2 for a bad command line, 1 for a file
or model that cannot be used.  Ctrl-C stops the run after the current step or
prompt batch, prints what was made and one line saying where it stopped, and
exits with 130; a second Ctrl-C stops at once.  The trace is written step by
step, so it always ends on a complete line, and it is created only once the
run has started: a run that fails before leaves no file behind.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from .args import HELP_HINT, GenerateArgs, UsageError, check_tensor_split, check_trace_path, parse_generate_args, run_parser
from .common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Interrupt,
    fail,
    one_line,
    print_out,
    read_command_line,
    route_llama_logs,
    run_interruptible,
    silence_stdout,
)
from .rpc_client import exit_if_lost, server_lines
from .trace_file import TraceFile


def main(argv: list[str]) -> int:
    parsed, code = read_command_line(argv, run_parser, parse_generate_args, HELP_HINT)
    if parsed is None:
        return code
    route_llama_logs(parsed.options.verbose)
    try:
        return _run(parsed)
    except KeyboardInterrupt:  # Ctrl-C before the run's own handler is in place (unpacking the model)
        print("interrupted", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED




def _say(parsed: GenerateArgs):
    if parsed.options.quiet:
        return lambda *_: None
    return lambda message: print(message, file=sys.stderr, flush=True)


def _describe_offload(model, gpu_layers: int | None) -> str:
    """One line: the llama.cpp build's backends and where the model's layers went."""
    info = model.info
    note = f"; {info.note}" if info.note else ""
    return f"backend: {info.backend}; layers: {info.offload}{note}"


def _run(parsed: GenerateArgs) -> int:
    from app.engine.face.model_info import ModelLoadError
    from app.engine.llama.model import default_model_path

    from .run_flags import run_options

    args, say = parsed.options, _say(parsed)
    for note in parsed.notes:
        say(f"note: {one_line(note)}")
    try:
        options = run_options(args)
        if args.tensor_split and not args.rpc:
            from app.engine.llama.backend import backend_info

            check_tensor_split(args, len(backend_info().gpus))
        path = args.model or str(default_model_path(progress=say))
        check_trace_path(args, path)
    except UsageError as exc:
        return fail(f"{exc} ({HELP_HINT})", EXIT_USAGE)
    except (ModelLoadError, OSError, ValueError) as exc:
        return fail(str(exc), EXIT_FAILED)
    interrupt = Interrupt()
    from app.engine.llama.model_file import sigbus_says

    # from the load on: a server lost, or the model file cut short under a decode, is one line
    with interrupt.installed(), exit_if_lost(bool(args.rpc)), sigbus_says(path):
        return _run_model(parsed, path, options, interrupt, say)


def _run_model(parsed: GenerateArgs, path: str, options, interrupt: Interrupt, say) -> int:
    from app.engine.face.model_info import ModelLoadError
    from app.engine.face.options import LaneConfig
    from app.engine.llama.context import DecodeError
    from app.engine.llama.model import LoadedModel
    from app.engine.llama.model_file import ModelFileChanged
    from app.engine.run.generation import Generation

    args = parsed.options
    say(f"loading {path} ...")

    def load() -> LoadedModel:
        return LoadedModel(path, gpu_layers=args.gpu_layers, progress=interrupt.keep_loading,
                           rpc=args.rpc, tensor_split=args.tensor_split)

    try:
        if args.model:
            model = load()
        else:  # a bundled model damaged in place (its stamp still matching) is verified and rebuilt
            from app.engine.llama.bundled_check import load_bundled

            model = load_bundled(Path(path), load, ModelLoadError, say)
    except (ModelLoadError, OSError, ValueError) as exc:
        if interrupt.requested:
            print("interrupted while loading the model", file=sys.stderr, flush=True)
            return EXIT_INTERRUPTED
        return fail(str(exc), EXIT_FAILED)
    trace = TraceFile(args.trace)
    try:
        if interrupt.requested:
            print("interrupted while loading the model", file=sys.stderr, flush=True)
            return EXIT_INTERRUPTED
        if args.verbose:
            say(_describe_offload(model, args.gpu_layers))
        say(f"model: {model.info.name} ({model.info.architecture}, {model.info.n_vocab} tokens)")
        for line in server_lines(model):
            say(line)
        configs = [LaneConfig(s, f"lane {i}") for i, s in enumerate(parsed.lanes)]
        gen = Generation(model, parsed.prompt, configs, options, should_stop=interrupt.should_stop)
        say(f"prompt: {len(gen.prompt_tokens)} tokens")
        steps = run_interruptible(lambda: _stream(gen, trace, len(configs), options, say), interrupt)
        trace.close()
        if interrupt.requested:
            _interrupted(gen, steps, interrupt, options, trace)
            return EXIT_INTERRUPTED
        return 0
    except BrokenPipeError:  # stdout's reader went away (| head)
        _close_quietly(trace)
        silence_stdout()
        return fail("stdout was closed before the run ended (broken pipe)", EXIT_FAILED)
    except (ValueError, OSError, DecodeError, ModelFileChanged) as exc:
        _close_quietly(trace, create=False)
        return fail(str(exc), EXIT_FAILED)
    finally:
        model.close()


def _stream(gen, trace: TraceFile, n_lanes: int, options, say) -> int:
    """Run to the end, printing one lane's settled text as it comes (held back where a stop string may begin).

    Returns how many steps gave records.
    """
    holdback = max((len(s) for s in options.stop_strings), default=1) - 1
    printed = steps = 0
    t0 = time.perf_counter()
    for records in gen:
        trace.write(records)
        steps += bool(records)
        if n_lanes == 1:
            lane = gen.lanes[0]
            upto = min(lane.settled_chars, len(lane.text) - (0 if not lane.active else holdback))
            if upto > printed:
                print_out(lane.text[printed:upto])
                printed = upto
    elapsed = time.perf_counter() - t0
    results = gen.results()
    if n_lanes == 1:
        print_out(results[0].text[printed:] + "\n")
    else:
        print_out("".join(f"=== lane {r.lane} ===\n{r.text}\n" for r in results))
    total = sum(len(r.tokens) for r in results)
    for r in results:
        say(f"lane {r.lane}: {len(r.tokens)} tokens, stopped: {r.stop_reason.value}" + (f" ({r.detail})" if r.detail else ""))
    say(f"{total} tokens in {elapsed:.2f} s: {total / elapsed if elapsed else 0:.1f} tokens/s")
    return steps


def _interrupted(gen, steps: int, interrupt: Interrupt, options, trace: TraceFile) -> None:
    """The one line Ctrl-C leaves on stderr (printed with --quiet too)."""
    if steps == 0:
        n = len(gen.prompt_tokens)
        decoded = min(n, interrupt.checks_passed * options.n_batch)
        message = f"interrupted while decoding the prompt ({decoded} of {n} tokens decoded)"
    else:
        total = sum(len(r.tokens) for r in gen.results())
        message = f"interrupted after {steps} steps ({total} tokens)"
        if trace.path is not None:
            message += f"; the trace ends on the last complete step ({trace.lines} lines)"
    print(message, file=sys.stderr, flush=True)


def _close_quietly(trace: TraceFile, create: bool = True) -> None:
    try:
        trace.close(create=create)
    except OSError:
        pass
