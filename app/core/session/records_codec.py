"""Step records to columns and back (see :mod:`app.core.session.columns`).

Everything a record holds is kept exactly (same values, same dtypes), with
one exception: a final distribution of more than :data:`FINAL_KEEP`
candidates (top-k off: up to the whole vocabulary) keeps its
:data:`FINAL_KEEP` most likely candidates (ties: the earlier one) and the
chosen token, in their order; ``chosen_index`` then counts among those.
What is left out is summed up in the record's ``final_tail`` (how many, their
mass, their sum of ``p log p``), so the post-chain entropy stays exact
(:func:`app.core.analysis.final_entropy`).  Every panel reads at most the 64 most
likely final candidates, so nothing on screen changes.

Shared values are stored once: the settings (a table, each record naming
its row) and the stages' names (a table of name lists).
"""
from __future__ import annotations

import numpy as np

from app.engine.face.records import FinalTail, StepRecord
from sampler import SamplerSettings, settings_from_dict, settings_to_dict
from sampler.chain import StageCount

from .ban_hits_codec import decode_ban_hits, encode_ban_hits
from .columns import BOOL_KINDS, FLOAT_KINDS, INT_KINDS, ColumnReader, ColumnWriter, same_lengths
from .scatter_columns import decode_scatter, encode_scatter

#: The most random words a record's chain state may have drawn (restoring one draws them all again:
#: a file claiming 2**40 once made the app allocate gigabytes); far above any run the window allows.
MAX_DRAWN = 2**26
#: How many of a large final distribution's candidates a session keeps (the most likely).
FINAL_KEEP = 64


def top_indices(p: np.ndarray, k: int) -> np.ndarray:
    """The positions of the ``k`` largest values, ascending; of equal values the earlier ones
    (what a stable sort by descending value would take first), in linear time."""
    if len(p) <= k:
        return np.arange(len(p))
    kth = np.partition(p, len(p) - k)[len(p) - k]  # the k-th largest
    above = np.flatnonzero(p > kth)
    return np.sort(np.concatenate([above, np.flatnonzero(p == kth)[: k - len(above)]]))


def kept_final(rec: StepRecord) -> tuple[np.ndarray, np.ndarray, int, FinalTail | None]:
    """``(final_ids, final_p, chosen_index, final_tail)`` as a session keeps them."""
    ids, p = np.asarray(rec.final_ids), np.asarray(rec.final_p)
    if len(p) <= FINAL_KEEP:
        return ids, p, rec.chosen_index, rec.final_tail
    keep = top_indices(p, FINAL_KEEP)
    if 0 <= rec.chosen_index < len(p) and rec.chosen_index not in keep:
        keep = np.sort(np.append(keep, rec.chosen_index))
    dropped = np.ones(len(p), dtype=bool)
    dropped[keep] = False
    rest = p[dropped].astype(np.float64)
    nz = rest[rest > 0]
    old = rec.final_tail or FinalTail(0, 0.0, 0.0)
    tail = FinalTail(old.n + int(dropped.sum()), old.mass + float(rest.sum()),
                     old.plogp + float((nz * np.log(nz)).sum()))
    chosen = int(np.searchsorted(keep, rec.chosen_index)) if 0 <= rec.chosen_index < len(p) else rec.chosen_index
    return ids[keep], p[keep], chosen, tail


def _table_index(table: list, index: dict, value) -> int:
    try:
        found = index.get(value)
    except TypeError:  # unhashable: compare one by one
        found = next((i for i, v in enumerate(table) if v == value), None)
    if found is None:
        found = len(table)
        table.append(value)
        try:
            index[value] = found
        except TypeError:
            pass
    return found


def _chain_state(state) -> tuple[list[int], list[int]]:
    if state is None:
        return [], []
    try:
        pairs = [(int(seed), int(drawn)) for seed, drawn in state]
    except (TypeError, ValueError):
        raise ValueError(f"a record's chain state cannot be stored: {state!r}") from None
    return [s for s, _ in pairs], [d for _, d in pairs]


def encode_records(records: list[StepRecord]) -> tuple[dict, dict[str, np.ndarray]]:
    """``(meta, arrays)``: the JSON part (tables) and the columns of ``records``."""
    settings: list[SamplerSettings] = []
    settings_index: dict[SamplerSettings, int] = {}
    stage_sets: list[tuple[str, ...]] = []
    stage_index: dict[tuple[str, ...], int] = {}
    w = ColumnWriter()
    kept = [kept_final(r) for r in records]
    for r, (ids, p, chosen, _) in zip(records, kept):  # what a reader would refuse is not written
        if not (-1 <= chosen < len(ids) == len(p)) or not np.all(np.isfinite(p)) or np.any(p < 0):
            raise ValueError(f"lane {r.lane + 1}, step {r.step}: a record with a damaged final distribution")
    for name in ("lane", "step", "token", "raw_rank"):
        w.scalars(name, (getattr(r, name) for r in records), np.int64)
    w.scalars("chosen_index", (k[2] for k in kept), np.int64)
    for name in ("chosen_p", "decode_ms", "chain_ms", "temperature", "raw_logit", "raw_logsumexp"):
        w.scalars(name, (getattr(r, name) for r in records), np.float64)
    w.scalars("forced", (r.forced for r in records), bool)
    w.scalars("settings", (_table_index(settings, settings_index, r.settings) for r in records), np.int64)
    w.ragged("piece", [np.frombuffer(r.piece, dtype=np.uint8) for r in records], np.uint8)
    w.ragged("text", [np.frombuffer(r.text.encode("utf-8", "surrogatepass"), dtype=np.uint8) for r in records],
             np.uint8)
    w.ragged("top_ids", [r.top_ids for r in records], np.int32)
    w.ragged("top_logits", [r.top_logits for r in records], np.float32)
    w.ragged("final_ids", [k[0] for k in kept], np.int32)
    w.ragged("final_p", [k[1] for k in kept], np.float32)
    tails = [k[3] for k in kept]
    w.scalars("final_tail", (t is not None for t in tails), bool)
    w.scalars("final_tail.n", (t.n if t else 0 for t in tails), np.int64)
    w.scalars("final_tail.mass", (t.mass if t else 0.0 for t in tails), np.float64)
    w.scalars("final_tail.plogp", (t.plogp if t else 0.0 for t in tails), np.float64)
    w.scalars("stages", (_table_index(stage_sets, stage_index, tuple(s.name for s in r.stages)) for r in records),
              np.int64)
    for name in ("n_in", "n_out"):
        w.ragged(f"stages.{name}", [np.array([getattr(s, name) for s in r.stages], np.int64) for r in records],
                 np.int64)
    w.ragged("stages.active", [np.array([s.active for s in r.stages], bool) for r in records], bool)
    chains = [_chain_state(r.chain_state) for r in records]
    w.scalars("chain_state", (r.chain_state is not None for r in records), bool)
    w.ragged("chain_state.seed", [np.array(c[0], np.int64) for c in chains], np.int64)
    w.ragged("chain_state.drawn", [np.array(c[1], np.int64) for c in chains], np.int64)
    w.ragged("banned", [np.array(r.banned, np.int32) for r in records], np.int32)  # banned phrases
    w.scalars("ban_kept", (r.ban_kept for r in records), bool)
    xor = encode_scatter(w, [r.scatter for r in records])
    meta = {
        "count": len(records),
        "final_keep": FINAL_KEEP,
        "p_final_xor_p_diffused": xor,
        "settings": [settings_to_dict(s) for s in settings],
        "stage_sets": [list(names) for names in stage_sets],
        **encode_ban_hits(records),
    }
    return meta, w.arrays


def _check_list(where: str, value, item_check) -> list:
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a list, got {type(value).__name__}")
    for i, item in enumerate(value):
        if not item_check(item):
            raise ValueError(f"{where}[{i}]: not the right kind of value ({item!r:.60})")
    return value


def decode_records(meta, arrays: dict[str, np.ndarray]) -> list[StepRecord]:
    """The records ``encode_records`` described; ValueError names the first problem."""
    if not isinstance(meta, dict):
        raise ValueError(f"records: expected an object, got {type(meta).__name__}")
    count = meta.get("count")
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"records.count: expected a whole number, got {count!r:.60}")
    settings = [settings_from_dict(d, f"records.settings[{i}]")
                for i, d in enumerate(_check_list("records.settings", meta.get("settings"), lambda d: True))]
    stage_sets = [tuple(names) for names in _check_list(
        "records.stage_sets", meta.get("stage_sets"),
        lambda names: isinstance(names, list) and all(isinstance(n, str) for n in names))]
    xor = meta.get("p_final_xor_p_diffused")
    if not isinstance(xor, bool):
        raise ValueError(f"records.p_final_xor_p_diffused: expected true or false, got {xor!r:.60}")
    r = ColumnReader(arrays, count)
    lane, step, token, raw_rank = (r.ints(n, lo=-(2**31), hi=2**31 - 1) for n in ("lane", "step", "token", "raw_rank"))
    chosen_index = r.ints("chosen_index", lo=-1)
    chosen_p, decode_ms, chain_ms, temperature = (r.floats(n) for n in ("chosen_p", "decode_ms", "chain_ms",
                                                                         "temperature"))
    forced = r.bools("forced")
    raw_logit, raw_logsumexp = (_optional_floats(r, n) for n in ("raw_logit", "raw_logsumexp"))
    which_settings = r.ints("settings", lo=0, hi=len(settings) - 1)
    pieces = [a.tobytes() for a in r.ragged("piece", INT_KINDS, dtype=np.uint8).split()]
    texts = [_text(a) for a in r.ragged("text", INT_KINDS, dtype=np.uint8).split()]
    top_ids, top_logits = r.ragged("top_ids", INT_KINDS), r.ragged("top_logits", FLOAT_KINDS)
    final_ids, final_p = r.ragged("final_ids", INT_KINDS), r.ragged("final_p", FLOAT_KINDS)
    same_lengths("top ids and logits", top_ids, top_logits)
    same_lengths("final ids and probabilities", final_ids, final_p)
    if not np.all(np.isfinite(final_p.flat)) or np.any(final_p.flat < 0):
        raise ValueError("records: final probabilities are not all finite and non-negative")
    beyond = np.flatnonzero(np.asarray(chosen_index, dtype=np.int64) >= final_ids.lengths)
    if len(beyond):
        raise ValueError(f"records: record {int(beyond[0])}'s chosen index is beyond its final candidates")
    columns = (top_ids.split(), top_logits.split(), final_ids.split(), final_p.split(), _tails(r),
               _stages(r, stage_sets), _chains(r), decode_scatter(r, xor), *_bans(r), decode_ban_hits(meta, count))
    return [
        StepRecord(
            lane=lane[i], step=step[i], token=token[i], piece=pieces[i], text=texts[i], raw_rank=raw_rank[i],
            chosen_index=chosen_index[i], chosen_p=chosen_p[i], top_ids=t_ids, top_logits=t_logits,
            stages=stages, scatter=scatter, final_ids=f_ids, final_p=f_p, decode_ms=decode_ms[i],
            chain_ms=chain_ms[i], temperature=temperature[i], settings=settings[which_settings[i]], forced=forced[i],
            chain_state=chain, final_tail=tail, raw_logit=raw_logit[i], raw_logsumexp=raw_logsumexp[i],
            banned=banned, ban_kept=kept, ban_hits=hits,
        )
        for i, (t_ids, t_logits, f_ids, f_p, tail, stages, chain, scatter, banned, kept, hits)
        in enumerate(zip(*columns))
    ]


def _optional_floats(r: ColumnReader, name: str) -> list[float]:
    """A float column added after the first sessions were written: missing means NaN (the record's own default:
    not measured).  NaN is a legal value here (the log-sum-exp is only taken when a run asks for it)."""
    if name not in r.arrays:
        return [float("nan")] * r.count
    return r.floats(name)


def _bans(r: ColumnReader) -> tuple[list, list]:
    """Each record's banned tokens and ban-kept mark (sessions written before banned phrases have neither)."""
    if "ban_kept" not in r.arrays and "banned" not in r.arrays:
        return [()] * r.count, [False] * r.count
    banned = r.ragged("banned", INT_KINDS)
    return [tuple(a.tolist()) for a in banned.split()], r.bools("ban_kept")


def _text(a: np.ndarray) -> str:
    try:
        return a.tobytes().decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as exc:
        raise ValueError(f"records: a record's text is not UTF-8 ({exc.reason})") from None


def _tails(r: ColumnReader) -> list[FinalTail | None]:
    has = r.scalars("final_tail", BOOL_KINDS)
    n = r.ints("final_tail.n", lo=0)
    mass, plogp = r.scalars("final_tail.mass", FLOAT_KINDS), r.scalars("final_tail.plogp", FLOAT_KINDS)
    ok = np.isfinite(mass) & (mass >= 0) & np.isfinite(plogp) & (plogp <= 0)
    bad = np.flatnonzero(has & ~ok)
    if len(bad):
        raise ValueError(f"records: record {int(bad[0])}'s left-out candidates have a bad mass or entropy")
    return [FinalTail(k, m, e) if h else None for h, k, m, e in zip(has.tolist(), n, mass.tolist(), plogp.tolist())]


def _stages(r: ColumnReader, stage_sets: list[tuple[str, ...]]) -> list[tuple[StageCount, ...]]:
    which = r.ints("stages", lo=0, hi=len(stage_sets) - 1)
    n_in, n_out = r.ragged("stages.n_in", INT_KINDS), r.ragged("stages.n_out", INT_KINDS)
    active = r.ragged("stages.active", BOOL_KINDS)
    same_lengths("stage counts", n_in, n_out, active)
    sizes = np.array([len(names) for names in stage_sets], dtype=np.int64)
    bad = np.flatnonzero(sizes[np.asarray(which, dtype=np.int64)] != n_in.lengths) if which else np.zeros(0, np.intp)
    if len(bad):
        raise ValueError(f"records: record {int(bad[0])}'s stage counts do not match its stages")
    made: dict[tuple, StageCount] = {}  # the same counts recur: one object each
    flat = list(zip(n_in.flat.tolist(), n_out.flat.tolist(), active.flat.tolist()))
    out, at = [], 0
    for k in which:
        names = stage_sets[k]
        row = []
        for name, counts in zip(names, flat[at:at + len(names)]):
            key = (name, *counts)
            stage = made.get(key)
            if stage is None:
                stage = made[key] = StageCount(*key)
            row.append(stage)
        out.append(tuple(row))
        at += len(names)
    return out


def _chains(r: ColumnReader) -> list:
    has = r.scalars("chain_state", BOOL_KINDS)
    seeds, drawn = r.ragged("chain_state.seed", INT_KINDS), r.ragged("chain_state.drawn", INT_KINDS)
    same_lengths("chain state seeds and draws", seeds, drawn)
    bad = np.flatnonzero(~has & (seeds.lengths > 0))
    if len(bad) or np.any(drawn.flat < 0) or np.any(drawn.flat > MAX_DRAWN):
        raise ValueError(f"records: record {int(bad[0]) if len(bad) else '?'}'s chain state is damaged")
    pairs = list(zip(seeds.flat.tolist(), drawn.flat.tolist()))
    ends = np.cumsum(seeds.lengths).tolist()
    return [tuple(pairs[end - n:end]) if h else None for h, n, end in zip(has.tolist(), seeds.lengths.tolist(), ends)]
