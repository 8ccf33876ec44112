"""Incremental detokenising: token bytes in, whole characters out."""
from __future__ import annotations

import codecs


class TextStream:
    """Joins token pieces; a multi-byte character split over tokens comes out whole."""

    def __init__(self):
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.text = ""

    def push(self, piece: bytes) -> str:
        """Add one token's bytes; return the text completed by it."""
        new = self._decoder.decode(piece)
        self.text += new
        return new

    def flush(self) -> str:
        new = self._decoder.decode(b"", final=True)
        self.text += new
        return new
