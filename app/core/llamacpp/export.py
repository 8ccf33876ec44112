"""Settings as a llama.cpp command line, and the scatter C call (a run's command: :mod:`.run_export`).

Two kinds of line:

* :func:`llama_cli_command` / :func:`export_text`: the sampling settings only
  (``-m MODEL --seed N`` and the flags), for pasting into any llama.cpp program.
* :func:`export_run` (:mod:`app.core.llamacpp.run_export`): the whole run, the
  command that, against the same model, produces the same text.

* llama.cpp processes escapes in the prompt, the reverse prompts and the DRY
  breakers, so all are written escaped (:func:`app.core.llamacpp.shell.escape`): the
  line stays one line and llama.cpp reads back exactly the text.  A breaker
  that is literally ``none`` is written ``\\x6eone``, since llama.cpp reads a
  bare ``none`` as "no breakers" before it processes escapes.
* ``min_keep`` has no command-line flag; a note says so.
* Banned phrases: single-token ones as ``--logit-bias TOKEN-inf``, the rest in
  a note (:mod:`app.core.llamacpp.phrases`; ``token_texts``: the model's).
"""
from __future__ import annotations

import os

from app.engine.face.options import RunOptions
from sampler.emulated import active_stages_not_in_llamacpp, fields_of_stage
from sampler.flags import quote, to_flags
from sampler.flagtable import FLAG_BY_NAME, ROW_BY_FIELD
from sampler.settings import SamplerSettings
from sampler.stageargs import scatter_ext_args

from .options import BREAKER
from .phrases import phrase_notes, resolve_phrases
from .run import within_context
from .shell import escape

#: Stands for the model file when the caller gives none.
MODEL_PLACEHOLDER = "MODEL.gguf"
#: The comment line :func:`export_text` adds when the line needs the scatter build.
SCATTER_BUILD_NOTE = ("# stock llama.cpp cannot run this: it needs the scatter fork "
                      "(llama.cpp with the scatter sampler and its --scatter-* flags)")
#: What an export is for: llama.cpp as released, or the fork with the scatter sampler.
STOCK_TARGET = "stock llama.cpp"
FORK_TARGET = "the scatter fork"

#: The programs of the llama.cpp that llama-cpp-python 0.3.36 vendors.
PLAIN_PROGRAM = "llama-completion"
CHAT_PROGRAM = "llama-cli"
SERVER_PROGRAM = "llama-server"
PROGRAMS = (PLAIN_PROGRAM, CHAT_PROGRAM)
#: Settings fields whose flags are always written: a GGUF's ``general.sampling.*`` can change their defaults.
PINNED_FIELDS = frozenset({
    "samplers", "temp", "top_k", "top_p", "min_p", "xtc_probability", "xtc_threshold", "penalty_last_n",
    "penalty_repeat", "mirostat",
})
#: Written too while mirostat is on (the GGUF's ``general.sampling.mirostat_tau`` / ``_eta``).
MIROSTAT_FIELDS = frozenset({"mirostat_eta", "mirostat_tau"})
#: A prompt whose escaped text is longer goes to a file (``prompt_mode="auto"``).
INLINE_PROMPT_MAX = 300
PROMPT_MODES = ("auto", "inline", "file")


def _context(n_ctx: int | None) -> int:
    return RunOptions().n_ctx if n_ctx is None else n_ctx


def escape_breaker(breaker: str) -> str:
    text = escape(breaker)
    return "\\x6eone" if text == "none" else text


def flag_units(words: list[str]) -> list[list[str]]:
    """Flag words (as :func:`sampler.flags.to_flags` writes them) grouped per flag: name, then its value."""
    units, i = [], 0
    while i < len(words):
        row = FLAG_BY_NAME.get(words[i])
        n = 1 if row is not None and row.kind == "switch" else 2
        units.append(words[i:i + n])
        i += n
    return units


def stock_units(settings: SamplerSettings, units: list) -> list:
    """``units`` without the scatter flags while scatter is off: stock llama.cpp refuses every
    ``--scatter-*`` flag ("invalid argument"), and with scatter off they change nothing, so the line
    runs in stock llama.cpp.  (A unit is a flag's words, or a (field, words) pair.)"""
    if settings.scatter.enabled:
        return units
    words = [u[1] if isinstance(u, tuple) else u for u in units]
    return [u for u, w in zip(units, words) if FLAG_BY_NAME[w[0]].upstream]


def sampling_flags(settings: SamplerSettings, order: str = "samplers", only_changed: bool = True) -> list[str]:
    """The sampling flags as llama.cpp reads them (breakers escaped), seed left out; no scatter flags
    while scatter is off (:func:`stock_units`)."""
    words = to_flags(settings, only_changed=only_changed, order=order, include_seed=False)
    flags = [w for unit in stock_units(settings, flag_units(words)) for w in unit]
    out, i = [], 0
    while i < len(flags):
        out.append(flags[i])
        if flags[i] == BREAKER:
            value = flags[i + 1]
            out.append(value if value == "none" and not settings.dry_sequence_breakers else escape_breaker(value))
            i += 2
            continue
        i += 1
    return out


def command_args(
    settings: SamplerSettings,
    *,
    model_path: str | os.PathLike | None = None,
    prompt: str | None = None,
    include_prompt: bool = False,
    order: str = "samplers",
    only_changed: bool = True,
    program: str = "llama-cli",
    n_ctx: int | None = None,
) -> list[str]:
    """The arguments (unquoted), program first: ``-m MODEL [-p PROMPT] --seed N`` then the sampling flags.
    ``n_ctx``: the context size the line is meant for (default: the playground's, ``RunOptions().n_ctx``); a
    look-back longer than it is written as it (:func:`app.core.llamacpp.run.within_context`)."""
    if not isinstance(settings, SamplerSettings):
        raise TypeError(f"settings: expected SamplerSettings, got {type(settings).__name__}")
    settings = within_context(settings, _context(n_ctx))[0]
    args = [program, "-m", MODEL_PLACEHOLDER if model_path is None else os.fspath(model_path)]
    if include_prompt and prompt is not None:
        args += ["-p", escape(str(prompt))]
    args += ["--seed", str(settings.seed)]
    return args + sampling_flags(settings, order, only_changed)


def llama_cli_command(settings: SamplerSettings, **kwargs) -> str:
    """One shell-quoted command line (see :func:`command_args` for the arguments)."""
    return quote(command_args(settings, **kwargs))


def has_scatter_flags(words: list[str]) -> bool:
    """Whether flag words carry a ``--scatter-*`` flag, which stock llama.cpp refuses ("invalid argument");
    an unknown name in ``--samplers`` it only warns about and leaves out."""
    return any(not FLAG_BY_NAME[unit[0]].upstream for unit in flag_units(words) if unit[0] in FLAG_BY_NAME)


def needs_scatter_build(settings: SamplerSettings, *, only_changed: bool = True) -> bool:
    """Whether the exported line needs the scatter fork: it carries ``--scatter-*`` flags (scatter is on)."""
    return has_scatter_flags(sampling_flags(settings, "samplers", only_changed))


#: The note on a line whose ``--samplers`` names scatter while scatter is off.
IDLE_SCATTER_NOTE = ("stock llama.cpp warns that it cannot match the sampler 'scatter' and leaves it out; "
                     "scatter does nothing with these settings, so the text is the same")


def export_text(settings: SamplerSettings, *, only_changed: bool = True, token_texts=None, n_ctx: int | None = None,
                **kwargs) -> str:
    """The command line, preceded by comment lines where it needs a word of warning.

    The result can be pasted into a shell or back into :func:`app.core.llamacpp.import_command`.
    ``token_texts``: the model's, to write single-token banned phrases as ``--logit-bias``.  ``n_ctx``: the
    context size the line is meant for (default: the playground's, ``RunOptions().n_ctx``); a look-back of
    the whole context is written as it (:func:`app.core.llamacpp.run.within_context`).
    """
    settings, context_notes = within_context(settings, _context(n_ctx))
    px = resolve_phrases(settings, token_texts)
    settings = px.settings
    line = llama_cli_command(settings, only_changed=only_changed, n_ctx=n_ctx, **kwargs)
    notes = [f"# {n}" for n in phrase_notes(px) + context_notes]  # a phrase is one line
    if needs_scatter_build(settings, only_changed=only_changed):
        notes.append(SCATTER_BUILD_NOTE)
    elif "scatter" in settings.samplers and ("--samplers" in line or "--sampler-seq" in line):
        notes.append(f"# {IDLE_SCATTER_NOTE}")
    if settings.min_keep != 0:
        notes.append(f"# min_keep={settings.min_keep} has no llama-cli flag (set it through the llama.cpp API)")
    notes += [f"# {n}" for n in not_in_llamacpp_notes(settings)]
    return "\n".join(notes + [line])


def not_in_llamacpp_notes(settings: SamplerSettings) -> list[str]:
    """One line per active stage no llama.cpp has: llama.cpp skips its ``--samplers`` name with a warning."""
    out = []
    for name in active_stages_not_in_llamacpp(settings):
        values = ", ".join(f"{f}={settings.get(f)!r}" for f in fields_of_stage(name))
        out.append(f"{name} ({values}) is not in llama.cpp: llama.cpp skips the stage "
                   "with a warning, only the playground runs it")
    return out


def c_literal(value, ctype: str | None) -> str:
    """``value`` as a C literal of its type: ``true``/``false``, ``1.5f`` for a float, ``1.5`` for a double."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if ctype in ("float32", "double"):
        text = repr(float(value))
        if "e" not in text and "." not in text and "n" not in text:
            text += ".0"
        return text + ("f" if ctype == "float32" else "")
    return str(value)


def scatter_ext_call(settings: SamplerSettings) -> str:
    """``llama_sampler_init_scatter_ext(k, strength, radius, steps, adaptive, strength_min,
    strength_max, entropy_target, absorption, absorption_last_n, collision, seed)``: the arguments
    in the spec's order from the flag table, each written as its C type; the seed 4294967295 is
    ``LLAMA_DEFAULT_SEED`` (a random one)."""
    values = [c_literal(value, ROW_BY_FIELD[path].ctype) for path, value in scatter_ext_args(settings)]
    return "llama_sampler_init_scatter_ext(" + ", ".join(values) + ")"
