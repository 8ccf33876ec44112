"""The ``sweep`` command line: swept flags with ranges, fixed flags, the base preset, prompts, seeds, output.

Any numeric sampling flag whose value is a range (``start:stop:step``, stop
included, or ``a,b,c``) is swept: one such flag, or two as a grid.  Every other
sampling flag sets the base, on top of ``--preset``.  ``-s/--seed`` is the
first of the ``--seeds`` seeds every point runs with.  Every problem is a
:class:`~app.cli.args.UsageError` whose message is one line naming the flag.
"""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

from app.core.sweep.build import MAX_SEED, build_plan
from app.core.sweep.plan import SweepPlan
from app.core.sweep.ranges import is_range
from sampler.flags import FLAG_BY_NAME

from .outputs import check_output
from .parsing import ArgParser, UsageError, check_utf8, flag_arities, int_in
from .run_flags import add_run_flags

HELP_HINT = "see 'scatter-playground sweep --help'"

EPILOG = """sampling flags: any numeric llama-cli sampling flag with a range (start:stop:step, stop included,
or a,b,c) is swept, e.g. --scatter-strength 0:0.5:0.05; give two for a grid. Other sampling flags
(--top-k 64) set the base on top of --preset.

example: scatter-playground sweep --preset creative-writing --scatter-strength 0:0.4:0.1
         --baseline-temp 0.6:1.4:0.2 --prompts assets/prompts --seeds 3 -n 48 -o sweep.csv"""


def sweep_parser() -> argparse.ArgumentParser:
    p = ArgParser(prog="scatter-playground sweep", description="Measure what a sampling flag does: diversity "
                "against likelihood, per sample, into a CSV.", epilog=EPILOG, allow_abbrev=False,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", required=True, help="the CSV to write (first line: '# ' and a JSON header)")
    p.add_argument("--resume", action="store_true", help="go on with OUTPUT: skip the samples already in it")
    p.add_argument("--force", action="store_true", help="overwrite OUTPUT")
    p.add_argument("--preset", default="off", help="the base preset (a built-in key or name; default: off)")
    p.add_argument("--baseline-temp", dest="baseline", metavar="RANGE",
                   help="also sweep the temperature with scatter off over this range (the baseline)")
    p.add_argument("--prompts", action="append", default=[], metavar="PATH",
                   help="a prompt file, or a folder of .txt prompts (again for more; default: assets/prompts)")
    p.add_argument("-p", "--prompt", dest="texts", action="append", default=[], help="a prompt as text (again for more)")
    p.add_argument("--seeds", type=int_in("--seeds", 1, 1000), default=3, help="seeds per prompt (default 3)")
    p.add_argument("-s", "--seed", type=int_in("--seed", 0, MAX_SEED), default=1, help="the first seed (default 1)")
    p.add_argument("-n", "--predict", "--n-predict", dest="n", type=int_in("-n", 1, 65536), default=48,
                   help="tokens per sample (default 48)")
    p.add_argument("--no-match", action="store_true", help="skip each sample's entropy-matched temperature")
    p.add_argument("-m", "--model", help="GGUF model file (default: the bundled Gemma 3 270M)")
    add_run_flags(p, {"n_ctx": 2048}, only=("n_ctx", "n_threads"))
    p.add_argument("-ngl", "--gpu-layers", "--n-gpu-layers", dest="gpu_layers", type=int_in("-ngl (GPU layers)", 0),
                   default=None)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return p


def _own_flags() -> dict[str, int]:
    return flag_arities(sweep_parser())


@dataclass
class SweepArgs:
    options: argparse.Namespace
    plan: SweepPlan


def split_words(argv: list[str]) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """(the command's own words, (flag, range) pairs to sweep, the base's sampling words)."""
    own_flags = _own_flags()
    own, axes, fixed, i = [], [], [], 0
    while i < len(argv):
        word = argv[i]
        name, eq, inline = word.partition("=") if word.startswith("--") else (word, "", "")
        arity = own_flags.get(name)
        if arity is not None:
            n = 0 if eq else arity
            own += argv[i:i + 1 + n]
            i += 1 + n
            continue
        flag = FLAG_BY_NAME.get(name)
        if flag is not None and flag.numeric:
            value = inline if eq else (argv[i + 1] if i + 1 < len(argv) else None)
            if value is not None and is_range(value):
                axes.append((name, value))
                i += 1 if eq else 2
                continue
        fixed.append(word)
        i += 1
    return own, axes, fixed


def parse_sweep_args(argv: list[str]) -> SweepArgs:
    """The checked command line; a :class:`UsageError` names the first problem found."""
    check_utf8(argv)
    own, axes, fixed = split_words(argv)
    args = sweep_parser().parse_args(own)
    if args.model == "":
        raise UsageError("-m: expected a model file, got '' (leave -m out for the bundled model)")
    if args.resume and args.force:
        raise UsageError("--resume and --force: choose one (go on with the file, or overwrite it)")
    try:
        plan = build_plan(axes, preset=args.preset, fixed=fixed, baseline=args.baseline or "",
                          prompt_paths=args.prompts, prompt_texts=args.texts, seeds=args.seeds, first_seed=args.seed,
                          tokens=args.n, n_ctx=args.n_ctx, match=not args.no_match)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    _check_output(args)
    return SweepArgs(args, plan)


def _check_output(args) -> None:
    """``-o``: never an input (the model, bundled or given, a --prompts file), and not overwritten by chance."""
    from app.engine.host import expected_path

    out = args.output
    model = ("-m", args.model) if args.model else ("the bundled model", expected_path())
    check_output("-o", out, (model, *(("--prompts", p) for p in args.prompts)))
    if os.path.exists(out) and not (args.resume or args.force):
        raise UsageError(f"-o {out}: exists; add --resume to go on with it, or --force to overwrite it")
