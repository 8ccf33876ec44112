"""The stage funnel's ranks from a record: exact at the anchors, carried through stages that keep the
order, unknown after an active stage that reorders.  No Qt."""
from __future__ import annotations

from types import SimpleNamespace as NS

import numpy as np

from app.ui.plots.funnel_ranks import funnel
from sampler.chain import StageCount


def record(stages, raw_rank, final_ids, final_p, token, scatter=None):
    return NS(stages=tuple(StageCount(*s) for s in stages), raw_rank=raw_rank, final_ids=np.array(final_ids),
              final_p=np.array(final_p, dtype=float), token=token, scatter=scatter)


def ranks(rec):
    return [row.rank for row in funnel(rec)]


def test_order_keeping_stages_carry_the_raw_rank_to_the_final_one():
    rec = record([("top_k", 1000, 40, True), ("top_p", 40, 12, True), ("min_p", 12, 12, True),
                  ("temperature", 12, 12, True), ("dist", 12, 12, True)],
                 raw_rank=3, final_ids=[5, 6, 7, 8, 9], final_p=[.4, .3, .1, .1, .1], token=8)
    assert ranks(rec) == [3, 3, 3, 3, 3]
    assert [(r.name, r.n_in, r.n_out, r.active) for r in funnel(rec)] == [
        ("top_k", 1000, 40, True), ("top_p", 40, 12, True), ("min_p", 12, 12, True),
        ("temperature", 12, 12, True), ("dist", 12, 12, True)]


def test_xtc_removes_the_most_likely_so_the_rank_falls_by_as_many():
    rec = record([("top_k", 1000, 40, True), ("xtc", 40, 37, True), ("temperature", 37, 37, True),
                  ("dist", 37, 37, True)],
                 raw_rank=5, final_ids=[1, 2, 3, 4], final_p=[.5, .2, .2, .1], token=3)
    assert ranks(rec) == [5, 2, 2, 2]


def test_an_active_penalty_hides_the_rank_until_an_anchor_gives_it_back():
    rec = record([("penalties", 1000, 1000, True), ("top_k", 1000, 40, True), ("top_p", 40, 10, True),
                  ("temperature", 10, 10, True), ("dist", 10, 10, True)],
                 raw_rank=7, final_ids=[1, 2, 3], final_p=[.5, .3, .2], token=2)
    # penalties reorder: the rank after them is known only backward, from the final list
    assert ranks(rec) == [1, 1, 1, 1, 1]
    rec = record([("penalties", 1000, 1000, True), ("typ_p", 1000, 30, True), ("top_k", 30, 20, True),
                  ("dist", 20, 20, True)],
                 raw_rank=7, final_ids=[1, 2, 3], final_p=[.5, .3, .2], token=3)
    assert ranks(rec) == [None, 2, 2, 2]  # typical reorders too: after penalties nothing can tell


def test_scatter_gives_its_own_ranks_in_and_out():
    sc = NS(fired=True, ids=np.array([10, 11, 12, 13]), p_before=np.array([.4, .3, .2, .1]),
            p_final=np.array([.3, .3, .25, .15]))
    rec = record([("penalties", 100, 100, True), ("top_k", 100, 4, True), ("scatter", 4, 4, True),
                  ("temperature", 4, 4, True), ("dist", 4, 4, True)],
                 raw_rank=9, final_ids=[10, 11, 12, 13], final_p=[.3, .3, .25, .15], token=12, scatter=sc)
    # entering scatter it was 3rd of the medium, so 3rd after top-k and after penalties; it stays 3rd
    assert ranks(rec) == [2, 2, 2, 2, 2]


def test_a_stage_that_leaves_one_candidate_makes_it_first_and_off_stages_change_nothing():
    rec = record([("penalties", 50, 50, False), ("top_k", 50, 1, True), ("dist", 1, 1, True)],
                 raw_rank=0, final_ids=[4], final_p=[1.0], token=4)
    rows = funnel(rec)
    assert [r.rank for r in rows] == [0, 0, 0] and not rows[0].active
