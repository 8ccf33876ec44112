"""llama.cpp's ``llama_sampler_softmax_impl``."""
from __future__ import annotations

from ..candidates import Candidates
from ..cfloat import expf, seq_sum_f32
from ..sorting import desc_order


def sort_desc(cur: Candidates) -> None:
    if not cur.sorted:
        cur.take(desc_order(cur.logits), sorted=True)


def softmax(cur: Candidates, do_sort: bool) -> None:
    """Fill ``cur.p`` (float32, summed in array order), sorting first if asked."""
    if len(cur) == 0:
        raise ValueError("softmax of an empty candidate set")
    if do_sort:
        sort_desc(cur)
    max_l = cur.logits[0] if cur.sorted else cur.logits.max()
    e = expf(cur.logits - max_l)
    cur.p = e / seq_sum_f32(e)
