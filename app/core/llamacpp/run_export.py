"""A run as the llama.cpp command that reproduces it (:func:`export_run`).

* :func:`export_run`: the whole run, the command that, against the same model
  on the llama.cpp with the scatter patch (the one llama-cpp-python 0.3.36
  vendors), produces the same text.  Its choices, each read in that
  llama.cpp's ``common/arg.cpp``, ``common/common.h``, ``common/common.cpp``,
  ``tools/completion`` and ``tools/cli``:

  - **Program.**  Plain completion is ``llama-completion`` (``tools/completion``;
    ``llama-cli`` is now the chat client).  Chat mode is ``llama-cli``, which
    runs a llama-server inside and sends it ``/v1/chat/completions``.
  - ``-m`` the model (``MODEL.gguf`` when none is given, with a note).
  - ``-c``, ``-n``: the context size per lane and the tokens to generate.
    llama.cpp's defaults are the model's training context and "until the end".
  - ``-s`` the lane's seed, always (4294967295 means "random": a note says the
    text cannot be the same).
  - The sampling flags that differ from llama.cpp's defaults, plus, always,
    ``--samplers`` and the flags a model's GGUF metadata can give other
    defaults (``general.sampling.*``, applied by ``common_init_sampler_from_model``
    to every flag the command line leaves out): ``--temp --top-k --top-p
    --min-p --xtc-probability --xtc-threshold --repeat-last-n --repeat-penalty``
    and ``--mirostat`` (a GGUF could switch mirostat on, which replaces the
    whole chain), with ``--mirostat-lr`` and ``--mirostat-ent`` when it is on.
  - ``-no-cnv`` (plain only; a llama-completion option): conversation mode is
    on by default whenever the model has a chat template, and would wrap the
    prompt in it.
  - ``--no-display-prompt`` (plain): llama-completion prints the prompt before
    the text by default; the playground shows only the generated text.
  - ``--no-context-shift``: the playground stops when the context is full.
    Off is already this llama.cpp's default; it is written so that a build
    where it is on does not go on past the context.
  - ``-st`` (chat): one turn, then exit, instead of waiting for more input.
  - ``-r`` per stop string, escaped (llama.cpp processes escapes in reverse
    prompts).  llama-completion prints the stop string and stops; the
    playground cuts the text before it (a note says so).
  - The prompt last: ``-p`` inline when its escaped text is at most
    :data:`INLINE_PROMPT_MAX` characters, else ``-f`` and a file written
    beside the command (:mod:`app.core.llamacpp.prompt_file`).  llama.cpp processes
    escapes in the prompt whatever its source, so both are escaped; ``-f``
    drops one final newline, so the file ends with one.  The chat system
    prompt goes with ``-sys``, or ``-sysf`` when it holds a line break or a
    control character: llama.cpp processes no escapes in it.
  - Not written, because they change nothing in the text: ``--no-warmup``
    (the warm-up decode is cleared and the samplers reset after it), ``-t``
    (the CPU kernels give the same numbers on any thread count), ``-b``/``-ub``
    (llama.cpp's 2048/512 split a prompt into the same 512-token micro-batches
    as the playground's 512/512), ``-fa`` (both use "auto"), ``--ignore-eos``
    (off in both), ``--escape`` (on in both), ``--jinja`` (chat: the default),
    ``-ngl`` (llama.cpp's "auto" offloads every layer that fits, as the
    playground offloads all where the build can; a GPU that cannot hold them
    all computes other numbers anyway, so the same text needs the same device).
    ``--ignore-eos`` is a sampling flag: written when the lane has it on.
  - Banned phrases (the playground's own): single-token ones as ``--logit-bias
    TOKEN-inf`` after the user's, the others in a note (:mod:`app.core.llamacpp.phrases`).
  - Not covered: text added by Continue or Fan (the command reproduces a
    Generate from the prompt), settings changed during the run, and
    llama-completion's " [end of text]" marker after a text the model ended.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from sampler.flags import FLAG_BY_NAME, quote, to_flags
from sampler.rng import DEFAULT_SEED
from sampler.settings import SamplerSettings

from .export import (
    CHAT_PROGRAM,
    FORK_TARGET,
    IDLE_SCATTER_NOTE,
    INLINE_PROMPT_MAX,
    MIROSTAT_FIELDS,
    MODEL_PLACEHOLDER,
    PINNED_FIELDS,
    PLAIN_PROGRAM,
    PROGRAMS,
    PROMPT_MODES,
    SCATTER_BUILD_NOTE,
    STOCK_TARGET,
    escape_breaker,
    flag_units,
    has_scatter_flags,
    stock_units,
)
from .phrases import phrase_notes, resolve_phrases
from .prompt_file import PROMPT_STEM, SYSTEM_STEM, PromptFile, pick_path, prompt_file_text, system_file_text
from .run import RunSpec, within_context
from .shell import _HEX_ESCAPED, escape
from .stock_alternative import stock_alternative

# --------------------------------------------------------------------------
# The command that reproduces a run
# --------------------------------------------------------------------------


def _flag_units(settings: SamplerSettings, order: str) -> list[tuple[str, list[str]]]:
    """Every flag of ``settings`` as (field, its words), escaped for llama.cpp, seed left out; no scatter
    flags while scatter is off (:func:`~app.core.llamacpp.export.stock_units`)."""
    units = []
    for unit in flag_units(to_flags(settings, only_changed=False, order=order, include_seed=False)):
        row = FLAG_BY_NAME[unit[0]]
        if row.kind == "breaker":
            unit = [unit[0], unit[1] if not settings.dry_sequence_breakers else escape_breaker(unit[1])]
        units.append((row.field, unit))
    return stock_units(settings, units)


def reproducing_flags(settings: SamplerSettings, *, order: str = "samplers", only_changed: bool = True) -> list[str]:
    """The sampling flags :func:`export_run` writes: the changed ones, :data:`PINNED_FIELDS`, and
    :data:`MIROSTAT_FIELDS` while mirostat is on."""
    pinned = PINNED_FIELDS | (MIROSTAT_FIELDS if settings.mirostat else frozenset())
    out: list[str] = []
    for field, unit in _flag_units(settings, order):
        if not only_changed or field in pinned or settings.get(field) != FLAG_BY_NAME[unit[0]].default:
            out += unit
    return out


def _one_line(note: str) -> str:
    return note.replace("\r", "\\r").replace("\n", "\\n")


def _one_line_raw(text: str) -> bool:
    """Whether ``text`` can go raw (no escapes processed) on one command line."""
    return "\n" not in text and "\r" not in text and not _HEX_ESCAPED.search(text)


@dataclass(frozen=True)
class RunExport:
    """The command that reproduces a run: its words, the files it reads, and notes.

    ``files`` must be written (:meth:`PromptFile.write`) before the command
    runs.  ``text`` is the notes as ``#`` comment lines, then the command on
    one line: it can be pasted into a shell or into the import dialog.  When
    stock llama.cpp cannot run the settings (scatter on, a stage no llama.cpp
    has), ``stock_alternative`` is the command of the nearest stock settings
    (:mod:`app.core.llamacpp.stock_alternative`), and the last two notes label it
    and give it, commented out (other text than the playground's).
    """

    program: str
    args: tuple[str, ...]  # program first, unquoted
    files: tuple[PromptFile, ...]
    notes: tuple[str, ...]
    needs_scatter_build: bool
    stock_alternative: RunExport | None = None

    @property
    def target(self) -> str:
        """Which llama.cpp runs it: :data:`STOCK_TARGET`, or :data:`FORK_TARGET` when it carries scatter flags."""
        return FORK_TARGET if self.needs_scatter_build else STOCK_TARGET

    @property
    def command(self) -> str:
        return quote(self.args)

    @property
    def text(self) -> str:
        return "\n".join([f"# {_one_line(n)}" for n in self.notes] + [self.command])


def _prompt_args(flag_inline: str, flag_file: str, text: str, file_text: str, stem: str, mode: str, folder,
                 can_inline: bool, notes: list, files: list) -> list[str]:
    inline = can_inline and (mode == "inline" or (mode == "auto" and len(text) <= INLINE_PROMPT_MAX))
    if inline:
        return [flag_inline, text]
    path, note = pick_path(folder, stem, file_text)
    if note:
        notes.append(note)
    files.append(PromptFile(flag_file, path, file_text))
    return [flag_file, path]


def export_run(
    settings: SamplerSettings,
    *,
    prompt_mode: str = "auto",
    folder: str | os.PathLike | None = None,
    order: str = "samplers",
    only_changed: bool = True,
    program: str | None = None,
    **run,
) -> RunExport:
    """The llama.cpp command that reproduces a run with ``settings`` (see the module docstring).

    ``run`` is what :meth:`~app.core.llamacpp.run.RunSpec.make` takes: ``run_settings`` (the run's
    ``RunOptions``), llama.cpp's names for changes to them (``n_predict``, ``n_ctx``, ``stop``),
    ``prompt``, ``model_path``, ``chat`` (a bool), ``system`` and ``messages`` (chat).
    ``program`` picks llama-completion (plain) or llama-cli (chat) over
    ``chat``.  ``prompt_mode`` is ``"auto"``, ``"inline"`` (``-p``) or
    ``"file"`` (``-f``); files go to ``folder`` (bare names without one: the
    caller places them once it knows where the command is saved).
    """
    if prompt_mode not in PROMPT_MODES:
        raise ValueError(f"prompt_mode: expected one of {', '.join(PROMPT_MODES)}, got {prompt_mode!r}")
    if program is not None and program not in PROGRAMS:
        raise ValueError(f"program: expected one of {', '.join(PROGRAMS)}, got {program!r}")
    spec = RunSpec.make(settings, **run)
    settings, context_notes = within_context(settings, spec.n_ctx)
    alternative = stock_alternative(settings)
    px = resolve_phrases(settings, spec.token_texts)
    settings = px.settings
    chat = spec.chat if program is None else program == CHAT_PROGRAM
    program = CHAT_PROGRAM if chat else PLAIN_PROGRAM
    notes: list[str] = []
    files: list[PromptFile] = []
    model = MODEL_PLACEHOLDER if spec.model_path is None else spec.model_path
    args = [program, "-m", model, "-c", str(spec.n_ctx), "-n", str(spec.n_predict), "-s", str(settings.seed)]
    sampling = reproducing_flags(settings, order=order, only_changed=only_changed)
    args += sampling
    args += ["--no-context-shift"] if chat else ["-no-cnv", "--no-display-prompt", "--no-context-shift"]
    for stop in spec.stop:
        args += ["-r", escape(stop)]
    if chat:
        system = spec.system_prompt()
        if system:
            args += _prompt_args("-sys", "-sysf", system, system_file_text(system), SYSTEM_STEM, prompt_mode,
                                 folder, _one_line_raw(system), notes, files)
        user = spec.user_message()
        args += _prompt_args("-p", "-f", escape(user), prompt_file_text(user), PROMPT_STEM, prompt_mode, folder,
                             True, notes, files)
        args.append("-st")
    else:
        args += _prompt_args("-p", "-f", escape(spec.prompt), prompt_file_text(spec.prompt), PROMPT_STEM,
                             prompt_mode, folder, True, notes, files)
    build = has_scatter_flags(sampling)
    notes[:0] = _run_notes(spec, settings, chat, build) + phrase_notes(px) + context_notes
    stock = None
    if alternative is not None:
        stock = export_run(alternative.settings, prompt_mode=prompt_mode, folder=folder, order=order,
                           only_changed=only_changed, program=program, **run)
        notes += [f"{alternative.label}; its command:", stock.command]
    return RunExport(program, tuple(args), tuple(files), tuple(notes), build, stock)


def _run_notes(spec: RunSpec, settings: SamplerSettings, chat: bool, build: bool) -> list[str]:
    notes = []
    if build:
        notes.append(SCATTER_BUILD_NOTE[2:])
    elif "scatter" in settings.samplers:
        notes.append(IDLE_SCATTER_NOTE)
    if spec.model_path is None:
        notes.append(f"replace {MODEL_PLACEHOLDER} with the model file the run used")
    if settings.seed == DEFAULT_SEED:
        notes.append(f"seed {DEFAULT_SEED} means a random seed: set a seed to get the same text again")
    if settings.min_keep != 0:
        notes.append(f"min_keep={settings.min_keep} has no command-line flag (set it through the llama.cpp API)")
    if spec.stop and not chat:
        notes.append("llama-completion prints a stop string (-r) and then stops; the playground ends the text before it")
    if chat:
        if spec.earlier_turns():
            notes.append(f"llama-cli takes one system prompt and one user message: the {spec.earlier_turns()} "
                         "earlier message(s) of this chat cannot be given on its command line (the llama-server "
                         "request carries them all)")
        user = spec.user_message()
        if not user.strip("\n"):
            notes.append("llama-cli skips an empty user message and waits for input")
        elif user.endswith("\n"):
            notes.append("llama-cli drops one final newline of the user message")
        if user.startswith("/"):
            notes.append("llama-cli reads a user message starting with '/' as a command (/exit, /read ...)")
    return notes
