"""Per-record values as columns of NumPy arrays, and reading them back with every check.

A session stores its step records column by column: one array per scalar
field (a value per record), and for a field that holds an array per record
the arrays laid end to end (``NAME``) with their lengths (``NAME.len``).
Columns compress far better than records one by one, and read back exactly.
"""
from __future__ import annotations

import numpy as np

#: The dtype kinds a column of each sort may have in a file.
INT_KINDS = "iu"
FLOAT_KINDS = "f"
BOOL_KINDS = "b"


class ColumnWriter:
    """Collects named arrays for the file."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def scalars(self, name: str, values, dtype) -> None:
        self.arrays[name] = np.asarray(list(values), dtype=dtype).reshape(-1)

    def ragged(self, name: str, arrays: list, default_dtype) -> None:
        """Arrays end to end, in the dtype that holds all of them exactly (``default_dtype`` if none)."""
        arrays = [np.asarray(a).reshape(-1) for a in arrays]
        dtype = np.result_type(*arrays) if arrays else np.dtype(default_dtype)
        self.arrays[name] = np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.empty(0, dtype)
        self.arrays[f"{name}.len"] = np.fromiter((len(a) for a in arrays), dtype=np.int64, count=len(arrays))


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

    def ragged(self, name: str, kinds: str, length: int | None = None, dtype=None) -> list[np.ndarray]:
        """The arrays of a ragged column, each a copy of its own (``dtype``: only that one will do)."""
        flat = self._array(name, kinds)
        if dtype is not None and flat.dtype != np.dtype(dtype):
            raise ValueError(f"records: the column {name!r} has the wrong type ({flat.dtype}, expected {np.dtype(dtype)})")
        lengths = np.asarray(self.ints(f"{name}.len", lo=0, length=length), dtype=np.int64)
        if int(lengths.sum()) != len(flat):
            raise ValueError(f"records: the column {name!r} holds {len(flat)} values, its lengths say {int(lengths.sum())}")
        ends = np.cumsum(lengths)
        return [flat[end - n:end].copy() for n, end in zip(lengths.tolist(), ends.tolist())]
