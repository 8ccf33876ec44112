"""Whether a loaded model's file was changed in place under it (no llama.cpp here: the window's side
asks too, to name the file when the engine's process dies of it).  See app.engine.llama.model_file."""
from __future__ import annotations

import os
from dataclasses import dataclass


class ModelFileChanged(Exception):
    """The file under a loaded model was cut short or rewritten; the model cannot be used any more."""


@dataclass(frozen=True)
class Fingerprint:
    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path) -> Fingerprint | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def changed_in_place(path, loaded: Fingerprint | None) -> str | None:
    """One line when the file at ``path`` is the one loaded (same inode) but cut short or rewritten;
    None when it is unchanged, gone, or another file (the mapping holds the loaded one)."""
    now = Fingerprint.of(path)
    if loaded is None or now is None or (now.device, now.inode) != (loaded.device, loaded.inode):
        return None
    if now.size != loaded.size:
        how = f"cut to {now.size:,} bytes (was {loaded.size:,})" if now.size < loaded.size else \
            f"rewritten ({now.size:,} bytes, was {loaded.size:,})"
    elif now.mtime_ns != loaded.mtime_ns:
        how = "rewritten in place"
    else:
        return None
    return f"the model file {path} was {how} during the run; text kept, load it again"
