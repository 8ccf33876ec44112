"""Loading models: every bad file gives a ModelLoadError naming the file and the
reason, a failed load leaves nothing behind, and the progress callback reports
and cancels.
"""
from __future__ import annotations

import shutil
import struct

import pytest

from app.engine.llama.model import GGUF_MAGIC, LoadedModel, ModelLoadError, check_gguf_file, default_model_path


@pytest.fixture(scope="module")
def model_path():
    return default_model_path()


def load_error(path, **kw) -> str:
    with pytest.raises(ModelLoadError) as info:
        LoadedModel(path, gpu_layers=0, **kw)
    message = str(info.value)
    assert str(path) in message, f"the message does not name the file: {message!r}"
    return message


def test_missing_file(tmp_path):
    message = load_error(tmp_path / "nope.gguf")
    assert "no such file" in message


def test_a_directory(tmp_path):
    message = load_error(tmp_path)
    assert "not a file" in message


@pytest.mark.parametrize("content", [b"", b"hello, world\n", b"GGU", b"PK\x03\x04" + b"\0" * 200],
                         ids=["empty", "text", "short", "zip"])
def test_not_a_gguf_file(tmp_path, content):
    path = tmp_path / "model.gguf"
    path.write_bytes(content)
    message = load_error(path)
    assert "not a GGUF" in message


def test_unsupported_gguf_version(tmp_path):
    path = tmp_path / "v99.gguf"
    path.write_bytes(GGUF_MAGIC + struct.pack("<I", 99) + b"\0" * 64)
    message = load_error(path)
    assert "version 99" in message


@pytest.mark.parametrize("size", [20, 100, 4 << 20, 16 << 20], ids=["20B", "100B", "4MB", "16MB"])
def test_truncated_gguf(tmp_path, model_path, size):
    path = tmp_path / "truncated.gguf"
    with open(model_path, "rb") as src:
        path.write_bytes(src.read(size))
    message = load_error(path)
    assert any(word in message for word in ("truncated", "corrupt", "incomplete")), message


def test_unknown_architecture(tmp_path, model_path):
    path = tmp_path / "other-arch.gguf"
    shutil.copyfile(model_path, path)
    with open(path, "r+b") as f:
        head = f.read(4096)
        at = head.find(b"gemma3")
        assert at > 0 and b"general.architecture" in head[:at]
        f.seek(at)
        f.write(b"zorbax")
    message = load_error(path)
    assert "architecture" in message and "zorbax" in message


def test_negative_gpu_layers(model_path):
    with pytest.raises(ModelLoadError) as info:
        LoadedModel(model_path, gpu_layers=-1)
    message = str(info.value)
    assert str(model_path) in message and "-1" in message and "GPU layers" in message


def test_check_gguf_file_accepts_the_real_model(model_path):
    assert check_gguf_file(str(model_path)) == model_path


def test_a_good_load_works_after_failed_ones(tmp_path, model_path, default_model):
    bad = tmp_path / "bad.gguf"
    with open(model_path, "rb") as src:
        bad.write_bytes(src.read(1 << 20))
    for _ in range(2):
        load_error(bad)
    with LoadedModel(model_path, gpu_layers=0) as model:
        assert model.info.architecture == "gemma3"
        assert model.info.n_vocab == default_model.info.n_vocab == 262144
        assert model.vocab.tokenize_plain(b"Hello") == default_model.vocab.tokenize_plain(b"Hello")
    assert model.handle is None
    model.close()  # closing twice is harmless
    # The session's model is untouched.
    assert default_model.vocab.piece(default_model.vocab.tokenize_plain(b" world")[0]) == b" world"


def test_progress_reports_fractions_ending_at_one(model_path):
    fractions = []
    with LoadedModel(model_path, gpu_layers=0, progress=fractions.append) as model:
        assert model.info.architecture == "gemma3"
    assert len(fractions) >= 2
    assert all(0.0 <= f <= 1.0 for f in fractions)
    assert fractions == sorted(fractions)
    assert fractions[-1] == 1.0


@pytest.mark.parametrize("after", [1, 3])
def test_progress_returning_false_cancels(model_path, after):
    calls = []

    def progress(fraction):
        calls.append(fraction)
        return len(calls) < after

    message = load_error(model_path, progress=progress)
    assert "cancelled" in message
    assert len(calls) == after  # no more calls once cancelled
    if after > 1:  # a load cancelled half-way leaves nothing behind that stops the next one
        with LoadedModel(model_path, gpu_layers=0) as model:
            assert model.info.n_vocab == 262144
