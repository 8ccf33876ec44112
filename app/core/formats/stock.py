"""The nearest stock llama.cpp preset for settings llama.cpp cannot run as they are (smoothing, top-A,
tail-free, scatter): :mod:`sampler.stockfit` over the steps of the current session, or over its
standard steps when there is none; the report says what was fitted and the divergence that remains."""
from __future__ import annotations

from sampler import SamplerSettings
from sampler.emulated import active_stages_not_in_llamacpp
from sampler.stockfit import StockFit, fit_stock, standard_steps, steps_from_records, stock_settings, targets_from_settings

from .report import FieldNote, Report

#: Fewer session steps than this: the standard steps instead (a handful of steps fit anything).
MIN_SESSION_STEPS = 32


def needs_fit(settings: SamplerSettings) -> bool:
    """Whether stock llama.cpp would run something else than these settings (a stage it lacks is on)."""
    return bool(active_stages_not_in_llamacpp(settings)) or (settings.scatter.enabled and "scatter" in settings.samplers
                                                              and settings.mirostat == 0)


def nearest_stock(settings: SamplerSettings, records=()) -> tuple[SamplerSettings, StockFit, Report]:
    """Stock settings (the fitted four, the order without the stages llama.cpp lacks) and the fit's report."""
    records = [r for r in records if not getattr(r, "forced", False)]
    if len(records) >= MIN_SESSION_STEPS:
        logits, q = steps_from_records(records)
        source = f"{len(logits)} steps of the current session (their raw top {logits.shape[1]} logits)"
    else:
        logits = standard_steps()
        q = targets_from_settings(settings, logits)
        source = f"{len(logits)} standard steps (no session of 32 steps or more)"
    fit = fit_stock(logits, q)
    stock = stock_settings(settings, fit)
    notes = [FieldNote(k, "converted", f"fitted: {v!r}") for k, v in fit.changes().items()]
    notes.append(FieldNote("(fit)", "converted", f"remaining mean KL(preset || stock) = {fit.mean_kl:.4g} nats a step, "
                           f"over {source}"))
    left = [n for n in settings.samplers if n not in stock.samplers]
    if left:
        notes.append(FieldNote("samplers", "dropped", f"{left!r} left out of the order: stock llama.cpp has no such stage"))
    return stock, fit, Report("nearest stock llama.cpp", tuple(notes))
