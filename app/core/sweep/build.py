"""A sweep plan from what a user typed: the command line and the sweep window both build theirs here.

Every problem is a ValueError whose message is one line naming the flag or field.
"""
from __future__ import annotations

from collections.abc import Sequence

from app.core.presets import builtin_presets, find_builtin
from sampler import FlagError, parse_flags
from sampler.flags import FLAG_BY_NAME

from .plan import SweepPlan, make_axis
from .prompts import load_prompts

#: 4294967295 asks for a random seed: a sweep's seeds are fixed.
MAX_SEED = 2**32 - 2


def build_plan(
    axes: Sequence[tuple[str, str]], *, preset: str = "off", fixed: Sequence[str] | str = (), baseline: str = "",
    prompt_paths: Sequence[str] = (), prompt_texts: Sequence[str] = (), seeds: int = 3, first_seed: int = 1,
    tokens: int = 48, n_ctx: int = 2048, match: bool = True,
) -> SweepPlan:
    """``axes``: (flag, range) pairs; ``fixed``: sampling flags on top of ``preset``; ``baseline``: the
    temperature range with scatter off ("" for none); ``seeds`` seeds from ``first_seed`` per prompt."""
    built = tuple(make_axis(name, text) for name, text in axes)
    if len(built) > 2:
        raise ValueError(f"at most two swept flags (a grid), got {len(built)}: {', '.join(n for n, _ in axes)}")
    found = find_builtin(preset)
    if found is None:
        raise ValueError(f"--preset: unknown preset {preset!r} (built in: {', '.join(p.key for p in builtin_presets())})")
    try:
        base, extra = parse_flags(fixed, found.settings)
    except FlagError as exc:
        raise ValueError(str(exc)) from None
    if extra:
        raise ValueError(f"unexpected argument(s) {' '.join(map(repr, extra))}")
    words = fixed.split() if isinstance(fixed, str) else list(fixed)
    fixed_fields = {FLAG_BY_NAME[w.partition("=")[0]].field for w in words if w.partition("=")[0] in FLAG_BY_NAME}
    for axis in built:
        if axis.flag.field in fixed_fields:
            raise ValueError(f"{axis.flag.flag}: given both as a range and as a value")
    temps = make_axis("--temp", baseline).values if baseline.strip() else ()
    if not 1 <= seeds <= 1000:
        raise ValueError(f"--seeds: expected 1 to 1000, got {seeds}")
    if not 0 <= first_seed or first_seed + seeds - 1 > MAX_SEED:
        raise ValueError(f"--seed {first_seed} --seeds {seeds}: seeds must lie in 0 to {MAX_SEED}")
    try:
        prompts = load_prompts(prompt_paths, prompt_texts)
    except ValueError as exc:
        raise ValueError(f"--prompts: {exc}") from None
    return SweepPlan(built, base, found.key, temps, prompts, tuple(range(first_seed, first_seed + seeds)), tokens,
                     n_ctx, match)
