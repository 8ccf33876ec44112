"""A bundled model that fails to load is hashed again, whatever its stamp says, and rebuilt if damaged.

The stamp (size and mtime) lets a start trust the file with one ``stat``: damage that keeps both
(a header flipped in place, the mtime put back) would fail every run for good.  So a failed load of
the bundled model re-verifies its sha256; a damaged file is rebuilt from the package's parts and
loaded once more.  An intact file's failure is the load's own (memory, a backend), and is passed on.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from app.engine.llama.bundled import BundledModelError, Message, Source, _build, _check_existing, _write_stamp, package_source

T = TypeVar("T")


def rebuild_if_damaged(target: Path, message: Message | None = None, source: Source | None = None) -> bool:
    """Hash ``target``; rebuild it if it is not the package's model.  True when it was rebuilt."""
    src = source or package_source()
    total = sum(p.stat().st_size for p in src.parts)
    reason = _check_existing(Path(target), src, total)
    if reason is None:
        _write_stamp(Path(target), src)
        return False
    if message:
        message(f"The bundled model at {target} is damaged ({reason}); rebuilding it ...")
    _build(Path(target), src, total, None)
    return True


def load_bundled(target: Path, load: Callable[[], T], error: type[Exception],
                 message: Message | None = None, source: Source | None = None) -> T:
    """``load()``; when it raises ``error``, verify the bundled model and, if it was damaged, load the rebuilt one."""
    try:
        return load()
    except error:
        try:
            rebuilt = rebuild_if_damaged(target, message, source)
        except (BundledModelError, OSError):
            rebuilt = False
        if not rebuilt:
            raise
    return load()
