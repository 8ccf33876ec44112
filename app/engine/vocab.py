"""A model's vocabulary: token texts, tokenising and incremental detokenising."""
from __future__ import annotations

import ctypes

import llama_cpp as ll

from .token_kinds import kind_from_attr


class ModelVocabulary:
    """Wraps a ``llama_vocab`` pointer; satisfies ``sampler.stages.dry.Vocabulary``."""

    def __init__(self, vocab_ptr):
        self.ptr = vocab_ptr
        self.n_tokens = int(ll.llama_vocab_n_tokens(vocab_ptr))
        self._texts: list[bytes] | None = None
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
        if self._texts is None:
            self._texts = [self.detokenize_one(t) for t in range(self.n_tokens)]
        return self._texts

    def token_kinds(self) -> bytes:
        """Each token's kind (:mod:`app.engine.token_kinds`) from llama.cpp's attributes, one byte per token."""
        get_attr, ptr = ll.llama_vocab_get_attr, self.ptr
        return bytes(kind_from_attr(get_attr(ptr, t)) for t in range(self.n_tokens))

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
