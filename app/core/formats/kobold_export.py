"""Writing KoboldCpp generate fields (an API payload, or the JSON of ``--gendefaults``) for these settings,
with KoboldCpp's fixed rules in mind (:mod:`app.core.formats.kobold`): every field is written, so none of
KoboldCpp's own defaults applies."""
from __future__ import annotations

import math

from sampler import SamplerSettings
from sampler.rng import DEFAULT_SEED
from sampler.stagetable import STAGE_BY_NAME

from .ban_export import left_note, literal_hard_bans
from .kobold import FORMAT, ORDER_IDS
from .report import Report
from .writer import FieldWriter

#: Our stage -> KoboldCpp's sampler_order id (min-p rides with top-p, smoothing and top-n-sigma with temperature):
#: the reader's table turned round, so the two directions cannot disagree.
STAGE_IDS = {stage: kid for kid, stages in ORDER_IDS.items() for stage in stages}
#: Fields written as they are: file key -> settings field.
PLAIN = {"temperature": "temp", "top_k": "top_k", "top_p": "top_p", "min_p": "min_p", "typical": "typ_p",
         "top_a": "top_a", "tfs": "tfs_z", "rep_pen": "penalty_repeat", "rep_pen_range": "penalty_last_n",
         "presence_penalty": "penalty_present", "mirostat": "mirostat", "mirostat_tau": "mirostat_tau",
         "mirostat_eta": "mirostat_eta", "dry_multiplier": "dry_multiplier", "dry_base": "dry_base",
         "dry_allowed_length": "dry_allowed_length", "dry_penalty_last_n": "dry_penalty_last_n",
         "xtc_threshold": "xtc_threshold", "xtc_probability": "xtc_probability", "dynatemp_range": "dynatemp_range",
         "dynatemp_exponent": "dynatemp_exponent", "smoothing_factor": "smoothing_factor",
         "smoothing_curve": "smoothing_curve", "ban_eos_token": "ignore_eos"}


def export_fields(settings: SamplerSettings) -> tuple[dict, Report]:
    w = FieldWriter(FORMAT, settings)
    for key, path in PLAIN.items():
        w.put(key, w.get(path), path)
    w.put("dry_sequence_breakers", list(w.get("dry_sequence_breakers")), "dry_sequence_breakers")
    _order(w)
    sigma = w.get("top_n_sigma")
    w.put("nsigma", sigma if sigma > 0 else 0.0, "top_n_sigma", "exact" if sigma <= 0 else "converted",
          "KoboldCpp computes top-n-sigma right after the temperature" if sigma > 0 else "off -> 0")
    seed = w.get("seed")
    w.put("sampler_seed", -1 if seed == DEFAULT_SEED else seed, "seed")
    if w.get("penalty_freq") != 0:
        w.drop("penalty_freq", "KoboldCpp has no frequency penalty")
    if w.get("min_keep") != 0:
        w.drop("min_keep", "KoboldCpp always keeps at least one token, never more")
    _bans(w)
    return w.finish(stages_kept=("smoothing", "top_a", "tfs_z"))


def _enabled(w: FieldWriter, name: str) -> bool:
    return STAGE_BY_NAME[name].enabled(w.settings)


def _order(w: FieldWriter) -> None:
    order = w.get("samplers")
    ids: list[int] = []  # each id once, where its first stage is (KoboldCpp's stages come in groups)
    for name in order:
        if STAGE_IDS.get(name) is not None and STAGE_IDS[name] not in ids:
            ids.append(STAGE_IDS[name])
    w.put("sampler_order", ids, "samplers", "converted",
          "KoboldCpp always runs DRY first and XTC last, min-p right after top-p, smoothing and top-n-sigma "
          "right after the temperature")
    for name, key in (("dry", "dry_multiplier"), ("xtc", "xtc_probability")):
        if name not in order and _enabled(w, name):
            w.put(key, 0.0)
            w.record(name, "converted", f"not in the order here: {key} 0, since KoboldCpp would always run it")
    if w.get("dry_penalty_last_n") == 0 and w.get("dry_multiplier") != 0:
        w.put("dry_multiplier", 0.0)
        w.record("dry_penalty_last_n", "converted", "0 is off here but the whole context in KoboldCpp: dry_multiplier 0")
    for name, key, off in (("top_p", "top_p", 1.0), ("temperature", "temperature", 1.0)):
        if name not in order and STAGE_IDS[name] in ids:
            w.put(key, off)
            w.record(name, "converted", f"not in the order: {key} {off} (off), as id {STAGE_IDS[name]} also runs "
                     f"{'min-p' if name == 'top_p' else 'smoothing / top-n-sigma'}")
    if "scatter" in order and w.settings.scatter.enabled:
        w.drop("scatter", "KoboldCpp has no scatter sampler")
    adaptive = "adaptive_p" in order and w.get("adaptive_target") > 0
    w.put("adaptive_target", w.get("adaptive_target") if adaptive else -1.0, "adaptive_target")
    w.put("adaptive_decay", w.get("adaptive_decay"), "adaptive_decay")


def _bans(w: FieldWriter) -> None:
    finite = {str(t): b for t, b in w.get("logit_bias") if b != -math.inf}
    banned = [str(t) for t, b in w.get("logit_bias") if b == -math.inf]
    w.put("logit_bias", finite)
    w.put("custom_token_bans", ",".join(banned))
    if w.get("logit_bias"):
        w.record("logit_bias", "converted", "finite biases -> logit_bias, -inf -> custom_token_bans")
    phrases, left = literal_hard_bans(w.get("banned_phrases"))
    w.put("banned_tokens", [p.text for p in phrases])
    if phrases or left:
        exact = [p.text for p in phrases if p.exact_case]
        w.record("banned_phrases", "converted" if exact or left else "exact",
                 (f"KoboldCpp bans any case: {exact!r} lose their exact case" if exact else "-> banned_tokens")
                 + left_note(left))
