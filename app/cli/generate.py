"""``scatter-playground generate``: a headless run that streams text to stdout.

Progress and a summary go to stderr.  Every failure is one line on stderr
(``error: ...``) and a non-zero exit: 2 for a bad command line, 1 for a file
or model that cannot be used, 130 after Ctrl-C (the trace then ends on a
complete line).  Nothing is written before the inputs are known to be good.
"""
from __future__ import annotations

import json
import sys
import time

from .args import HELP_HINT, GenerateArgs, UsageError, check_trace_path, parse_generate_args

EXIT_USAGE, EXIT_FAILED, EXIT_INTERRUPTED = 2, 1, 130


def fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr, flush=True)
    return code


class TraceFile:
    """One JSON line per step; a write error ends the run with one line, not a traceback."""

    def __init__(self, path: str | None):
        self.path = path
        self.file = None
        if path is not None:
            try:
                self.file = open(path, "w", encoding="utf-8")
            except OSError as exc:
                raise TraceError(f"--trace {path}: cannot be written ({exc.strerror or exc})") from None

    def write(self, records) -> None:
        if self.file is None:
            return
        lines = "".join(json.dumps(rec.to_json(), allow_nan=False) + "\n" for rec in records)
        try:
            self.file.write(lines)
        except OSError as exc:
            raise TraceError(f"--trace {self.path}: writing failed ({exc.strerror or exc})") from None

    def close(self) -> None:
        if self.file is None:
            return
        file, self.file = self.file, None
        try:
            file.close()
        except OSError as exc:
            raise TraceError(f"--trace {self.path}: writing failed ({exc.strerror or exc})") from None


class TraceError(OSError):
    pass


def main(argv: list[str]) -> int:
    if any(a in ("-h", "--help") for a in argv):
        from .args import run_parser

        run_parser().print_help()
        return 0
    try:
        parsed = parse_generate_args(argv)
    except UsageError as exc:
        return fail(f"{exc} ({HELP_HINT})", EXIT_USAGE)
    try:
        return _run(parsed)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED


def _say(parsed: GenerateArgs):
    if parsed.options.quiet:
        return lambda *_: None
    return lambda message: print(message, file=sys.stderr, flush=True)


def _load(parsed: GenerateArgs, say):
    from app.engine.model import LoadedModel, default_model_path

    args = parsed.options
    path = args.model or str(default_model_path(progress=say))
    check_trace_path(args, path)
    say(f"loading {path} ...")
    model = LoadedModel(path, gpu_layers=args.gpu_layers)
    if args.verbose:
        from app.engine.backend import describe_offload

        say(describe_offload(model, args.gpu_layers))
    return model


def _run(parsed: GenerateArgs) -> int:
    from app.engine.context import ContextOptions, DecodeError
    from app.engine.generation import Generation, RunOptions
    from app.engine.lane import LaneConfig
    from app.engine.model_info import ModelLoadError

    args, say = parsed.options, _say(parsed)
    try:
        options = RunOptions(
            max_tokens=args.n, stop_strings=tuple(args.stop),
            context=ContextOptions(n_ctx=args.ctx, n_threads=args.threads, flash_attn=args.flash_attn),
        )
        model = _load(parsed, say)
    except UsageError as exc:
        return fail(f"{exc} ({HELP_HINT})", EXIT_USAGE)
    except (ModelLoadError, OSError, ValueError) as exc:
        return fail(str(exc), EXIT_FAILED)
    trace = None
    try:
        say(f"model: {model.info.name} ({model.info.architecture}, {model.info.n_vocab} tokens)")
        configs = [LaneConfig(s, f"lane {i}") for i, s in enumerate(parsed.lanes)]
        gen = Generation(model, parsed.prompt, configs, options)
        trace = TraceFile(args.trace)
        _stream(gen, trace, len(configs), options, say)
        trace.close()
        return 0
    except KeyboardInterrupt:
        _interrupted(trace, say)
        return EXIT_INTERRUPTED
    except (ValueError, OSError, DecodeError) as exc:
        if trace is not None:
            _close_quietly(trace)
        return fail(str(exc), EXIT_FAILED)
    finally:
        model.close()


def _stream(gen, trace: TraceFile, n_lanes: int, options, say) -> None:
    """Run to the end, printing one lane's text as it comes (held back where a stop string may begin)."""
    holdback = max((len(s) for s in options.stop_strings), default=1) - 1
    printed = 0
    t0 = time.perf_counter()
    for records in gen:
        trace.write(records)
        if n_lanes == 1:
            lane = gen.lanes[0]
            upto = len(lane.text) - (0 if not lane.active else holdback)
            if upto > printed:
                sys.stdout.write(lane.text[printed:upto])
                sys.stdout.flush()
                printed = upto
    elapsed = time.perf_counter() - t0
    results = gen.results()
    if n_lanes == 1:
        sys.stdout.write(results[0].text[printed:] + "\n")
    else:
        for r in results:
            sys.stdout.write(f"=== lane {r.lane} ===\n{r.text}\n")
    sys.stdout.flush()
    total = sum(len(r.tokens) for r in results)
    for r in results:
        say(f"lane {r.lane}: {len(r.tokens)} tokens, stopped: {r.stop_reason.value}" + (f" ({r.detail})" if r.detail else ""))
    say(f"{total} tokens in {elapsed:.2f} s: {total / elapsed if elapsed else 0:.1f} tokens/s")


def _interrupted(trace: TraceFile | None, say) -> None:
    if trace is not None:
        _close_quietly(trace)
    sys.stdout.write("\n")
    sys.stdout.flush()
    print("interrupted: the trace ends on the last complete step", file=sys.stderr, flush=True)


def _close_quietly(trace: TraceFile) -> None:
    try:
        trace.close()
    except OSError:
        pass
