"""The ``generate`` command line: llama-cli's run flags and sampling flags, plus ``--lanes``.

Every problem is a :class:`UsageError` whose message is one line naming the
flag and the value.  Lanes: a lane SPEC is a built-in preset name, flags, or a
preset name followed by flags.  The global sampling flags apply to every lane,
then the lane's own words on top: a lane that names a preset starts from that
preset, takes the global flags given on the command line (``-s``, ``--temp``
...), then its own flags.
"""
from __future__ import annotations

import argparse
import os
import shlex
from dataclasses import dataclass

from app.engine.generation import MAX_LANES
from app.fileio import same_file
from app.llamacpp import process_escapes
from app.presets import builtin_presets, find_builtin
from sampler import FlagError, SamplerSettings, parse_flags
from sampler.flags import FLAG_BY_NAME, UNSUPPORTED

INT32_MAX = 2**31 - 1

#: The command's own flags (llama-cli's names), with how many values each takes.
RUN_FLAGS = {
    "-m": 1, "--model": 1, "-p": 1, "--prompt": 1, "-f": 1, "--file": 1,
    "-n": 1, "--predict": 1, "--n-predict": 1, "-c": 1, "--ctx-size": 1,
    "-t": 1, "--threads": 1, "-ngl": 1, "--gpu-layers": 1, "--n-gpu-layers": 1,
    "-fa": 1, "--flash-attn": 1, "-r": 1, "--reverse-prompt": 1, "--stop": 1,
    "--trace": 1, "--quiet": 0, "--no-escape": 0, "--verbose": 0, "-h": 0, "--help": 0,
}
HELP_HINT = "see 'scatter-playground generate --help'"


class UsageError(Exception):
    """A bad command line; the message is one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would print the usage and exit
        raise UsageError(message)


def _int_in(name: str, lo: int, hi: int = INT32_MAX):
    def convert(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name}: expected an integer, got {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{name}: expected {lo} to {hi}, got {value}")
        return value

    return convert


def run_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="scatter-playground generate", description=__doc__, add_help=True, allow_abbrev=False)
    p.add_argument("-m", "--model", help="GGUF model file (default: the bundled Gemma 3 270M)")
    p.add_argument("-p", "--prompt", help="the prompt text")
    p.add_argument("-f", "--file", help="read the prompt from a file")
    p.add_argument("-n", "--predict", "--n-predict", dest="n", type=_int_in("-n", 1), default=128,
                   help="tokens to generate per lane")
    p.add_argument("-c", "--ctx-size", dest="ctx", type=_int_in("-c (context size)", 16), default=4096,
                   help="context size per lane")
    p.add_argument("-t", "--threads", type=_int_in("-t (threads)", 1, 1024), default=None,
                   help="threads (default: physical cores)")
    p.add_argument("-ngl", "--gpu-layers", "--n-gpu-layers", dest="gpu_layers", type=_int_in("-ngl (GPU layers)", 0),
                   default=None)
    p.add_argument("-fa", "--flash-attn", dest="flash_attn", choices=["on", "off", "auto"], default="auto")
    p.add_argument("-r", "--reverse-prompt", "--stop", dest="stop", action="append", default=[], help="stop string")
    p.add_argument("--trace", help="write one JSON line per step to this file")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--verbose", action="store_true", help="say which llama.cpp backend runs and what it offloads")
    p.add_argument("--no-escape", action="store_true",
                   help="take \\n, \\t ... in the prompt and DRY breakers literally (llama-cli turns them into characters)")
    return p


@dataclass
class GenerateArgs:
    options: argparse.Namespace
    prompt: str
    lanes: list[SamplerSettings]


def split_lanes(argv: list[str]) -> tuple[list[str], list[str]]:
    """Take the values after ``--lanes`` (until the next known flag) out of ``argv``."""
    known = set(RUN_FLAGS) | set(FLAG_BY_NAME) | set(UNSUPPORTED)
    rest, lanes, i = [], [], 0
    while i < len(argv):
        if argv[i] == "--lanes":
            i += 1
            start = len(lanes)
            while i < len(argv) and (" " in argv[i] or argv[i].split("=")[0] not in known):
                lanes.append(argv[i])
                i += 1
            if len(lanes) == start:
                raise UsageError("--lanes: expected at least one lane (a preset name or flags)")
            continue
        rest.append(argv[i])
        i += 1
    return rest, lanes


def lane_settings(spec: str, global_words: list[str]) -> SamplerSettings:
    """One lane: its preset (or llama.cpp's defaults), then the global flags, then its own flags."""
    try:
        words = shlex.split(spec)
    except ValueError as exc:
        raise UsageError(f"--lanes {spec!r}: cannot split it: {exc}") from None
    base = SamplerSettings()
    if words and not words[0].startswith("-"):
        preset = find_builtin(words[0])
        if preset is None:
            names = ", ".join(p.key for p in builtin_presets())
            raise UsageError(f"--lanes {spec!r}: unknown preset {words[0]!r} (built in: {names})")
        base, words = preset.settings, words[1:]
    try:
        settings, rest = parse_flags(global_words, base)
        settings, rest = parse_flags(words, settings)
    except FlagError as exc:
        raise UsageError(f"--lanes {spec!r}: {exc}") from None
    if rest:
        raise UsageError(f"--lanes {spec!r}: unexpected word(s) {' '.join(map(repr, rest))}")
    return settings


def split_run_flags(argv: list[str]) -> tuple[list[str], list[str]]:
    """(the command's own flags with their values, the sampling flags every lane takes)."""
    run, sampling, i = [], [], 0
    while i < len(argv):
        word = argv[i]
        name = word.partition("=")[0] if word.startswith("--") else word
        if name in RUN_FLAGS:
            n = 0 if word.startswith("--") and "=" in word else RUN_FLAGS[name]
            run += argv[i:i + 1 + n]
            i += 1 + n
        else:
            sampling.append(word)
            i += 1
    return run, sampling


def read_prompt(args: argparse.Namespace) -> str:
    """The prompt from ``-p`` or ``-f`` (exactly one), as valid text."""
    if args.prompt is not None and args.file is not None:
        raise UsageError("-p and -f both give a prompt: use one of them")
    if args.prompt is None and args.file is None:
        raise UsageError("-p/--prompt or -f/--file is required")
    if args.file is not None:
        try:
            with open(args.file, "rb") as f:
                raw = f.read()
        except OSError as exc:
            raise UsageError(f"-f {args.file}: {exc.strerror or exc}") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"-f {args.file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        return text[:-1] if text.endswith("\n") else text  # llama-cli drops one final newline
    try:
        args.prompt.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError("-p: the prompt is not valid UTF-8 text") from None
    return args.prompt


def check_trace_path(args: argparse.Namespace, model_path: str | None) -> None:
    """Refuse a trace file that is an input (the model, the prompt file) or a folder."""
    trace = args.trace
    if trace is None:
        return
    if os.path.isdir(trace):
        raise UsageError(f"--trace {trace}: is a folder, not a file")
    for flag, path in (("-m", model_path), ("-f", args.file)):
        if path is not None and (same_file(trace, path) or os.path.abspath(trace) == os.path.abspath(path)):
            raise UsageError(f"--trace {trace}: is the same file as {flag} {path}; it would be overwritten")


def parse_generate_args(argv: list[str]) -> GenerateArgs:
    rest, lane_specs = split_lanes(argv)
    run_words, sampling = split_run_flags(rest)
    try:
        settings, extra = parse_flags(sampling)
    except FlagError as exc:
        raise UsageError(str(exc)) from None
    if extra:
        raise UsageError(f"unexpected argument(s) {' '.join(map(repr, extra))}")
    args = run_parser().parse_args(run_words)
    prompt = read_prompt(args)
    if len(lane_specs) > MAX_LANES:
        raise UsageError(f"--lanes: at most {MAX_LANES} lanes, got {len(lane_specs)}")
    lanes = [lane_settings(spec, sampling) for spec in lane_specs] or [settings]
    if not args.no_escape:  # as llama-cli does
        try:
            lanes = [s.replace(dry_sequence_breakers=tuple(process_escapes(b) for b in s.dry_sequence_breakers))
                     for s in lanes]
            prompt = process_escapes(prompt)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    return GenerateArgs(args, prompt, lanes)
