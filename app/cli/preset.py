"""``scatter-playground preset convert IN OUT --to FORMAT``: a preset of one tool as another's.

Reads IN (the format guessed from its name and content, or ``--from``), writes OUT in ``--to``
(atomically; never over IN), and prints the per-field report of the import and of the export
(``--quiet``: only problems).  Formats: see :mod:`app.core.formats`.  A bad file is one line naming the
field, exit 1, and nothing is written.
"""
from __future__ import annotations

import sys

from app.actions.presets import read_tool_preset
from app.core.formats import FORMATS, FormatError, writable, write_preset
from app.core.formats.stock import nearest_stock, needs_fit
from app.fileio import atomic_write, same_file

from .common import EXIT_FAILED, EXIT_USAGE, fail
from .parsing import ArgParser, UsageError


def parser() -> ArgParser:
    p = ArgParser(prog="scatter-playground preset convert", description=__doc__, allow_abbrev=False)
    p.add_argument("input", metavar="IN", help="the preset file to read")
    p.add_argument("output", metavar="OUT", help="the file to write")
    p.add_argument("--to", required=True, choices=writable(), help="the format to write")
    p.add_argument("--from", dest="source", choices=tuple(FORMATS), help="the format of IN (default: guessed)")
    p.add_argument("--fit-stock", action="store_true",
                   help="write the nearest stock llama.cpp settings (temperature, min-p, top-p, top-n-sigma fitted "
                        "over standard steps) when IN uses samplers llama.cpp lacks")
    p.add_argument("--quiet", action="store_true", help="print no report")
    return p


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "convert":
        return fail("preset: expected 'convert IN OUT --to FORMAT' (see 'scatter-playground preset convert --help')",
                    EXIT_USAGE)
    if argv[1:2] in (["-h"], ["--help"]):
        print(parser().format_help())
        return 0
    try:
        args = parser().parse_args(argv[1:])
    except UsageError as exc:
        return fail(str(exc), EXIT_USAGE)
    if same_file(args.input, args.output):
        return fail(f"{args.output}: is the input file; write the conversion somewhere else", EXIT_USAGE)
    try:
        imported = read_tool_preset(args.input, args.source)
        settings, fitted = imported.settings, None
        if args.fit_stock and needs_fit(settings):
            settings, _fit, fitted = nearest_stock(settings)
        data, written = write_preset(settings, args.to)
        atomic_write(args.output, data)
    except FormatError as exc:
        return fail(str(exc), EXIT_FAILED)
    except (OSError, ValueError) as exc:
        return fail(f"{getattr(exc, 'filename', None) or args.input}: {getattr(exc, 'strerror', None) or exc}", EXIT_FAILED)
    if not args.quiet:
        reports = [(f"read {args.input} as {imported.report.format}", imported.report)]
        reports += [("nearest stock llama.cpp", fitted)] if fitted else []
        for title, report in reports + [(f"wrote {args.output} as {written.format}", written)]:
            print(f"{title}: {report.summary()}")
            for line in report.lines():
                print(f"  {line}")
    else:
        for note in imported.report.by_status("unknown") + written.by_status("dropped"):
            print(f"  {note.line()}", file=sys.stderr)
    return 0
