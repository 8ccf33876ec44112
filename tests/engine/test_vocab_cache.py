"""Token texts: the fast path equals llama.cpp's detokenize, and the disk cache is used, checked and healed."""
from __future__ import annotations

import os

import pytest

from app.engine.llama import vocab_cache
from app.engine.llama.vocab import ModelVocabulary


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(vocab_cache.ENV_VAR, str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def reference(default_model) -> list[bytes]:
    """Every token's text, computed once for this module (the slow, exact way)."""
    vocab = ModelVocabulary(default_model.vocab.ptr)
    return [vocab.detokenize_one(t) for t in range(vocab.n_tokens)]


@pytest.fixture
def computed(monkeypatch, reference):
    """Counts computations; each returns the reference texts (the cache logic is under test)."""
    calls = []

    def counting(self):
        calls.append(self)
        return list(reference)

    monkeypatch.setattr(ModelVocabulary, "_detokenize_all", counting)
    return calls


def fresh(model) -> ModelVocabulary:
    return ModelVocabulary(model.vocab.ptr, model_path=model.info.path)


def test_fast_texts_equal_detokenize_one_for_every_token(default_model, reference):
    vocab = ModelVocabulary(default_model.vocab.ptr)  # no model path: no disk cache
    texts = vocab._detokenize_all()
    assert len(texts) == vocab.n_tokens == 262144
    assert texts == reference
    assert vocab.token_strs()[2] == texts[2].decode()


def test_second_load_reads_the_disk_cache(default_model, cache_dir, computed):
    first = fresh(default_model).token_texts()
    assert len(computed) == 1
    files = list((cache_dir / "vocab").glob("*.bin"))
    assert len(files) == 1
    again = fresh(default_model)
    assert again.token_texts() == first
    assert len(computed) == 1  # read back, not recomputed
    assert again.token_strs() is again.token_strs()


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_damaged_cache_file_is_recomputed_and_rewritten(default_model, cache_dir, computed, damage):
    expected = fresh(default_model).token_texts()
    (path,) = (cache_dir / "vocab").glob("*.bin")
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[-100] ^= 0x55
    else:
        data = bytearray(b"not a cache file")
    path.write_bytes(bytes(data))
    assert fresh(default_model).token_texts() == expected
    assert len(computed) == 2
    assert fresh(default_model).token_texts() == expected
    assert len(computed) == 2  # the rewritten file is good


def test_cache_with_wrong_texts_fails_the_spot_check(default_model, cache_dir, computed, reference):
    vocab = fresh(default_model)
    key = vocab_cache.model_key(vocab.model_path, vocab.n_tokens)
    wrong = list(reference)
    wrong[0] = b"not the text of token 0"
    assert vocab_cache.save(key, wrong)  # a valid file, with a wrong text in it
    assert vocab.token_texts()[0] == reference[0]
    assert len(computed) == 1


def test_key_follows_the_model_file(tmp_path):
    f = tmp_path / "m.gguf"
    f.write_bytes(b"GGUF" + bytes(100))
    k1 = vocab_cache.model_key(f, 10)
    os.utime(f, ns=(1_000_000_000, 1_000_000_000))
    k2 = vocab_cache.model_key(f, 10)
    f.write_bytes(b"GGUF" + bytes(101))
    os.utime(f, ns=(1_000_000_000, 1_000_000_000))
    k3 = vocab_cache.model_key(f, 10)
    assert len({str(k1), str(k2), str(k3)}) == 3
    assert vocab_cache.model_key(tmp_path / "missing.gguf", 10) is None


def test_cache_round_trip_and_key_mismatch(tmp_path):
    texts = [b"", b"a", b"\x00\xff", "é".encode(), b"long" * 100]
    key = {"model": "x", "size": 1, "mtime_ns": 2, "n_tokens": len(texts), "llama_cpp": "0", "format": 1}
    assert vocab_cache.save(key, texts, root=tmp_path)
    assert vocab_cache.load(key, root=tmp_path) == texts
    assert vocab_cache.load({**key, "mtime_ns": 3}, root=tmp_path) is None


def test_unwritable_cache_still_gives_texts(default_model, tmp_path, monkeypatch, computed, reference):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv(vocab_cache.ENV_VAR, str(blocker))
    assert fresh(default_model).token_texts() == reference
    assert fresh(default_model).token_texts() == reference
    assert len(computed) == 2
