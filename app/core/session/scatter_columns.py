"""A step record's scatter trace (:class:`sampler.scatter.ScatterTrace`) as record columns.

Scalars as ``scatter.<field>`` (``gate_u`` None as ``scatter.gate_u_set`` false),
the arrays as ragged columns.  ``p_final`` is stored as its bits xor those of
``p_diffused`` when every trace allows it (the session's
``records.p_final_xor_p_diffused`` says so): without absorption the two are
equal, and zeros cost nothing.
"""
from __future__ import annotations

import numpy as np

from sampler.scatter import ScatterTrace

from .columns import FLOAT_KINDS, INT_KINDS, ColumnReader, ColumnWriter, Ragged, same_lengths

SCATTER_ARRAYS = ("ids", "p_before", "q", "p_diffused", "absorption_factors", "p_final")
_EMPTY_I = np.empty(0, dtype=np.int32)
_EMPTY_F = np.empty(0, dtype=np.float64)


def encode_scatter(w: ColumnWriter, traces: list) -> bool:
    """The scatter columns; whether ``p_final`` is stored xor ``p_diffused``."""
    w.scalars("scatter", (t is not None for t in traces), bool)
    for name in ("step", "m"):
        w.scalars(f"scatter.{name}", (getattr(t, name) if t else 0 for t in traces), np.int64)
    for name in ("enabled", "gate_drawn", "fired"):
        w.scalars(f"scatter.{name}", (getattr(t, name) if t else False for t in traces), bool)
    w.scalars("scatter.gate_u", (t.gate_u if t and t.gate_u is not None else 0.0 for t in traces), np.float64)
    w.scalars("scatter.gate_u_set", (t is not None and t.gate_u is not None for t in traces), bool)
    for name in ("entropy", "strength", "mass_outside"):
        w.scalars(f"scatter.{name}", (getattr(t, name) if t else 0.0 for t in traces), np.float64)
    columns = {name: [np.asarray(getattr(t, name)) if t else (_EMPTY_I if name == "ids" else _EMPTY_F)
                      for t in traces] for name in SCATTER_ARRAYS}
    xor = _xor_fits(columns["p_final"], columns["p_diffused"])
    if xor:  # without absorption p_final is p_diffused: its bits xor theirs are zeros
        columns["p_final"] = [_xor(a, b) for a, b in zip(columns["p_final"], columns["p_diffused"])]
    for name, arrays in columns.items():
        w.ragged(f"scatter.{name}", arrays, np.int32 if name == "ids" else np.float64)
    return xor


def _xor_fits(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    dtypes = {x.dtype for x in a + b}
    return len(dtypes) <= 1 and all(len(x) == len(y) for x, y in zip(a, b)) and (not dtypes or dtypes.pop().kind == "f")


def _xor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The bits of ``a`` xor those of ``b``, as ``a``'s dtype (its own inverse)."""
    uint = f"u{a.dtype.itemsize}"
    return (a.view(uint) ^ b.astype(a.dtype).view(uint)).view(a.dtype)


def decode_scatter(r: ColumnReader, xor: bool) -> list[ScatterTrace | None]:
    has = r.bools("scatter")
    step, m = r.ints("scatter.step"), r.ints("scatter.m", lo=0)
    enabled, gate_drawn, fired = (r.bools(f"scatter.{n}") for n in ("enabled", "gate_drawn", "fired"))
    gate_u, gate_u_set = r.floats("scatter.gate_u"), r.bools("scatter.gate_u_set")
    entropy, strength, outside = (r.floats(f"scatter.{n}") for n in ("entropy", "strength", "mass_outside"))
    columns = {n: r.ragged(f"scatter.{n}", INT_KINDS if n == "ids" else FLOAT_KINDS) for n in SCATTER_ARRAYS}
    same_lengths("scatter arrays", *(columns[n] for n in SCATTER_ARRAYS[1:]))
    bad = np.flatnonzero(columns["p_before"].lengths > columns["ids"].lengths)
    if len(bad):
        raise ValueError(f"records: record {int(bad[0])}'s scatter trace has more probabilities than ids")
    if xor:
        p_final = columns["p_final"]
        columns["p_final"] = Ragged(_xor(p_final.flat, columns["p_diffused"].flat), p_final.lengths)
    arrays = [columns[n].split() for n in SCATTER_ARRAYS]
    out: list[ScatterTrace | None] = []
    for i, row in enumerate(zip(*arrays)):
        if not has[i]:
            out.append(None)
            continue
        out.append(ScatterTrace(
            step=step[i], enabled=enabled[i], gate_drawn=gate_drawn[i], gate_u=gate_u[i] if gate_u_set[i] else None,
            fired=fired[i], m=m[i], entropy=entropy[i], strength=strength[i], mass_outside=outside[i],
            **dict(zip(SCATTER_ARRAYS, row)),
        ))
    return out
