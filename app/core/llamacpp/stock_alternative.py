"""The nearest settings stock llama.cpp can run, for an export that needs more (scatter on, or a stage no
llama.cpp has): the exports offer them as a clearly labelled alternative beside the exact line.

The fit is :mod:`sampler.stockfit`'s (the preset-conversion work): temperature, min-p, top-p and top-n-sigma
chosen so that llama.cpp's own chain comes closest, in KL divergence, to the distributions these settings
give, over its 500 standard steps (an export has no session to fit on).  The fitted settings keep every
stage stock llama.cpp has, leave out scatter (its flags back at their defaults, so none is written) and the
stages no llama.cpp has.  The alternative samples *other* text than the playground: the label says so.
A fit takes about a second, so it is computed once per settings (the export dialog refreshes often).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from sampler.emulated import active_stages_not_in_llamacpp
from sampler.settings import SamplerSettings
from sampler.stockfit import StockFit, fit_stock, standard_steps, stock_settings, targets_from_settings


@dataclass(frozen=True)
class StockAlternative:
    """The fitted stock settings, the fit, and what the settings needed that stock llama.cpp lacks."""

    settings: SamplerSettings
    fit: StockFit
    left_out: tuple[str, ...]  # "scatter", then the stages no llama.cpp has

    @property
    def label(self) -> str:
        """One line saying what the alternative is, and that its text differs (the exports add how to run it)."""
        fitted = ", ".join(f"{k} {v!r}" for k, v in self.fit.changes().items())
        return (f"nearest stock llama.cpp fit (other text than the playground): {' and '.join(self.left_out)} "
                f"left out; {fitted} fitted to these settings' distributions, mean KL {self.fit.mean_kl:.3g} "
                f"nats a step over {self.fit.n_steps} standard steps")


def _left_out(settings: SamplerSettings) -> tuple[str, ...]:
    scatter = settings.scatter.enabled and "scatter" in settings.samplers and settings.mirostat == 0
    return ("scatter",) * scatter + active_stages_not_in_llamacpp(settings)


def stock_alternative(settings: SamplerSettings) -> StockAlternative | None:
    """The nearest stock settings, or None when stock llama.cpp runs ``settings`` as they are."""
    if not _left_out(settings):
        return None
    return _fitted(settings)


@lru_cache(maxsize=16)
def _fitted(settings: SamplerSettings) -> StockAlternative:
    steps = standard_steps()
    fit = fit_stock(steps, targets_from_settings(settings, steps))
    stock = replace(stock_settings(settings, fit), scatter=type(settings.scatter)())
    return StockAlternative(stock, fit, _left_out(settings))


def changed_fields(exact: dict, stock: dict) -> dict:
    """The entries of ``stock`` that differ from ``exact`` (a request body, keyword arguments)."""
    return {k: v for k, v in stock.items() if k not in exact or exact[k] != v}
