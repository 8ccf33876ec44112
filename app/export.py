r"""llama.cpp command lines: export settings as a ``llama-cli`` line, import a pasted one.

Qt-free (NumPy-free too).  Flag names and aliases are those of
:mod:`sampler.flags`; the table of llama.cpp's *other* options (model, context,
threads, server, chat...) and how many values each takes was derived from
``common/arg.cpp`` of the llama.cpp that llama-cpp-python 0.3.36 vendors
(every ``common_arg`` that is not ``set_sampling()`` and belongs to llama-cli,
llama-completion, llama-server or all programs: one with a value hint takes one
value, one without takes none, ``--control-vector-layer-range`` takes two),
plus a few options older llama.cpp versions had (``--mlock``, ``--no-mmap``,
...).  Import skips those options with their values; it never guesses.

Decisions where llama.cpp and the playground meet:

* The exported line always names the program, a model (``MODEL.gguf`` when
  none is given) and ``--seed``.  ``--samplers``/``--sampler-seq`` and the other
  flags follow :func:`sampler.flags.to_flags` (``only_changed`` leaves out the
  ones equal to llama.cpp's defaults).
* llama.cpp turns escape sequences (``\n``, ``\t``, ``\\``, ``\x41``...) in the
  prompt and in DRY sequence breakers into characters unless ``--no-escape`` is
  given.  Export adds ``--no-escape`` when the prompt or an exported breaker
  contains a backslash, so llama-cli sees the exact text; import processes the
  escapes in breakers the way llama.cpp does unless the line says
  ``--no-escape``.
* A pasted line that starts with a program name (``llama-cli``,
  ``./build/bin/llama-server``, anything not starting with ``-``) describes a
  whole llama.cpp run, so by default it is applied to llama.cpp's defaults, not
  to ``base``; a bare flag string is applied to ``base``.
* ``min_keep`` has no llama-cli flag; :func:`export_text` says so in a comment
  line when it is not 0.
* Options whose value is on/off/auto (``-fa``, ``--color``...) take that value
  only when the next word is one: older llama.cpp had them as bare switches.
"""
from __future__ import annotations

import os
import re
import shlex
from typing import Iterable

from sampler.flags import _is_number, FLAG_BY_NAME, UNSUPPORTED, FlagError, parse_flags, quote, to_flags
from sampler.flags import needs_scatter_build as _args_need_scatter_build
from sampler.settings import SamplerSettings

__all__ = [
    "MODEL_PLACEHOLDER", "NON_SAMPLING_OPTIONS", "SCATTER_BUILD_NOTE", "command_args", "export_text",
    "import_command", "llama_cli_command", "needs_scatter_build", "process_escapes", "scatter_ext_call",
    "split_command",
]

#: Stands for the model file when the caller gives none.
MODEL_PLACEHOLDER = "MODEL.gguf"
#: The comment line :func:`export_text` adds when the line needs the scatter build.
SCATTER_BUILD_NOTE = "# needs a llama.cpp build with the scatter sampler (--scatter-* flags)"

# ---------------------------------------------------------------------------
# llama.cpp's non-sampling options (see the module docstring for the source)
# ---------------------------------------------------------------------------

_ARG_CPP_NO_VALUE = """
--agent --cache-idle-slots --cache-list --cache-prompt --check-tensors --completion-bash --cont-batching
--context-shift --conversation --cors-credentials --cpu-moe --cpu-moe-draft --display-prompt
--embd-gemma-default --embedding --embeddings --escape --fim-qwen-1.5b-default --fim-qwen-14b-spec
--fim-qwen-30b-default --fim-qwen-3b-default --fim-qwen-7b-default --fim-qwen-7b-spec
--gpt-oss-120b-default --gpt-oss-20b-default --help --in-prefix-bos --interactive --interactive-first
--jinja --kv-offload --kv-unified --list-devices --log-disable --log-jsonl --log-prefix --log-timestamps
--log-verbose --lora-init-without-apply --metrics --mmproj-auto --mmproj-offload --models-autoload
--multiline-input --no-agent --no-cache-idle-slots --no-cache-prompt --no-cont-batching
--no-context-shift --no-conversation --no-cors-credentials --no-display-prompt --no-escape --no-host
--no-jinja --no-kv-offload --no-kv-unified --no-log-jsonl --no-log-prefix --no-log-timestamps
--no-mmproj --no-mmproj-auto --no-mmproj-offload --no-models-autoload --no-op-offload --no-perf
--no-prefill-assistant --no-reasoning-preserve --no-repack --no-show-timings --no-skip-chat-parsing
--no-slots --no-spec-draft-backend-sampling --no-ui --no-ui-mcp-proxy --no-warmup --no-webui
--no-webui-mcp-proxy --offline --op-offload --perf --prefill-assistant --prompt-cache-all
--prompt-cache-ro --props --reasoning-preserve --repack --rerank --reranking --reuse-port --show-timings
--simple-io --single-turn --skip-chat-parsing --slots --spec-default --spec-draft-backend-sampling
--spec-draft-cpu-moe --special --spm-infill --swa-full --ui --ui-mcp-proxy --usage --verbose
--verbose-prompt --version --vision-gemma-12b-default --vision-gemma-4b-default --warmup --webui
--webui-mcp-proxy -ag -cb -cl -cmoe -cmoed -cnv -e -h -i -if -kvo -kvu -mli -nkvo -no-ag -no-cnv -no-kvu
-nocb -nr -sp -st -v
"""

_ARG_CPP_ONE_VALUE = """
--alias --api-key --api-key-file --api-prefix --audio --batch-size --binary-file --cache-ram
--cache-reuse --cache-type-k --cache-type-k-draft --cache-type-v --cache-type-v-draft --chat-template
--chat-template-file --chat-template-kwargs --checkpoint-min-step --control-vector
--control-vector-scaled --cors-headers --cors-methods --cors-origins --cpu-mask --cpu-mask-batch
--cpu-mask-batch-draft --cpu-mask-draft --cpu-range --cpu-range-batch --cpu-range-draft --cpu-strict
--cpu-strict-batch --cpu-strict-batch-draft --cpu-strict-draft --ctx-checkpoints --ctx-size
--defrag-thold --device --device-draft --docker-repo --draft --draft-max --draft-min --draft-n
--draft-n-min --draft-p-min --draft-p-split --embd-normalize --file --fit-ctx --fit-target --gpu-layers
--gpu-layers-draft --grp-attn-n --grp-attn-w --hf-file --hf-repo --hf-repo-draft --hf-token --host
--image --image-max-tokens --image-min-tokens --in-prefix --in-suffix --keep --kv-unified-per-slot
--lazy-mode --load-mode --log-file --log-prompts-dir --log-verbosity --lookup-cache-dynamic
--lookup-cache-static --lora --lora-scaled --main-gpu --mcp-servers-config --mcp-servers-json
--media-path --mmproj --mmproj-device --mmproj-url --model --model-draft --model-url --models-dir
--models-max --models-preset --mtmd-batch-max-tokens --n-cpu-ffn --n-cpu-moe --n-cpu-moe-draft
--n-gpu-layers --n-gpu-layers-draft --n-predict --numa --output --output-file --override-kv
--override-tensor --override-tensor-draft --parallel --path --poll --poll-batch --poll-batch-draft
--poll-draft --pooling --port --predict --print-token-count --prio --prio-batch --prio-batch-draft
--prio-draft --prompt --prompt-cache --reasoning-budget --reasoning-budget-message --reasoning-effort
--reasoning-format --reverse-prompt --rope-freq-base --rope-freq-scale --rope-scale --rope-scaling --rpc
--server-base --sleep-idle-seconds --slot-prompt-similarity --slot-save-path --spec-draft-cpu-mask
--spec-draft-cpu-mask-batch --spec-draft-cpu-range --spec-draft-cpu-strict --spec-draft-cpu-strict-batch
--spec-draft-device --spec-draft-hf --spec-draft-model --spec-draft-n-cpu-moe --spec-draft-n-max
--spec-draft-n-min --spec-draft-ncmoe --spec-draft-ngl --spec-draft-override-tensor --spec-draft-p-min
--spec-draft-p-split --spec-draft-poll --spec-draft-poll-batch --spec-draft-prio --spec-draft-prio-batch
--spec-draft-threads --spec-draft-threads-batch --spec-draft-type-k --spec-draft-type-v
--spec-ngram-map-k-min-hits --spec-ngram-map-k-size-m --spec-ngram-map-k-size-n
--spec-ngram-map-k4v-min-hits --spec-ngram-map-k4v-size-m --spec-ngram-map-k4v-size-n
--spec-ngram-min-hits --spec-ngram-mod-n-match --spec-ngram-mod-n-max --spec-ngram-mod-n-min
--spec-ngram-simple-min-hits --spec-ngram-simple-size-m --spec-ngram-simple-size-n --spec-ngram-size-m
--spec-ngram-size-n --spec-synth-len --spec-synth-rates --spec-type --split-mode --sse-ping-interval
--ssl-cert-file --ssl-key-file --swa-checkpoints --system-prompt --system-prompt-file --tags
--tensor-split --threads --threads-batch --threads-batch-draft --threads-draft --threads-http --timeout
--tools --tools-runtime --ubatch-size --ui-config --ui-config-file --verbosity --video
--video-ffmpeg-dir --video-fps --video-timestamp-interval --webui-config --webui-config-file
--yarn-attn-factor --yarn-beta-fast --yarn-beta-slow --yarn-ext-factor --yarn-orig-ctx -C -Cb -Cbd -Cd
-Cr -Crb -Crd -a -b -bf -c -cms -cram -ctk -ctkd -ctv -ctvd -ctxcp -dev -devd -dr -dt -f -fitc -fitt
-gan -gaw -hf -hfd -hff -hfr -hfrd -hft -lcd -lcs -lm -lv -lzm -m -md -mg -mm -mmdev -mmu -mu -n -ncffn
-ncmoe -ncmoed -ngl -ngld -np -o -ot -otd -p -ptc -r -sm -sps -sys -sysf -t -tb -tbd -td -to -ts -ub
"""

_ARG_CPP_TWO_VALUES = """
--control-vector-layer-range
"""

_ARG_CPP_CHOICE = {
    '--color': ('on', 'off', 'auto'),
    '--fit': ('on', 'off'),
    '--flash-attn': ('on', 'off', 'auto'),
    '--log-colors': ('on', 'off', 'auto'),
    '--reasoning': ('on', 'off', 'auto'),
    '-co': ('on', 'off', 'auto'),
    '-fa': ('on', 'off', 'auto'),
    '-fit': ('on', 'off'),
    '-rea': ('on', 'off', 'auto'),
}

_LEGACY_NO_VALUE = """
--mlock --no-mmap --mmap -ins --instruct -dkvc --dump-kv-cache --log-enable
"""

#: Values llama.cpp's ``is_truthy`` / ``is_falsey`` / ``is_autoy`` accept.
_SWITCH_VALUES = frozenset({"on", "off", "auto", "enabled", "disabled", "true", "false", "1", "0", "-1"})

#: Non-sampling option -> number of values (an int), or ``"choice"`` for an
#: on/off/auto option whose value is optional here.
NON_SAMPLING_OPTIONS: dict[str, int | str] = {
    **{name: 0 for name in (_ARG_CPP_NO_VALUE + _LEGACY_NO_VALUE).split()},
    **{name: 1 for name in _ARG_CPP_ONE_VALUE.split()},
    **{name: 2 for name in _ARG_CPP_TWO_VALUES.split()},
    **{name: "choice" for name in _ARG_CPP_CHOICE},
}
_ESCAPE_ON = ("-e", "--escape")
_ESCAPE_OFF = ("--no-escape",)
_BREAKER = "--dry-sequence-breaker"

# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


def _exported_flags(settings: SamplerSettings, order: str, only_changed: bool) -> list[str]:
    return to_flags(settings, only_changed=only_changed, order=order, include_seed=False)


def command_args(
    settings: SamplerSettings,
    *,
    model_path: str | os.PathLike | None = None,
    prompt: str | None = None,
    include_prompt: bool = False,
    order: str = "samplers",
    only_changed: bool = True,
    program: str = "llama-cli",
) -> list[str]:
    """The llama-cli arguments (unquoted), program first.

    ``-m MODEL [-p PROMPT] [--no-escape] --seed N`` then the sampling flags.
    The prompt is included only when ``include_prompt`` is true and ``prompt``
    is not None.
    """
    if not isinstance(settings, SamplerSettings):
        raise TypeError(f"settings: expected SamplerSettings, got {type(settings).__name__}")
    flags = _exported_flags(settings, order, only_changed)
    args = [program, "-m", MODEL_PLACEHOLDER if model_path is None else os.fspath(model_path)]
    with_prompt = include_prompt and prompt is not None
    if with_prompt:
        args += ["-p", str(prompt)]
    breakers = [flags[i + 1] for i, a in enumerate(flags) if a == _BREAKER]
    if any("\\" in text for text in breakers + ([str(prompt)] if with_prompt else [])):
        args.append("--no-escape")  # llama-cli would otherwise turn "\n" into a newline
    args += ["--seed", str(settings.seed)]
    return args + flags


def llama_cli_command(
    settings: SamplerSettings,
    *,
    model_path: str | os.PathLike | None = None,
    prompt: str | None = None,
    include_prompt: bool = False,
    order: str = "samplers",
    only_changed: bool = True,
) -> str:
    """One shell-quoted ``llama-cli -m MODEL [-p PROMPT] --seed N --samplers ... <flags>`` line."""
    return quote(command_args(
        settings, model_path=model_path, prompt=prompt, include_prompt=include_prompt,
        order=order, only_changed=only_changed,
    ))


def needs_scatter_build(settings: SamplerSettings, *, only_changed: bool = True) -> bool:
    """Whether the exported line uses anything upstream llama.cpp lacks.

    True when a ``--scatter-*`` flag is exported or the exported order names
    the scatter stage.  With ``only_changed`` (the default) flags equal to the
    defaults are left out, so settings with scatter at its defaults and the
    default order need no special build; a full export (``only_changed=False``)
    always writes the scatter flags and so always needs it.
    """
    return _args_need_scatter_build(_exported_flags(settings, "samplers", only_changed))


def export_text(
    settings: SamplerSettings,
    *,
    model_path: str | os.PathLike | None = None,
    prompt: str | None = None,
    include_prompt: bool = False,
    order: str = "samplers",
    only_changed: bool = True,
) -> str:
    """The command line, preceded by comment lines where it needs a word of warning.

    :data:`SCATTER_BUILD_NOTE` when the line needs a llama.cpp build with the
    scatter sampler; a note when ``min_keep`` is not 0 (llama-cli has no flag
    for it).  The result can be pasted into a shell or back into
    :func:`import_command` as it is.
    """
    line = llama_cli_command(
        settings, model_path=model_path, prompt=prompt, include_prompt=include_prompt,
        order=order, only_changed=only_changed,
    )
    notes = []
    if needs_scatter_build(settings, only_changed=only_changed):
        notes.append(SCATTER_BUILD_NOTE)
    if settings.min_keep != 0:
        notes.append(f"# min_keep={settings.min_keep} has no llama-cli flag (set it through the llama.cpp API)")
    return "\n".join(notes + [line])


def _c_float(value: float) -> str:
    text = repr(float(value))
    if "e" not in text and "." not in text and "n" not in text:
        text += ".0"
    return text + "f"


def scatter_ext_call(settings: SamplerSettings) -> str:
    """The C call that builds the same scatter stage through llama.cpp's API.

    ``llama_sampler_init_scatter_ext(k, strength, radius, steps, adaptive,
    strength_min, strength_max, entropy_target, absorption, absorption_last_n,
    collision, seed)``; floats carry an ``f`` suffix, booleans are
    ``true``/``false``, the seed is the settings' seed (4294967295 is
    ``LLAMA_DEFAULT_SEED``: a random one).
    """
    p = settings.scatter
    values = [
        str(p.k), _c_float(p.strength), _c_float(p.radius), str(p.steps), "true" if p.adaptive else "false",
        _c_float(p.strength_min), _c_float(p.strength_max), _c_float(p.entropy_target), _c_float(p.absorption),
        str(p.absorption_last_n), _c_float(p.collision), str(settings.seed),
    ]
    return f"llama_sampler_init_scatter_ext({', '.join(values)})"


# ---------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------

_ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_CONTINUATION_CHARS = "\\^`"  # sh, cmd.exe, PowerShell


def _join_lines(text: str) -> str:
    r"""Drop line continuations and ``#`` comments outside quotes, as a POSIX shell would.

    A continuation is ``\\``, ``^`` or a backtick at the end of a line
    (trailing blanks allowed); inside double quotes only ``\\`` counts, inside
    single quotes nothing does.  A comment starts at a ``#`` that begins a word.
    """
    out: list[str] = []
    i, n = 0, len(text)
    quote_char = ""
    at_word_start = True

    def continuation_end(j: int) -> int:
        """Index after the newline if text[j] starts a line continuation, else -1."""
        k = j + 1
        while k < n and text[k] in " \t":
            k += 1
        if k < n and text[k] == "\r":
            k += 1
        return k + 1 if k < n and text[k] == "\n" else -1

    while i < n:
        c = text[i]
        if quote_char == "'":
            out.append(c)
            quote_char = "" if c == "'" else quote_char
            i += 1
            continue
        if quote_char == '"':
            if c == "\\":
                end = continuation_end(i) if i + 1 < n and text[i + 1] in "\r\n" else -1
                if end >= 0:
                    i = end
                    continue
                out.append(text[i:i + 2])
                i += 2
                continue
            out.append(c)
            quote_char = "" if c == '"' else quote_char
            i += 1
            continue
        if c in _CONTINUATION_CHARS:
            end = continuation_end(i)
            if end >= 0:
                out.append(" ")
                i = end
                at_word_start = True
                continue
        if c == "\\":
            out.append(text[i:i + 2])
            i += 2
            at_word_start = False
            continue
        if c == "#" and at_word_start:
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c in "'\"":
            quote_char = c
        out.append(c)
        at_word_start = c in " \t\r\n;"
        i += 1
    return "".join(out)


def split_command(text: str) -> list[str]:
    """The words of a pasted command line (continuations and comments removed)."""
    try:
        return shlex.split(_join_lines(text))
    except ValueError as exc:
        raise FlagError([f"cannot split the command line: {exc}"]) from None


def _strip_program(words: list[str]) -> tuple[list[str], bool]:
    """Drop a leading ``$``, ``NAME=value`` environment words and the program name."""
    i = 0
    if words and words[0] == "$":
        i = 1
    while i < len(words) and _ENV_ASSIGNMENT.match(words[i]):
        i += 1
    has_program = i < len(words) and not words[i].startswith("-") and not _is_number(words[i])
    if has_program:
        i += 1
    return words[i:], has_program or i > 0


_HEX2 = re.compile(r"[0-9a-fA-F]{2}|[ \t\n\v\f\r][0-9a-fA-F]|[+-][0-9a-fA-F]")


def process_escapes(text: str) -> str:
    r"""llama.cpp's ``string_process_escapes`` (on the UTF-8 bytes).

    ``\n \r \t \' \" \\`` and ``\xHH`` become characters; any other backslash
    stays.  Raises ValueError if a ``\xHH`` escape leaves invalid UTF-8.
    """
    if "\\" not in text:
        return text
    data = text.encode("utf-8", "surrogatepass")
    simple = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("'"): b"'", ord('"'): b'"', ord("\\"): b"\\"}
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b == 0x5C and i + 1 < n:
            i += 1
            c = data[i]
            if c in simple:
                out += simple[c]
            elif c == ord("x") and i + 2 < n and _HEX2.fullmatch(data[i + 1:i + 3].decode("latin-1")):
                out.append(int(data[i + 1:i + 3].decode("latin-1").strip(), 16) & 0xFF)
                i += 2
            else:
                out += bytes((0x5C, c))
        else:
            out.append(b)
        i += 1
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"escape sequences in {text!r} do not give valid UTF-8") from None


def _looks_like_flag(word: str) -> bool:
    return word.startswith("-") and len(word) > 1 and not _is_number(word)


def import_command(
    text_or_args: str | Iterable[str],
    base: SamplerSettings | None = None,
    *,
    from_defaults: bool | None = None,
) -> SamplerSettings:
    """Settings from a pasted llama-cli / llama-server command line or a bare flag string.

    Every sampling flag :mod:`sampler.flags` knows is applied (all llama.cpp
    spellings, ``--name=value`` and ``--name_with_underscores`` too); the other
    llama.cpp options are skipped with their values.  Anything unknown,
    unsupported (mirostat, grammar...), malformed or left over is listed in one
    :class:`FlagError` and nothing is applied.

    The settings start from ``base`` (llama.cpp's defaults if None) for a bare
    flag string, and from llama.cpp's defaults when the line names a program,
    as llama-cli would; ``from_defaults`` overrides that choice.
    """
    words = split_command(text_or_args) if isinstance(text_or_args, str) else [str(a) for a in text_or_args]
    words, has_program = _strip_program(words)
    if from_defaults is None:
        from_defaults = has_program
    start = SamplerSettings() if from_defaults or base is None else base
    if not isinstance(start, SamplerSettings):
        raise TypeError(f"base: expected SamplerSettings, got {type(start).__name__}")

    problems: list[str] = []
    sampling: list[str] = []
    breaker_at: list[int] = []  # indices in ``sampling`` of breaker values (or "--x=value" words)
    escape = True
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word.startswith("--"):
            name, eq, inline = word.partition("=")
            name = name.replace("_", "-")  # llama.cpp accepts --top_k
        else:
            name, eq, inline = word, "", ""
        flag = FLAG_BY_NAME.get(name)
        if flag is not None or name in UNSUPPORTED:
            if flag is not None:
                arity = 0 if eq or flag.kind == "switch" else 1
            else:
                arity = 0 if eq else UNSUPPORTED[name]
            sampling.append(name + eq + inline)
            if name == _BREAKER and (eq or i < len(words)):
                breaker_at.append(len(sampling) - 1 if eq else len(sampling))
            sampling += words[i:i + arity]
            i += arity
            continue
        kind = NON_SAMPLING_OPTIONS.get(name)
        if kind is not None:
            if name in _ESCAPE_ON:
                escape = True
            elif name in _ESCAPE_OFF:
                escape = False
            if eq:
                if kind == 0:
                    problems.append(f"{name}: takes no value, got {inline!r}")
                elif kind == 2:
                    problems.append(f"{name}: takes two values, got {inline!r}")
            elif kind == "choice":
                if i < len(words) and words[i].lower() in _SWITCH_VALUES:
                    i += 1
            elif kind:
                if i + kind > len(words):
                    problems.append(f"{name}: missing value")
                i += kind
            continue
        if _looks_like_flag(word):
            problems.append(f"{name}: unknown flag")
            if i < len(words) and not _looks_like_flag(words[i]) and not eq:
                i += 1  # most likely its value: one problem is enough
        else:
            problems.append(f"unexpected argument {word!r}")

    if escape:
        for at in breaker_at:
            word = sampling[at]
            head, eq, value = word.partition("=") if word.startswith("--") else ("", "", word)
            if value == "none":
                continue
            try:
                sampling[at] = head + eq + process_escapes(value)
            except ValueError as exc:
                problems.append(f"{_BREAKER}: {exc}")
    try:
        settings, rest = parse_flags(sampling, start)
    except FlagError as exc:
        problems += exc.problems
        settings, rest = None, []
    problems += [f"unexpected argument {word!r}" for word in rest]
    if problems:
        raise FlagError(problems)
    return settings
