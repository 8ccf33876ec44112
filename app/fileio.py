"""Safe file writing: atomic replacement, size-limited reads, moving a bad file aside.

A write goes to a temporary file in the same folder (``.NAME.<random>.tmp``),
is flushed and fsynced, then renamed over the target, so a crash or a
``kill -9`` leaves the old or the new content, never half of one.  Temporary
files such a crash leaves behind are removed by :func:`remove_stale_temps`,
which callers run while they hold the file's lock (so no live writer's
temporary file can be taken).
"""
from __future__ import annotations

import errno
import os
import stat
import tempfile
import time
from pathlib import Path


def fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


#: What an existing OUT that is not a regular file is, for its one line (``stat.S_IFMT`` -> words).
_KINDS = {stat.S_IFDIR: "a folder", stat.S_IFIFO: "a named pipe", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}


def refuse_unless_regular(path: str | os.PathLike) -> None:
    """OSError naming ``path`` when it exists and is not a regular file (through a link: its target).

    Replacing it would delete a named pipe or a device node (``/dev/null`` as root) and leave a
    regular file in its place; a folder would fail later with the temporary file's name.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # no file yet (or one we cannot stat: the write itself says why)
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file; not replaced", str(path))
    kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
    raise OSError(errno.EINVAL, f"{kind}, not a regular file; not replaced (name a file to write)", str(path))


def atomic_write(path: str | os.PathLike, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` through a fsynced temporary file and ``os.replace``.

    ``mode``: the file's permissions (else those of the file it replaces, or 0600 for a new one).
    A symbolic link (a dotfiles set-up) is written through: its target is replaced, atomically, in
    the target's folder, and the link stays a link.  An existing ``path`` that is not a regular file
    (a folder, a named pipe, a device such as ``/dev/stdout``) is refused (:func:`refuse_unless_regular`).
    Every OSError names ``path`` as the caller gave it, never the temporary file.
    """
    given = path
    refuse_unless_regular(given)
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    try:
        _replace(path, data, mode)
    except OSError as exc:
        if exc.errno is None:
            raise
        raise type(exc)(exc.errno, exc.strerror, str(given)) from None


def _replace(path: Path, data: bytes, mode: int | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, mode if mode is not None else os.stat(path).st_mode & 0o777)
        except OSError:
            pass  # no old file: keep mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(path.parent)


def remove_stale_temps(path: str | os.PathLike) -> list[Path]:
    """Remove the temporary files an interrupted :func:`atomic_write` of ``path`` left; return them."""
    path = Path(path)
    removed: list[Path] = []
    try:
        candidates = list(path.parent.glob(f".{path.name}.*.tmp"))
    except OSError:
        return removed
    for tmp in candidates:
        try:
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass
    return removed


def read_limited(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file ``path``; ValueError if it is larger than ``limit``.

    Anything else (a folder, a named pipe, a device) is an OSError at once:
    opening a named pipe without O_NONBLOCK would wait for a writer forever.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    with open(fd, "rb") as f:
        raw = f.read(limit + 1)
    if len(raw) > limit:
        raise ValueError(f"larger than {limit // (1024 * 1024)} MiB")
    return raw


def read_prompt_file(path: str | os.PathLike, limit: int) -> str:
    """A prompt file as llama-cli reads one: UTF-8 text, one final newline dropped.

    OSError (it cannot be read) or ValueError (too large, not UTF-8), each with a one-line reason
    that does not name the file: the caller says which flag or list it came from.
    """
    try:
        raw = read_limited(path, limit)
    except ValueError as exc:
        raise ValueError(f"{exc}, too long for a prompt") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return text[:-1] if text.endswith("\n") else text


def aside_name(path: str | os.PathLike, tag: str) -> Path:
    """A free name beside ``path``: ``NAME.<tag>-YYYYmmdd-HHMMSS[-n]``."""
    path = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{tag}-{stamp}")
    n = 2
    while os.path.lexists(target):
        target = path.with_name(f"{path.name}.{tag}-{stamp}-{n}")
        n += 1
    return target


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether two paths name the same existing file (hard links and symlinks included)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def file_signature(path: str | os.PathLike) -> tuple | None:
    """What tells one version of a file from another (None: no file): an atomic write makes a new
    inode, and any write changes the size or the change time.  Through a symbolic link: its target's."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns
