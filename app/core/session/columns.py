"""Per-record values as columns of NumPy arrays, and reading them back with every check.

A session stores its step records column by column: one array per scalar
field (a value per record), and for a field that holds an array per record
the arrays laid end to end (``NAME``) with their lengths (``NAME.len``).
Columns compress far better than records one by one, and read back exactly.

Float arrays laid end to end (logits, probabilities) are stored as bytes
that deflate better, and still exactly: each value's bits as a little-endian
unsigned integer, minus the previous value's (wrapping), then the bytes
regrouped by their place in the value (all first bytes, then all second
bytes ...): a ``uint8`` array of shape ``(itemsize, n)``.  Sorted logits
then shrink by a third.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: The dtype kinds a column of each sort may have in a file.
INT_KINDS = "iu"
FLOAT_KINDS = "f"
BOOL_KINDS = "b"


_UINT = {2: "<u2", 4: "<u4", 8: "<u8"}
_FLOAT = {2: "<f2", 4: "<f4", 8: "<f8"}


def pack_floats(a: np.ndarray) -> np.ndarray:
    """Float values as delta-coded, byte-regrouped ``uint8`` rows (see the module docstring)."""
    size = a.dtype.itemsize
    bits = np.ascontiguousarray(a, dtype=_FLOAT[size]).view(_UINT[size])
    delta = bits.copy()
    delta[1:] -= bits[:-1]  # wraps
    return np.ascontiguousarray(delta.view(np.uint8).reshape(len(a), size).T)


def unpack_floats(rows: np.ndarray) -> np.ndarray:
    size = rows.shape[0]
    delta = np.ascontiguousarray(rows.T).view(_UINT[size]).reshape(-1)
    return np.cumsum(delta, dtype=_UINT[size]).view(_FLOAT[size]).astype(_FLOAT[size][1:])


class ColumnWriter:
    """Collects named arrays for the file."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def scalars(self, name: str, values, dtype) -> None:
        self.arrays[name] = np.asarray(list(values), dtype=dtype).reshape(-1)

    def ragged(self, name: str, arrays: list, default_dtype) -> None:
        """Arrays end to end, in the dtype that holds all of them exactly (``default_dtype`` if none)."""
        arrays = [a if isinstance(a, np.ndarray) and a.ndim == 1 else np.asarray(a).reshape(-1) for a in arrays]
        dtype = np.result_type(*{a.dtype for a in arrays}) if arrays else np.dtype(default_dtype)
        flat = np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.empty(0, dtype)
        self.arrays[name] = pack_floats(flat) if dtype.kind == "f" else flat
        self.arrays[f"{name}.len"] = np.array([len(a) for a in arrays], dtype=np.int64)


class ColumnReader:
    """Named arrays from a file, each checked (present, 1-D, of the right kind and length) before use.

    Problems raise ValueError naming the column.
    """

    def __init__(self, arrays: dict[str, np.ndarray], count: int):
        self.arrays = arrays
        self.count = count

    def _array(self, name: str, kinds: str) -> np.ndarray:
        if name not in self.arrays:
            raise ValueError(f"records: the column {name!r} is missing")
        a = self.arrays[name]
        if not isinstance(a, np.ndarray) or a.ndim != 1 or a.dtype.kind not in kinds or a.dtype.hasobject:
            raise ValueError(f"records: the column {name!r} has the wrong type ({getattr(a, 'dtype', type(a))})")
        return a

    def _floats(self, name: str) -> np.ndarray:
        rows = self.arrays.get(name)
        if rows is None:
            raise ValueError(f"records: the column {name!r} is missing")
        if not isinstance(rows, np.ndarray) or rows.dtype != np.uint8 or rows.ndim != 2 or rows.shape[0] not in _FLOAT:
            raise ValueError(f"records: the column {name!r} has the wrong type ({getattr(rows, 'dtype', type(rows))}, "
                             f"shape {getattr(rows, 'shape', None)})")
        return unpack_floats(rows)

    def scalars(self, name: str, kinds: str, length: int | None = None) -> np.ndarray:
        a = self._array(name, kinds)
        want = self.count if length is None else length
        if len(a) != want:
            raise ValueError(f"records: the column {name!r} has {len(a)} values, expected {want}")
        return a

    def ints(self, name: str, lo: int | None = None, hi: int | None = None, length: int | None = None) -> list[int]:
        a = self.scalars(name, INT_KINDS, length)
        if len(a) and lo is not None and int(a.min()) < lo:
            raise ValueError(f"records: the column {name!r} holds {int(a.min())}, below {lo}")
        if len(a) and hi is not None and int(a.max()) > hi:
            raise ValueError(f"records: the column {name!r} holds {int(a.max())}, above {hi}")
        return a.tolist()

    def floats(self, name: str, length: int | None = None) -> list[float]:
        return self.scalars(name, FLOAT_KINDS, length).tolist()

    def bools(self, name: str, length: int | None = None) -> list[bool]:
        return self.scalars(name, BOOL_KINDS, length).tolist()

    def ragged(self, name: str, kinds: str, length: int | None = None, dtype=None) -> Ragged:
        """A ragged column: its values end to end and each record's count (``dtype``: only that one will do)."""
        flat = self._floats(name) if kinds == FLOAT_KINDS else self._array(name, kinds)
        if dtype is not None and flat.dtype != np.dtype(dtype):
            raise ValueError(f"records: the column {name!r} has the wrong type "
                             f"({flat.dtype}, expected {np.dtype(dtype)})")
        lengths = np.asarray(self.scalars(f"{name}.len", INT_KINDS, length), dtype=np.int64)
        if len(lengths) and (int(lengths.min()) < 0 or int(lengths.max()) > len(flat)
                             or int(lengths.sum()) != len(flat)):
            raise ValueError(f"records: the column {name!r} holds {len(flat)} values, its lengths say otherwise")
        if not len(lengths) and len(flat):
            raise ValueError(f"records: the column {name!r} holds values for no record")
        return Ragged(flat, lengths)


class Ragged(NamedTuple):
    flat: np.ndarray
    lengths: np.ndarray

    def split(self) -> list[np.ndarray]:
        """Each record's array (a view of ``flat``, which nothing else holds)."""
        flat, ends = self.flat, np.cumsum(self.lengths).tolist()
        return [flat[end - n:end] for n, end in zip(self.lengths.tolist(), ends)]


def same_lengths(what: str, *columns: Ragged) -> None:
    """ValueError naming the first record whose arrays in ``columns`` differ in length."""
    first = columns[0].lengths
    for other in columns[1:]:
        bad = np.flatnonzero(other.lengths != first)
        if len(bad):
            raise ValueError(f"records: record {int(bad[0])}'s {what} differ in length")
