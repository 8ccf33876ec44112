"""``scatter-playground serve``: the playground as the backend of SillyTavern, Kobold Lite, mikupad or any
OpenAI client: llama-server's, OpenAI's and KoboldCpp's HTTP APIs on one model (``app/serve``).

    scatter-playground serve                         the bundled model on http://127.0.0.1:8080
    scatter-playground serve -m model.gguf -c 8192 --port 5001
    scatter-playground serve --host 0.0.0.0 --api-key KEY --cors-origin http://localhost:3000

Listens on 127.0.0.1 unless ``--host`` says otherwise; any other host needs ``--api-key`` (clients send
``Authorization: Bearer KEY``).  ``--cors-origin`` lets one browser origin call it (Kobold Lite, mikupad
opened from another address); without it no CORS header is sent.  Sampling flags (``--temp 0.7``,
``--scatter-strength 0.2`` ...) are the defaults of a request's absent fields, as llama-server's are.
Ctrl-C stops the server (a run in progress ends at its next step).  Every failure is one line on stderr:
exit 2 for a bad command line, 1 for a model that cannot be used or a port that cannot be bound.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from sampler import SamplerSettings

from .args import sampling_settings
from .common import EXIT_FAILED, EXIT_USAGE, fail, read_command_line, route_llama_logs
from .parsing import ArgParser, UsageError, check_utf8, flag_arities, int_in, split_own_flags
from .run_flags import add_run_flags, run_options

HELP_HINT = "see 'scatter-playground serve --help'"
#: llama-server's default port.
DEFAULT_PORT = 8080


def serve_parser() -> argparse.ArgumentParser:
    p = ArgParser(prog="scatter-playground serve", description=__doc__, add_help=True, allow_abbrev=False,
                  formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-m", "--model", help="GGUF model file (default: the bundled Gemma 3 270M)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", type=int_in("--port", 0, 65535), default=DEFAULT_PORT,
                   help=f"port to listen on (default: {DEFAULT_PORT}; 0: any free one)")
    p.add_argument("--api-key", default=None, metavar="KEY",
                   help="the Bearer token clients must send (required for a --host beyond this machine)")
    p.add_argument("--cors-origin", default=None, metavar="ORIGIN",
                   help="one browser origin allowed to call the server, e.g. http://localhost:5001 (null: "
                        "a page opened from a file, such as mikupad.html)")
    add_run_flags(p, only=("n_ctx", "n_threads", "flash_attn"))
    p.add_argument("-ngl", "--gpu-layers", "--n-gpu-layers", dest="gpu_layers", type=int_in("-ngl (GPU layers)", 0),
                   default=None)
    p.add_argument("--queue", type=int_in("--queue", 1, 1024), default=16,
                   help="requests that may wait beside the one running; more get 503 (default: 16)")
    p.add_argument("--max-body", type=int_in("--max-body (bytes)", 1024), default=8 * 2**20, metavar="BYTES",
                   help="the largest request body (default: 8 MiB)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--verbose", action="store_true", help="one line per request, and llama.cpp's warnings")
    return p


SERVE_FLAGS = flag_arities(serve_parser())


@dataclass
class ServeArgs:
    options: argparse.Namespace
    settings: SamplerSettings  # the defaults of a request's absent sampler fields


def check_origin(origin: str | None) -> None:
    """One origin (scheme://host[:port], or ``null``: a page opened from a file), never ``*`` nor a list."""
    from app.serve.server import check_origin as check

    try:
        check(origin)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def parse_serve_args(argv: list[str]) -> ServeArgs:
    from app.serve.server import check_exposure

    check_utf8(argv)
    own, sampling = split_own_flags(argv, SERVE_FLAGS)
    settings = sampling_settings(sampling)
    args = serve_parser().parse_args(own)
    if args.model == "":
        raise UsageError("-m: expected a model file, got '' (leave -m out for the bundled model)")
    check_origin(args.cors_origin)
    try:
        check_exposure(args.host, args.api_key)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return ServeArgs(args, settings)


def main(argv: list[str]) -> int:
    parsed, code = read_command_line(argv, serve_parser, parse_serve_args, HELP_HINT)
    if parsed is None:
        return code
    route_llama_logs(parsed.options.verbose)
    return _serve(parsed)


def _say(parsed: ServeArgs):
    if parsed.options.quiet:
        return lambda *_: None
    return lambda message: print(message, file=sys.stderr, flush=True)


def _load(pump, args, say):
    """The ModelLoaded event of the model ``args`` names (the bundled one by default); RuntimeError with the line."""
    from app.engine import host
    from app.engine.face import commands as cmd
    from app.engine.face import events as ev
    from app.engine.face.model_info import LoadRequest

    from .common import Interrupt

    path = args.model or str(host.default_model_path(progress=say))
    request = LoadRequest(path, args.gpu_layers, labels=False)

    def load():
        e = pump.ask(cmd.LoadModel(pump.engine.next_id(), request),
                     lambda e: isinstance(e, (ev.ModelLoaded, ev.ModelLoadFailed)), Interrupt(), what="the load")
        if isinstance(e, ev.ModelLoadFailed):
            raise RuntimeError(e.message)
        return e

    say(f"loading {path} ...")
    return load() if args.model else host.load_bundled(Path(path), load, RuntimeError, say)


def _serve(parsed: ServeArgs) -> int:
    import uvicorn

    from app.serve.limits import Limits
    from app.serve.server import config, make_served

    from .pump import EnginePump

    args, say = parsed.options, _say(parsed)
    try:
        options = run_options(args)
    except ValueError as exc:
        return fail(f"{exc} ({HELP_HINT})", EXIT_USAGE)
    pump = EnginePump()
    try:
        try:
            loaded = _load(pump, args, say)
            limits = Limits(body=args.max_body, queue=args.queue)
            served = make_served(pump.engine, pump.wake, loaded.info, loaded.chat_template, options,
                                 base=parsed.settings, limits=limits, api_key=args.api_key, cors_origin=args.cors_origin)
        except (RuntimeError, OSError, ValueError) as exc:
            return fail(str(exc), EXIT_FAILED)
        server = uvicorn.Server(config(served, args.host, args.port, verbose=args.verbose))
        say(f"serving {served.model_name} on http://{args.host}:{args.port} (llama-server /completion, OpenAI /v1, "
            f"KoboldCpp /api); context {options.n_ctx} tokens{'; key required' if args.api_key else ''}")
        try:
            server.run()
        finally:
            served.runner.close()
        return 0 if server.started else fail(f"could not listen on {args.host}:{args.port}", EXIT_FAILED)
    finally:
        pump.engine.shutdown()


__all__ = ["main", "parse_serve_args", "serve_parser"]
