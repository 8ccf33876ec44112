"""The stage funnel of one step, from its record: counts per stage and the chosen token's rank after each.  No Qt.

What is exact and what is not:

- The counts (``n_in``, ``n_out``, ``active``) are the record's ``stages`` as the chain counted them: exact.
- The chosen token's rank (0 = the most likely candidate left) is exact at these anchors:
  before the chain (the record's ``raw_rank``, its rank among all raw logits); on entering
  scatter when it fired (its place in the medium, which is the incoming candidates' top m
  in logit order) and on leaving it (its place by the final medium probabilities); after
  the last stage (its place in the final distribution ``final_p``, ties in list order);
  and after any stage that left a single candidate (rank 1).
- From the anchors it is carried, forward and backward, through stages that cannot change
  it: a stage that was off, or scatter when it did not fire; the stages whose row says ``keeps_rank``
  (the value-threshold filters top-k, top-p, min-p, top-n-sigma, top-A and tail-free, temperature and
  dist), which only drop candidates less likely than every one they keep; and XTC, which
  drops only candidates more likely than the token it kept, so the rank falls by exactly the
  number it removed.
- Through an active stage that reorders or filters by another measure (penalties, DRY,
  typical, logit bias, any stage not named above) nothing is carried: the rank there is
  unknown (None) unless an anchor on the other side reaches it.  The record keeps only the
  raw top 64 logits, not each stage's output, so those ranks cannot be recomputed.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sampler.grammar_text import GRAMMAR
from sampler.stagetable import SELECTORS, STAGE_BY_NAME


def keeps_rank(name: str) -> bool:
    """Whether the chosen token's rank after the stage is the rank it had before it (its row's ``keeps_rank``)."""
    row = STAGE_BY_NAME.get(name)
    return row is not None and row.keeps_rank


def row_label(name: str, active: bool) -> str:
    """A funnel row's name: the stage's label, "(off)" when it did nothing; the grammar's row says whether the
    chain's first pick fitted it (only checked) or was refused (the grammar cut the list, the chain ran again)."""
    if name == GRAMMAR:
        return "Grammar: pick refused" if active else "Grammar: pick fits"
    label = stage_label(name)
    return label if active else f"{label} (off)"


def stage_label(name: str) -> str:
    """What the funnel calls a stage: its row's label, † for a stage no llama.cpp has, "(final)" for the pick."""
    row = STAGE_BY_NAME.get(name)
    if row is None:
        return name
    label = row.label if row.llamacpp else f"{row.label} \u2020"
    return f"{label} (final)" if name in SELECTORS else label


@dataclass(frozen=True)
class FunnelRow:
    name: str
    n_in: int
    n_out: int
    active: bool
    rank: int | None  # the chosen token's 0-based rank among the stage's output; None: not known


def _final_rank(rec) -> int | None:
    hit = np.flatnonzero(np.asarray(rec.final_ids) == rec.token)
    if not len(hit):
        return None
    p = np.asarray(rec.final_p, dtype=np.float64)
    i = int(hit[0])
    return int(np.count_nonzero(p > p[i]) + np.count_nonzero(p[:i] == p[i]))


def _scatter_ranks(rec) -> tuple[int | None, int | None]:
    sc = rec.scatter
    if sc is None or not sc.fired:
        return None, None
    live = len(sc.p_before)
    hit = np.flatnonzero(np.asarray(sc.ids[:live]) == rec.token)
    if not len(hit):
        return None, None
    i = int(hit[0])
    p = np.asarray(sc.p_final, dtype=np.float64)
    return i, int(np.count_nonzero(p > p[i]) + np.count_nonzero(p[:i] == p[i]))


def _relation(stage, rec):
    """How the rank after a stage follows from the rank before it: a shift, or None (not known)."""
    if not stage.active or keeps_rank(stage.name):
        return 0
    if stage.name == "scatter" and (rec.scatter is None or not rec.scatter.fired):
        return 0  # scatter left the step alone
    if stage.name == "xtc":  # it removed the most likely candidates, all above the token kept
        return -(stage.n_in - stage.n_out)
    return None


def funnel(rec) -> list[FunnelRow]:
    """One row per stage of ``rec`` (dist last), with the chosen token's rank after it where known."""
    stages = list(rec.stages)
    n = len(stages)
    before: list[int | None] = [None] * n  # rank entering stage i
    after: list[int | None] = [None] * n  # rank leaving stage i
    if n:
        before[0] = rec.raw_rank
    final = _final_rank(rec)
    for i, st in enumerate(stages):
        if st.name == "scatter":
            s_in, s_out = _scatter_ranks(rec)
            before[i] = s_in if s_in is not None else before[i]
            after[i] = s_out if s_out is not None else after[i]
        if st.n_out == 1:
            after[i] = 0
    if n:
        after[-1] = final if final is not None else after[-1]
    shifts = [_relation(st, rec) for st in stages]
    changed = True
    while changed:  # carry ranks forward and backward until nothing new is learnt
        changed = False
        for i in range(n):
            if shifts[i] is not None:
                if after[i] is None and before[i] is not None:
                    after[i] = max(0, before[i] + shifts[i])
                    changed = True
                elif before[i] is None and after[i] is not None:
                    before[i] = after[i] - shifts[i]
                    changed = True
            if i + 1 < n:
                if before[i + 1] is None and after[i] is not None:
                    before[i + 1] = after[i]
                    changed = True
                elif after[i] is None and before[i + 1] is not None:
                    after[i] = before[i + 1]
                    changed = True
    return [FunnelRow(st.name, st.n_in, st.n_out, st.active, after[i]) for i, st in enumerate(stages)]
