"""A run as ``llama_cpp.Llama`` keyword arguments (llama-cpp-python 0.3.36), and what they cannot say.

``Llama(...)`` takes the model and context options; ``create_completion``
(plain) or ``create_chat_completion`` (chat) the run's.  ``Llama`` builds a
fixed chain, ``Llama._init_sampler``: penalties (``last_n_tokens_size`` of
the constructor), top-k, typical, top-p, min-p (``min_keep`` 1), temperature,
dist, with greedy instead at temperature 0.  So:

* a stage the playground's chain leaves out is switched off in the kwargs
  (``top_k=0``, ``top_p=1.0`` ...), which makes it a no-op there too;
* :func:`llama_gaps` lists what the kwargs cannot express, each only when it
  changes the text: an active llama.cpp stage that ``Llama``'s chain lacks
  (DRY, XTC, top-n-sigma, scatter: a stage row with ``llamacpp`` outside
  :data:`LLAMA_ORDER`), dynamic temperature, active stages in another order,
  ``min_keep`` above 1, penalties (``Llama`` never shows the prompt to the
  penalties, llama.cpp does), and in chat mode the template (``Llama``
  renders it with Python's Jinja2, llama.cpp with its own engine); adaptive-p
  (``Llama`` always ends in dist), a grammar (``Llama`` adds its grammar sampler before its chain, not
  ``common_sampler_sample``'s check of the pick), logit biases and ``--ignore-eos`` (not
  written: ``Llama`` applies ``logit_bias`` through a Python logits processor
  of its own), banned phrases; and with mirostat on, a temperature other than
  0 or 1 (llama.cpp runs a plain temperature before mirostat, ``Llama`` none);
* mirostat: ``mirostat_mode``, ``mirostat_tau``, ``mirostat_eta``; ``Llama``
  then keeps only its penalties before mirostat, which llama.cpp leaves out, so
  they are switched off;
* ``flash_attn=True``: the playground asks llama.cpp for "auto", which is
  on wherever the backend supports it (the CPU does); ``Llama`` takes only
  on or off.  ``n_batch``/``n_ubatch`` 512 as in the playground;
  ``n_gpu_layers=-1`` as the playground's default (all layers where the
  build can offload).
"""
from __future__ import annotations

from dataclasses import dataclass

from sampler.settings import SamplerSettings
from sampler.stagetable import STAGE_BY_NAME, TEMP_PLAIN

from .export import MODEL_PLACEHOLDER
from .phrases import phrase_notes, resolve_phrases
from .run import RunSpec, within_context
from .stock_alternative import changed_fields, stock_alternative

#: The order of ``Llama``'s fixed chain.
LLAMA_ORDER = ("penalties", "top_k", "typ_p", "top_p", "min_p", "temperature")
#: Stage -> the kwargs that switch it off in ``Llama``.
OFF_KWARGS: dict[str, dict[str, float | int]] = {
    "penalties": {"repeat_penalty": 1.0, "frequency_penalty": 0.0, "presence_penalty": 0.0},
    "top_k": {"top_k": 0},
    "typ_p": {"typical_p": 1.0},
    "top_p": {"top_p": 1.0},
    "min_p": {"min_p": 0.0},
    "temperature": {"temperature": 1.0},
}


def active_stages(settings: SamplerSettings) -> list[str]:
    """The stages of the chain that change anything, in chain order (each stage's own rule: its ``enabled``).

    With mirostat on: the plain temperature alone (mirostat replaces the rest)."""
    if settings.mirostat:
        return ["temperature"] if TEMP_PLAIN.enabled(settings) else []
    return [name for name in settings.samplers if STAGE_BY_NAME[name].enabled(settings)]


def llama_gaps(settings: SamplerSettings) -> list[str]:
    """What ``Llama``'s kwargs cannot express for these settings (empty: the same text)."""
    s = settings
    active = active_stages(s)
    gaps = []
    for name in dict.fromkeys(active):  # a llama.cpp stage Llama's fixed chain lacks (adaptive-p: below)
        row = STAGE_BY_NAME[name]
        if row.llamacpp and name not in LLAMA_ORDER and name != "adaptive_p":
            gaps.append(f"{row.label}: Llama has no {row.label} stage")
    if "temperature" in active and s.dynatemp_range > 0.0:
        gaps.append("dynamic temperature: Llama has only a plain temperature")
    ours = [n for n in active if n in LLAMA_ORDER]
    if len(set(ours)) != len(ours) or ours != sorted(ours, key=LLAMA_ORDER.index):
        gaps.append("sampler order: Llama's chain is fixed (penalties, top-k, typical, top-p, min-p, temperature)")
    if "penalties" in active:
        gaps.append("penalties: Llama does not count the prompt's tokens, llama.cpp does")
    if s.min_keep > 1:
        gaps.append(f"min_keep={s.min_keep}: Llama always uses 1")
    if s.mirostat and s.temp not in (0.0, 1.0):
        gaps.append("mirostat: llama.cpp runs a plain temperature before mirostat, Llama none")
    if "adaptive_p" in s.samplers and not s.mirostat:
        gaps.append("adaptive-p: Llama has no adaptive-p stage (its chain ends in dist)")
    if s.logit_bias:
        gaps.append("logit bias: not written (Llama applies logit_bias through a Python logits processor of its own)")
    if s.ignore_eos:
        gaps.append("--ignore-eos: Llama has no such option")
    if s.grammar or s.json_schema:
        gaps.append("grammar: not written (Llama takes grammar=LlamaGrammar.from_string(...), whose JSON schemas "
                    "are converted by another converter); Llama applies it before its chain, llama.cpp's programs "
                    "check the chain's pick and apply it only when the pick is refused, so the tokens differ")
    return gaps


@dataclass(frozen=True)
class LlamaExport:
    """``Llama(**init_kwargs).<method>(**call_kwargs)``, the gaps, and the code as text."""

    init_kwargs: dict
    method: str
    call_kwargs: dict
    gaps: tuple[str, ...]
    #: The nearest stock settings' kwargs when no llama.cpp runs these as they are (the last gap says so).
    stock_alternative: LlamaExport | None = None

    @property
    def code(self) -> str:
        lines = ["from llama_cpp import Llama", ""]
        if self.gaps:
            lines += ["# Not expressible with llama_cpp.Llama (the text will differ):"]
            lines += [f"#   - {g}" for g in self.gaps]
            lines.append("")
        lines.append("llm = Llama(")
        lines += [f"    {k}={v!r}," for k, v in self.init_kwargs.items()]
        lines += [")", f"out = llm.{self.method}("]
        lines += [f"    {k}={v!r}," for k, v in self.call_kwargs.items()]
        lines.append(")")
        if self.method == "create_chat_completion":
            lines.append('print(out["choices"][0]["message"]["content"])')
        else:
            lines.append('print(out["choices"][0]["text"])')
        return "\n".join(lines) + "\n"


def llama_kwargs(settings: SamplerSettings, **run) -> LlamaExport:
    """The ``Llama`` constructor and call kwargs for a run (``run``: what :meth:`RunSpec.make` takes)."""
    original = settings
    spec = RunSpec.make(settings, **run)
    settings, context_notes = within_context(settings, spec.n_ctx)
    px = resolve_phrases(settings, spec.token_texts)
    s = settings = px.settings
    init = {
        "model_path": MODEL_PLACEHOLDER if spec.model_path is None else spec.model_path,
        "n_ctx": spec.n_ctx,
        "n_batch": 512,
        "n_ubatch": 512,
        "n_gpu_layers": -1,
        "flash_attn": True,
        "last_n_tokens_size": s.penalty_last_n,
        "verbose": False,
    }
    call: dict = {"messages": spec.chat_messages()} if spec.chat else {"prompt": spec.prompt}
    call.update(
        max_tokens=spec.n_predict,
        temperature=s.temp,  # >= 0 (the flag table's range); Llama is greedy at 0, as llama.cpp
        top_k=s.top_k,
        top_p=s.top_p,
        min_p=s.min_p,
        typical_p=s.typ_p,
        repeat_penalty=s.penalty_repeat,
        frequency_penalty=s.penalty_freq,
        presence_penalty=s.penalty_present,
        seed=s.seed,
        stop=list(spec.stop),
        mirostat_mode=s.mirostat,
    )
    if s.mirostat:
        call.update(mirostat_tau=s.mirostat_tau, mirostat_eta=s.mirostat_eta, **OFF_KWARGS["penalties"])
    for stage, off in OFF_KWARGS.items():
        if stage not in s.samplers:
            call.update(off)
    method = "create_chat_completion" if spec.chat else "create_completion"
    gaps = llama_gaps(s) + phrase_notes(px, "logit_bias") + context_notes
    if spec.chat:
        gaps.append("chat template: Llama renders the model's template with Jinja2 in Python, llama.cpp with its "
                    "own engine; the prompt can differ")
    alternative, stock = stock_alternative(original), None
    if alternative is not None:
        stock = llama_kwargs(alternative.settings, **run)
        changed = {**changed_fields(init, stock.init_kwargs), **changed_fields(call, stock.call_kwargs)}
        still = f" (still not expressible: {'; '.join(stock.gaps)})" if stock.gaps else ""
        gaps.append(f"{alternative.label}; with these arguments changed: {changed!r}{still}")
    return LlamaExport(init, method, call, tuple(gaps), stock)
