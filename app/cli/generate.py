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
    STUCK_AFTER_CTRL_C_S,
    Interrupt,
    fail,
    one_line,
    print_out,
    read_command_line,
    route_llama_logs,
    silence_stdout,
)
from .pump import EnginePump
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


def _describe_offload(info) -> str:
    """One line: the llama.cpp build's backends and where the model's layers went."""
    note = f"; {info.note}" if info.note else ""
    return f"backend: {info.backend}; layers: {info.offload}{note}"


def _run(parsed: GenerateArgs) -> int:
    from app.engine import host
    from app.engine.face.model_info import ModelLoadError

    from .run_flags import run_options

    args, say = parsed.options, _say(parsed)
    for note in parsed.notes:
        say(f"note: {one_line(note)}")
    try:
        options = run_options(args)
        if args.tensor_split and not args.rpc:
            check_tensor_split(args, host.local_gpus())
        path = args.model or str(host.default_model_path(progress=say))
        check_trace_path(args, path)
    except UsageError as exc:
        return fail(f"{exc} ({HELP_HINT})", EXIT_USAGE)
    except (ModelLoadError, OSError, ValueError) as exc:
        return fail(str(exc), EXIT_FAILED)
    interrupt = Interrupt()
    # from the load on: a server lost, or the model file cut short under a decode, is one line
    with interrupt.installed(), exit_if_lost(bool(args.rpc)), host.sigbus_says(path):
        pump = EnginePump()
        try:
            return _run_model(pump, parsed, path, options, interrupt, say)
        except RuntimeError as exc:  # the engine thread ended without a word
            return fail(str(exc), EXIT_FAILED)
        finally:
            pump.engine.shutdown()


class _LoadFailed(Exception):
    """The engine could not load the model (its line), or Ctrl-C came first."""


def _load(pump: EnginePump, parsed: GenerateArgs, path: str, interrupt: Interrupt, say):
    """The loaded model's ModelInfo (a bundled model damaged in place, its stamp still matching, is
    verified and rebuilt after a failed load); _LoadFailed with the engine's line."""
    from app.engine import host
    from app.engine.face import commands as cmd
    from app.engine.face import events as ev
    from app.engine.face.model_info import LoadRequest

    args = parsed.options
    request = LoadRequest(path, args.gpu_layers, tuple(args.rpc), tuple(args.tensor_split), labels=False)

    def load():
        if interrupt.requested:
            raise _LoadFailed("cancelled")
        e = pump.ask(cmd.LoadModel(pump.engine.next_id(), request),
                     lambda e: isinstance(e, (ev.ModelLoaded, ev.ModelLoadFailed)), interrupt, what="the load",
                     stuck_after_s=STUCK_AFTER_CTRL_C_S if args.rpc else None)  # a load onto a frozen server
        if isinstance(e, ev.ModelLoadFailed):
            raise _LoadFailed(e.message)
        return e.info

    return load() if args.model else host.load_bundled(Path(path), load, _LoadFailed, say)


def _run_model(pump: EnginePump, parsed: GenerateArgs, path: str, options, interrupt: Interrupt, say) -> int:
    from app.engine.face import commands as cmd
    from app.engine.face.options import LaneConfig

    args = parsed.options
    say(f"loading {path} ...")
    try:
        info = _load(pump, parsed, path, interrupt, say)
    except _LoadFailed as exc:
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
            say(_describe_offload(info))
        say(f"model: {info.name} ({info.architecture}, {info.n_vocab} tokens)")
        for line in server_lines(info):
            say(line)
        configs = tuple(LaneConfig(s, f"lane {i + 1}") for i, s in enumerate(parsed.lanes))  # as --lanes counts
        stream = _Stream(trace, len(configs), options, say)
        pump.engine.submit(cmd.Generate(pump.engine.next_id(), parsed.prompt, configs, options))
        # only a call to an RPC server can keep llama.cpp waiting for good; a local batch ends, and the Ctrl-C
        # line then says how far the run got
        stuck_after_s = STUCK_AFTER_CTRL_C_S if args.rpc else None
        pump.until(lambda: stream.ended is not None, stream.handle, interrupt, pump.engine.stop, what="the run",
                   stuck_after_s=stuck_after_s)
        if stream.ended.error:
            raise _RunFailed(stream.ended.error)
        stream.finish()
        trace.close()
        if interrupt.requested:
            _interrupted(stream, trace)
            return EXIT_INTERRUPTED
        return 0
    except BrokenPipeError:  # stdout's reader went away (| head)
        _close_quietly(trace)
        silence_stdout()
        return fail("stdout was closed before the run ended (broken pipe)", EXIT_FAILED)
    except (ValueError, OSError, _RunFailed) as exc:
        _close_quietly(trace, create=False)
        return fail(str(exc), EXIT_FAILED)


class _RunFailed(Exception):
    """The run ended with an error (the engine's line)."""


class _Stream:
    """The run's events, as they come: the trace written step by step, one lane's settled text printed
    (held back where a stop string may begin), then the lanes' texts and a summary."""

    def __init__(self, trace: TraceFile, n_lanes: int, options, say):
        self.trace, self.n_lanes, self.say = trace, n_lanes, say
        self.stop_strings = options.stop_strings
        self.holdback = max((len(s) for s in options.stop_strings), default=1) - 1
        self.text = ""  # the one lane's text so far (its records' texts)
        self.printed = self.steps = 0
        self.prompt_tokens = 0
        self.t0 = time.perf_counter()
        self.ended = None  # the RunEnded event

    def handle(self, event) -> None:
        from app.engine.face import events as ev

        if isinstance(event, ev.RunStarted):
            self.prompt_tokens = len(event.starts[0][1])
            self.say(f"prompt: {self.prompt_tokens} tokens")
            self.t0 = time.perf_counter()
        elif isinstance(event, ev.StepsProduced):
            self._steps(event.records)
        elif isinstance(event, ev.RunEnded):
            self.elapsed = time.perf_counter() - self.t0
            self.ended = event

    def _steps(self, records) -> None:
        self.trace.write(records)
        self.steps += bool(records)
        if self.n_lanes != 1:
            return
        self.text += "".join(r.text for r in records)
        upto = len(self.text) - self.holdback
        for stop in self.stop_strings:  # never past a stop string: the lane's text ends before it
            at = self.text.find(stop, max(0, self.printed - len(stop)))
            if at >= 0:
                upto = min(upto, at)
        if upto > self.printed:
            print_out(self.text[self.printed:upto])
            self.printed = upto

    def finish(self) -> None:
        """Print the rest of the text and the summary."""
        results = self.ended.results
        if self.n_lanes == 1:
            print_out(results[0].text[self.printed:] + "\n")
        else:
            print_out("".join(f"=== lane {r.lane} ===\n{r.text}\n" for r in results))
        total = sum(len(r.tokens) for r in results)
        for r in results:
            detail = f" ({r.detail})" if r.detail else ""
            self.say(f"lane {r.lane}: {len(r.tokens)} tokens, stopped: {r.stop_reason.value}{detail}")
        elapsed = self.elapsed
        self.say(f"{total} tokens in {elapsed:.2f} s: {total / elapsed if elapsed else 0:.1f} tokens/s")


def _interrupted(stream: _Stream, trace: TraceFile) -> None:
    """The one line Ctrl-C leaves on stderr (printed with --quiet too)."""
    if stream.steps == 0:
        n = stream.prompt_tokens
        message = f"interrupted while decoding the prompt ({stream.ended.prompt_decoded} of {n} tokens decoded)"
    else:
        total = sum(len(r.tokens) for r in stream.ended.results)
        message = f"interrupted after {stream.steps} steps ({total} tokens)"
        if trace.path is not None:
            message += f"; the trace ends on the last complete step ({trace.lines} lines)"
    print(message, file=sys.stderr, flush=True)


def _close_quietly(trace: TraceFile, create: bool = True) -> None:
    try:
        trace.close(create=create)
    except OSError:
        pass
