"""atomic_write refuses an OUT that exists and is not a regular file (issue 45, items 13 and 18): a named pipe or a
device would be deleted and replaced by a regular file, and a folder failed with the temporary file's name."""
from __future__ import annotations

import os
import socket

import pytest

from app.fileio import atomic_write

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


def _fifo(tmp_path):
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


def test_named_pipe_is_refused_and_kept(tmp_path):
    pipe = _fifo(tmp_path)
    with pytest.raises(OSError) as caught:
        atomic_write(pipe, b"{}")
    assert caught.value.filename == str(pipe) and "named pipe" in caught.value.strerror
    assert pipe.is_fifo() and sorted(p.name for p in tmp_path.iterdir()) == ["pipe.json"]


def test_link_to_a_named_pipe_is_refused(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(_fifo(tmp_path))
    with pytest.raises(OSError, match="named pipe"):
        atomic_write(link, b"{}")
    assert (tmp_path / "pipe.json").is_fifo()


def test_socket_is_refused(tmp_path):
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        with pytest.raises(OSError, match="socket"):
            atomic_write(path, b"x")
    assert path.is_socket()


def test_folder_is_named_never_the_temporary_file(tmp_path):
    folder = tmp_path / "a_dir.json"
    folder.mkdir()
    with pytest.raises(IsADirectoryError) as caught:
        atomic_write(folder, b"{}")
    assert caught.value.filename == str(folder) and ".tmp" not in str(caught.value)
    assert list(tmp_path.iterdir()) == [folder]


def test_unwritable_folder_names_the_file_not_the_temporary_one(tmp_path):
    target = tmp_path / "missing" / "x.json"
    (tmp_path / "missing").write_text("a file where a folder should be")
    with pytest.raises(OSError) as caught:
        atomic_write(target, b"{}")
    assert ".tmp" not in str(caught.value)


def test_regular_file_and_link_to_one_are_still_replaced(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    atomic_write(link, b"new")
    assert link.is_symlink() and real.read_text() == "new"


def test_every_writer_keeps_a_named_pipe(tmp_path):
    """The writers atomic_write serves (ban lists, A/B CSV) refuse the pipe with a line naming it."""
    from app.core.ab.csv_export import write_csv
    from app.core.bans.files import save_list

    pipe = _fifo(tmp_path)
    with pytest.raises(ValueError, match="pipe.json: cannot be written .*named pipe"):
        save_list(pipe, ())
    with pytest.raises(OSError, match="named pipe"):
        write_csv(pipe, [])
    assert pipe.is_fifo()
