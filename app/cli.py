"""``scatter-playground``: the window by default, or ``generate`` for a headless run.

``scatter-playground generate -m MODEL -p PROMPT -n N -s SEED [llama-cli sampling flags]
[--scatter-* flags] [--lanes SPEC ...] [--trace steps.jsonl]`` streams the text to
stdout and progress plus a summary to stderr.  A lane SPEC is a built-in preset
name, flags, or a preset name followed by flags (quote each SPEC).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
import time

from sampler import FlagError, SamplerSettings, parse_flags

#: The command's own flags (llama-cli's names), with how many values each takes.
RUN_FLAGS = {
    "-m": 1, "--model": 1, "-p": 1, "--prompt": 1, "-f": 1, "--file": 1,
    "-n": 1, "--predict": 1, "--n-predict": 1, "-c": 1, "--ctx-size": 1,
    "-t": 1, "--threads": 1, "-ngl": 1, "--gpu-layers": 1, "--n-gpu-layers": 1,
    "-fa": 1, "--flash-attn": 1, "-r": 1, "--reverse-prompt": 1, "--stop": 1,
    "--trace": 1, "--quiet": 0, "--no-escape": 0, "-h": 0, "--help": 0,
}


class UsageError(Exception):
    pass


def _run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="scatter-playground generate", description=__doc__, add_help=True)
    p.add_argument("-m", "--model", help="GGUF model file (default: the bundled Gemma 3 270M)")
    p.add_argument("-p", "--prompt", help="the prompt text")
    p.add_argument("-f", "--file", help="read the prompt from a file")
    p.add_argument("-n", "--predict", "--n-predict", dest="n", type=int, default=128, help="tokens to generate per lane")
    p.add_argument("-c", "--ctx-size", dest="ctx", type=int, default=4096, help="context size per lane")
    p.add_argument("-t", "--threads", type=int, default=None, help="threads (default: physical cores)")
    p.add_argument("-ngl", "--gpu-layers", "--n-gpu-layers", dest="gpu_layers", type=int, default=None)
    p.add_argument("-fa", "--flash-attn", dest="flash_attn", choices=["on", "off", "auto"], default="auto")
    p.add_argument("-r", "--reverse-prompt", "--stop", dest="stop", action="append", default=[], help="stop string")
    p.add_argument("--trace", help="write one JSON line per step to this file")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--no-escape", action="store_true",
                   help="take \\n, \\t ... in the prompt and DRY breakers literally (llama-cli turns them into characters)")
    return p


def split_lanes(argv: list[str]) -> tuple[list[str], list[str]]:
    """Take the values after ``--lanes`` (until the next known flag) out of ``argv``."""
    from sampler.flags import FLAG_BY_NAME, UNSUPPORTED

    known = set(RUN_FLAGS) | set(FLAG_BY_NAME) | set(UNSUPPORTED)
    rest, lanes, i = [], [], 0
    while i < len(argv):
        if argv[i] == "--lanes":
            i += 1
            while i < len(argv) and (" " in argv[i] or argv[i].split("=")[0] not in known):
                lanes.append(argv[i])
                i += 1
            if not lanes:
                raise UsageError("--lanes: expected at least one lane (a preset name or flags)")
            continue
        rest.append(argv[i])
        i += 1
    return rest, lanes


def lane_settings(spec: str, base: SamplerSettings) -> SamplerSettings:
    """A lane: a preset (which replaces the command line's sampling settings, the seed
    excepted) and/or flags applied on top."""
    from .builtin_presets import builtin_presets, find_builtin

    words = shlex.split(spec)
    settings = base
    if words and not words[0].startswith("-"):
        preset = find_builtin(words[0])
        if preset is None:
            names = ", ".join(p.key for p in builtin_presets())
            raise UsageError(f"--lanes: unknown preset {words[0]!r} (built in: {names})")
        settings = dataclasses.replace(preset.settings, seed=base.seed)
        words = words[1:]
    try:
        return parse_flags(words, settings)[0]
    except FlagError as exc:
        raise UsageError(f"--lanes {spec!r}: {exc}") from None


def parse_generate_args(argv: list[str]):
    rest, lane_specs = split_lanes(argv)
    settings, rest = parse_flags(rest, passthrough=RUN_FLAGS)
    args = _run_parser().parse_args(rest)
    if args.prompt is None and args.file is None:
        raise UsageError("-p/--prompt or -f/--file is required")
    if args.n < 1:
        raise UsageError(f"-n: must be at least 1, got {args.n}")
    if not args.no_escape:  # as llama-cli does
        from app.export import process_escapes

        settings = dataclasses.replace(
            settings, dry_sequence_breakers=tuple(process_escapes(b) for b in settings.dry_sequence_breakers)
        )
        if args.prompt is not None:
            args.prompt = process_escapes(args.prompt)
    lanes = [lane_settings(spec, settings) for spec in lane_specs] or [settings]
    if len(lanes) > 4:
        raise UsageError(f"--lanes: at most 4 lanes, got {len(lanes)}")
    return args, lanes


def generate(argv: list[str]) -> int:
    from app.engine.context import ContextOptions, DecodeError
    from app.engine.generation import Generation, PromptTooLong, RunOptions
    from app.engine.lane import LaneConfig
    from app.engine.model import LoadedModel, ModelLoadError, default_model_path

    try:
        args, lanes = parse_generate_args(argv)
        options = RunOptions(
            max_tokens=args.n, stop_strings=tuple(args.stop),
            context=ContextOptions(n_ctx=args.ctx, n_threads=args.threads, flash_attn=args.flash_attn),
        )
    except (UsageError, FlagError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    say = (lambda *_: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    prompt = args.prompt
    if args.file:
        try:
            prompt = open(args.file, encoding="utf-8").read()
        except OSError as exc:
            print(f"error: {args.file}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    try:
        path = args.model or default_model_path(progress=say)
        say(f"loading {path} ...")
        model = LoadedModel(path, gpu_layers=args.gpu_layers)
    except (ModelLoadError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    trace = None
    try:
        say(f"model: {model.info.name} ({model.info.architecture}, {model.info.n_vocab} tokens, "
            f"{model.info.gpu_layers} GPU layers)")
        gen = Generation(model, prompt, [LaneConfig(s, f"lane {i}") for i, s in enumerate(lanes)], options)
        trace = open(args.trace, "w", encoding="utf-8") if args.trace else None
        # Hold back what could be the start of a stop string, so it is never printed.
        holdback = max((len(s) for s in options.stop_strings), default=1) - 1
        printed = 0
        t0 = time.perf_counter()
        for records in gen:
            if trace:
                for rec in records:
                    trace.write(json.dumps(rec.to_json()) + "\n")
            if len(lanes) == 1:
                lane = gen.lanes[0]
                upto = len(lane.text) - (0 if not lane.active else holdback)
                if upto > printed:
                    sys.stdout.write(lane.text[printed:upto])
                    sys.stdout.flush()
                    printed = upto
        elapsed = time.perf_counter() - t0
        results = gen.results()
        if len(lanes) == 1:
            sys.stdout.write(results[0].text[printed:] + "\n")
        else:
            for r in results:
                sys.stdout.write(f"=== lane {r.lane} ===\n{r.text}\n")
        total = sum(len(r.tokens) for r in results)
        for r in results:
            say(f"lane {r.lane}: {len(r.tokens)} tokens, stopped: {r.stop_reason.value}"
                + (f" ({r.detail})" if r.detail else ""))
        say(f"{total} tokens in {elapsed:.2f} s: {total / elapsed if elapsed else 0:.1f} tokens/s")
        return 0
    except (PromptTooLong, ValueError, OSError, DecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        if trace:
            trace.close()
        model.close()


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "generate":
        return generate(argv[1:])
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    from app.__main__ import main as gui_main

    return gui_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
