"""A model's vocabulary: token texts, tokenising and incremental detokenising."""
from __future__ import annotations

import ctypes
import threading

import llama_cpp as ll

from app.engine.face.token_kinds import kind_from_attr
from app.engine.llama import vocab_cache

#: ``llama_detokenize`` with plain addresses for arguments: several times cheaper per
#: call than the bindings' wrapper, which matters over 262,144 tokens.
_DETOKENIZE_PROTO = ctypes.CFUNCTYPE(
    ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32,
    ctypes.c_bool, ctypes.c_bool,
)
#: Tokens whose cached text is compared with llama.cpp's on every load of a cache file.
_SPOT_CHECKS = 64


class ModelVocabulary:
    """Wraps a ``llama_vocab`` pointer; satisfies ``sampler.stages.dry.Vocabulary``."""

    def __init__(self, vocab_ptr, *, model_path=None):
        """``model_path``, the model file, lets :meth:`token_texts` use the disk cache."""
        self.ptr = vocab_ptr
        self.n_tokens = int(ll.llama_vocab_n_tokens(vocab_ptr))
        self.model_path = model_path
        self._texts: list[bytes] | None = None
        self._strs: list[str] | None = None
        self._texts_lock = threading.Lock()
        self._piece_buf = ctypes.create_string_buffer(64)
        #: Whether a prompt starts with BOS (the model's metadata says).
        self.add_bos = bool(ll.llama_vocab_get_add_bos(vocab_ptr))

    def piece(self, token: int, *, special: bool = True) -> bytes:
        """The bytes of one token (``llama_token_to_piece``), growing the buffer as needed."""
        buf = self._piece_buf
        n = ll.llama_token_to_piece(self.ptr, int(token), buf, len(buf), 0, special)
        if n < 0:
            buf = self._piece_buf = ctypes.create_string_buffer(-n)
            n = ll.llama_token_to_piece(self.ptr, int(token), buf, len(buf), 0, special)
        return buf.raw[:n]

    def detokenize_one(self, token: int) -> bytes:
        """llama.cpp's ``vocab.detokenize({token}, true)`` (what DRY scans)."""
        arr = (ll.llama_token * 1)(int(token))
        size = 64
        while True:
            buf = ctypes.create_string_buffer(size)
            n = ll.llama_detokenize(self.ptr, arr, 1, buf, size, False, True)
            if n >= 0:
                return buf.raw[:n]
            size = -n

    def token_texts(self) -> list[bytes]:
        """Every token's :meth:`detokenize_one`, computed once per model file (disk cache,
        app/engine/vocab_cache.py) and once per instance; safe to call from any thread."""
        if self._texts is None:
            with self._texts_lock:
                if self._texts is None:
                    self._texts = self._cached_or_computed_texts()
        return self._texts

    def token_kinds(self) -> bytes:
        """Each token's kind (:mod:`app.engine.face.token_kinds`) from llama.cpp's attributes, one byte per token."""
        get_attr, ptr = ll.llama_vocab_get_attr, self.ptr
        return bytes(kind_from_attr(get_attr(ptr, t)) for t in range(self.n_tokens))

    def token_strs(self) -> list[str]:
        """:meth:`token_texts` decoded (UTF-8, invalid bytes replaced), for labels."""
        if self._strs is None:
            texts = self.token_texts()
            with self._texts_lock:
                if self._strs is None:
                    self._strs = [t.decode("utf-8", "replace") for t in texts]
        return self._strs

    def _cached_or_computed_texts(self) -> list[bytes]:
        key = vocab_cache.model_key(self.model_path, self.n_tokens) if self.model_path else None
        if key is not None:
            texts = vocab_cache.load(key)
            if texts is not None and self._spot_check(texts):
                return texts
        texts = self._detokenize_all()
        if key is not None:
            vocab_cache.save(key, texts)
        return texts

    def _spot_check(self, texts: list[bytes]) -> bool:
        n = self.n_tokens
        step = max(1, n // _SPOT_CHECKS)
        return all(texts[t] == self.detokenize_one(t) for t in (*range(0, n, step), n - 1))

    def _detokenize_all(self) -> list[bytes]:
        """``[detokenize_one(t) for t in range(n_tokens)]``, with the per-call overhead cut."""
        try:
            fn = _DETOKENIZE_PROTO(("llama_detokenize", ll.llama_cpp._lib))
        except (AttributeError, TypeError):  # other bindings: the plain way
            return [self.detokenize_one(t) for t in range(self.n_tokens)]
        size = 256
        token = (ctypes.c_int32 * 1)()
        buf = ctypes.create_string_buffer(size)
        vocab, token_at, buf_at = ctypes.cast(self.ptr, ctypes.c_void_p).value, ctypes.addressof(token), ctypes.addressof(buf)
        string_at = ctypes.string_at
        out: list[bytes] = []
        append = out.append
        for t in range(self.n_tokens):
            token[0] = t
            n = fn(vocab, token_at, 1, buf_at, size, False, True)
            append(string_at(buf_at, n) if n >= 0 else self.detokenize_one(t))
        return out

    def tokenize(self, text: bytes, *, add_special: bool, parse_special: bool) -> list[int]:
        n_max = len(text) + 8
        while True:
            out = (ll.llama_token * n_max)()
            n = ll.llama_tokenize(self.ptr, text, len(text), out, n_max, add_special, parse_special)
            if n >= 0:
                return list(out[:n])
            n_max = -n

    def tokenize_plain(self, text: bytes) -> list[int]:
        return self.tokenize(text, add_special=False, parse_special=False)

    def is_eog(self, token: int) -> bool:
        return bool(ll.llama_vocab_is_eog(self.ptr, int(token)))

    @property
    def eos(self) -> int:
        """The EOS token, or -1 (``LLAMA_TOKEN_NULL``) when the vocabulary has none."""
        return int(ll.llama_vocab_eos(self.ptr))

    def suppress_tokens(self) -> list[int]:
        """The tokens llama.cpp always bans (GGUF ``tokenizer.ggml.suppress_tokens``)."""
        n = ctypes.c_int32(0)
        ptr = ll.llama_vocab_get_suppress_tokens(self.ptr, ctypes.byref(n))
        return [int(ptr[i]) for i in range(n.value)] if ptr else []

    # The vocabulary is identified by its pointer, so caches keyed on it stay valid.
    def __hash__(self) -> int:
        return hash(ctypes.cast(self.ptr, ctypes.c_void_p).value)

    def __eq__(self, other) -> bool:
        return isinstance(other, ModelVocabulary) and hash(self) == hash(other)
