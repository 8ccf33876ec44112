"""The ``generate`` command line: llama-cli's run flags and sampling flags, plus ``--lanes``.

Every problem is a :class:`UsageError` whose message is one line naming the
flag and the value.  Lanes: a lane SPEC is a built-in preset name, flags, or a
preset name followed by flags.  The global sampling flags apply to every lane,
then the lane's own words on top: a lane that names a preset starts from that
preset, takes the global flags given on the command line (``-s``, ``--temp``
...), then its own flags.

It also takes what "Copy as llama.cpp" writes for llama-completion, so an
exported command runs here with only the program name changed: ``-no-cnv``
(``--no-conversation``), ``--no-display-prompt`` and ``--no-context-shift``
are accepted as no-ops (``generate`` never applies a chat template, prints
only the generated text and stops when the context is full), and flags of
features the playground lacks are accepted when they switch them off
(``--grammar ""``; :mod:`app.core.llamacpp.off_values`), with a note on stderr.
"""
from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass, field

from app.core.llamacpp import process_escapes, strip_off_values
from app.core.presets import builtin_presets, find_builtin
from app.engine.face.endpoints import parse_endpoints, parse_tensor_split, tensor_split_problem
from app.engine.face.options import MAX_LANES
from app.fileio import read_prompt_file
from sampler import FlagError, SamplerSettings, parse_flags
from sampler.flags import FLAG_BY_NAME, UNSUPPORTED

from .outputs import check_output
from .parsing import INT32_MAX, ArgParser, UsageError, check_utf8, checked, flag_arities, int_in, is_utf8, split_own_flags
from .run_flags import add_run_flags

#: A longer prompt file is refused (it could not fit any context anyway; ``-f /dev/zero`` ends here).
MAX_PROMPT_BYTES = 64 * 2**20

HELP_HINT = "see 'scatter-playground generate --help'"


def run_parser() -> argparse.ArgumentParser:
    p = ArgParser(prog="scatter-playground generate", description=__doc__, add_help=True, allow_abbrev=False)
    p.add_argument("-m", "--model", help="GGUF model file (default: the bundled Gemma 3 270M)")
    p.add_argument("-p", "--prompt", help="the prompt text")
    p.add_argument("-f", "--file", help="read the prompt from a file")
    add_run_flags(p, {"max_tokens": 128})  # the run options' flags (RunOptions), generate's own default for -n
    p.add_argument("-ngl", "--gpu-layers", "--n-gpu-layers", dest="gpu_layers", type=int_in("-ngl (GPU layers)", 0),
                   default=None)
    p.add_argument("--rpc", type=checked(parse_endpoints), default=(), metavar="SERVERS",
                   help="llama.cpp RPC servers host:port[,host:port...] that take the offloaded layers")
    p.add_argument("-ts", "--tensor-split", dest="tensor_split", type=checked(parse_tensor_split), default=(),
                   metavar="N0,N1,...", help="share of the offloaded layers per device, e.g. 3,1")
    p.add_argument("--trace", help="write one JSON line per step to this file")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--verbose", action="store_true", help="say which llama.cpp backend runs and what it offloads")
    p.add_argument("--no-escape", action="store_true",
                   help="take \\n, \\t ... in the prompt, stop strings and DRY breakers literally "
                        "(llama.cpp turns them into characters)")
    same = "accepted for llama-completion's command line; generate does this anyway"
    p.add_argument("-no-cnv", "--no-conversation", dest="no_conversation", action="store_true",
                   help=f"no chat template ({same})")
    p.add_argument("--no-display-prompt", action="store_true", help=f"print only the generated text ({same})")
    p.add_argument("--no-context-shift", action="store_true", help=f"stop when the context is full ({same})")
    return p


#: The command's own flags (llama-cli's names, and llama-completion's no-ops), with how many values each takes.
RUN_FLAGS = flag_arities(run_parser())


@dataclass
class GenerateArgs:
    options: argparse.Namespace
    prompt: str
    lanes: list[SamplerSettings]
    notes: list[str] = field(default_factory=list)  # flags accepted but ignored (--grammar "" ...)


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


def lane_settings(spec: str, global_words: list[str], index: int = 0) -> SamplerSettings:
    """Lane ``index`` (from 0): its preset (or llama.cpp's defaults), then the global flags, then its own flags."""
    return _lane(spec, global_words, index)[0]


def _lane(spec: str, global_words: list[str], index: int) -> tuple[SamplerSettings, list[str]]:
    """The lane's settings and the notes on its ignored flags."""
    where = f"--lanes: lane {index + 1} ({spec!r})"
    try:
        words = shlex.split(spec)
    except ValueError as exc:
        raise UsageError(f"{where}: cannot split it into words: {exc}") from None
    base = SamplerSettings()
    if words and not words[0].startswith("-"):
        preset = find_builtin(words[0])
        if preset is None:
            names = ", ".join(p.key for p in builtin_presets())
            raise UsageError(f"{where}: unknown preset {words[0]!r} (built in: {names})")
        base, words = preset.settings, words[1:]
    global_words, _ = strip_off_values(global_words)  # their notes are the command line's
    words, notes = strip_off_values(words)
    try:
        settings, rest = parse_flags(global_words, base)
        settings, rest = parse_flags(words, settings)
    except FlagError as exc:
        raise UsageError(f"{where}: {exc}") from None
    if rest:
        raise UsageError(f"{where}: unexpected word(s) {' '.join(map(repr, rest))}")
    return settings, [f"lane {index + 1}: {note}" for note in notes]


def split_run_flags(argv: list[str]) -> tuple[list[str], list[str]]:
    """(the command's own flags with their values, the sampling flags every lane takes)."""
    return split_own_flags(argv, RUN_FLAGS)


def read_prompt(args: argparse.Namespace) -> str:
    """The prompt from ``-p`` or ``-f`` (exactly one), as valid text."""
    if args.prompt is not None and args.file is not None:
        raise UsageError("-p and -f both give a prompt: use one of them")
    if args.prompt is None and args.file is None:
        raise UsageError("-p/--prompt or -f/--file is required")
    if args.file is not None:
        if args.file == "":
            raise UsageError("-f: expected a file name, got ''")
        try:
            return read_prompt_file(args.file, MAX_PROMPT_BYTES)
        except OSError as exc:
            raise UsageError(f"-f {args.file}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise UsageError(f"-f {args.file}: {exc}") from None
    if not is_utf8(args.prompt):
        raise UsageError("-p: the prompt is not valid UTF-8 text")
    return args.prompt


def check_trace_path(args: argparse.Namespace, model_path: str | None) -> None:
    """Refuse a trace file that is an input (the model, the prompt file), a folder, or in no folder."""
    if args.trace is not None:
        model_flag = "-m" if args.model else "the bundled model"
        check_output("--trace", args.trace, ((model_flag, model_path), ("-f", args.file)), regular=False)


def check_tensor_split(args: argparse.Namespace, local_gpus: int) -> None:
    """``-ts`` shares the offloaded layers among devices: without ``--rpc`` only this machine's GPUs.

    With fewer than two of them there is nothing to share, and llama.cpp would ignore it without a word.
    """
    problem = tensor_split_problem(args.tensor_split, args.rpc, local_gpus)
    if problem:
        raise UsageError(problem)


def _unescape(text: str, where: str) -> str:
    try:
        return process_escapes(text)
    except ValueError as exc:
        raise UsageError(f"{where}: {exc}") from None


def parse_generate_args(argv: list[str]) -> GenerateArgs:
    """The checked command line; a :class:`UsageError` names the first problem found."""
    check_utf8(argv)
    rest, lane_specs = split_lanes(argv)
    run_words, sampling = split_run_flags(rest)
    kept, notes = strip_off_values(sampling)
    settings = sampling_settings(kept)
    args = run_parser().parse_args(run_words)
    prompt = read_prompt(args)
    for stop in args.stop_strings:
        if stop == "":
            raise UsageError("-r: an empty stop string would stop at once")
    if args.model == "":  # not "the bundled model": an empty name is a mistake (an unset variable)
        raise UsageError("-m: expected a model file, got '' (leave -m out for the bundled model)")
    check_trace_path(args, args.model)
    if len(lane_specs) > MAX_LANES:
        raise UsageError(f"--lanes: at most {MAX_LANES} lanes, got {len(lane_specs)}")
    made = [_lane(spec, sampling, i) for i, spec in enumerate(lane_specs)]
    lanes = [lane for lane, _ in made] or [settings]
    notes += [note for _, lane_notes in made for note in lane_notes]
    if args.n_ctx * len(lanes) > INT32_MAX:
        raise UsageError(
            f"-c {args.n_ctx}: {len(lanes)} lanes of {args.n_ctx} tokens are more than llama.cpp's limit of {INT32_MAX}"
        )
    if not args.no_escape:  # as llama.cpp does (common_params_parse: the prompt, reverse prompts, breakers)
        prompt = _unescape(prompt, "-p" if args.file is None else f"-f {args.file}")
        args.stop_strings = [_unescape(stop, "-r") for stop in args.stop_strings]
        lanes = [
            s.replace(dry_sequence_breakers=tuple(
                _unescape(b, f"--dry-sequence-breaker{f' (lane {i + 1})' if lane_specs else ''}")
                for b in s.dry_sequence_breakers
            ))
            for i, s in enumerate(lanes)
        ]
    return GenerateArgs(args, prompt, lanes, notes)


def sampling_settings(words: list[str]) -> SamplerSettings:
    """The settings llama.cpp's sampling flags in ``words`` make; a bad flag or a word left over is the
    UsageError (generate's and serve's command lines)."""
    try:
        settings, extra = parse_flags(words)
    except FlagError as exc:
        raise UsageError(str(exc)) from None
    if extra:
        raise UsageError(f"unexpected argument(s) {' '.join(map(repr, extra))}")
    return settings
