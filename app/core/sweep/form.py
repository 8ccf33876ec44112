"""The sweep window's form and the plan it describes (Qt-free).

The fields are the state's (``state.jobs.sweep_form``, :class:`app.core.jobs.SweepFormFields`);
:func:`form_plan` builds their plan with :func:`app.core.sweep.build.build_plan`
(the command line's rules and messages), and :func:`form_changes` reads a sweep
file's plan back into fields, so that Resume can go on with it.
"""
from __future__ import annotations

from app.core.jobs import FORM_FIRST_SEEDS, FORM_SEEDS, FORM_TOKENS, SWEEPABLE, SweepFormFields
from app.core.presets import builtin_presets

from .build import build_plan
from .plan import SweepPlan


def form_plan(fields: SweepFormFields, n_ctx: int) -> SweepPlan:
    """The plan the form describes (ValueError: one line naming the bad field)."""
    axes = [(fields.flag1, fields.range1)]
    if fields.flag2:
        axes.append((fields.flag2, fields.range2))
    return build_plan(
        axes, preset=fields.preset, fixed=fields.extra, baseline=fields.baseline,
        prompt_paths=[fields.prompts] if fields.prompts.strip() else [], seeds=fields.seeds,
        first_seed=fields.first_seed, tokens=fields.tokens, n_ctx=n_ctx, match=fields.match)


def _within(value, limits: tuple[int, int]) -> int:
    lo, hi = limits
    return min(max(int(value), lo), hi)


def form_changes(plan: dict) -> dict:
    """The fields (as ``set_sweep_form`` changes) that show a sweep file's ``plan`` (its header's): a flag
    or preset this version does not offer leaves the field as it was, numbers are held to the form's limits."""
    changes: dict = {}
    sweep = plan.get("sweep", [])
    for i, (flag, text) in enumerate((("flag1", "range1"), ("flag2", "range2"))):
        if i < len(sweep):
            if sweep[i]["flag"] in SWEEPABLE:
                changes[flag] = sweep[i]["flag"]
            changes[text] = ",".join(f"{v:g}" for v in sweep[i]["values"])
        elif i:
            changes[flag], changes[text] = "", ""
    changes["baseline"] = ",".join(f"{v:g}" for v in plan.get("baseline", {}).get("values", []))
    preset = plan.get("preset")
    if preset in {p.key for p in builtin_presets()}:
        changes["preset"] = preset
    changes["extra"] = str(plan.get("base_flags", ""))
    seeds = plan.get("seeds") or [1]
    changes["seeds"] = _within(len(seeds), FORM_SEEDS)
    changes["first_seed"] = _within(seeds[0], FORM_FIRST_SEEDS)
    changes["tokens"] = _within(plan.get("tokens", 48), FORM_TOKENS)
    changes["match"] = bool(plan.get("match", True))
    return changes
