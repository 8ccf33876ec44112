"""A scripted fake backend: deterministic logits over a tiny vocabulary, no llama.cpp.

The engine and the window run on it in tests exactly as on a real model: it
has the same shape as :class:`app.engine.llama.model.LoadedModel` (``info``,
``vocab``, ``new_context``, ``close``), and its contexts have the same shape
as :class:`app.engine.llama.context.DecodeContext`.

The logits of a position depend only on the tokens before it (a hash of the
last three), so a sequence decoded in any batching, or rewound and decoded
again, sees the same logits: what a KV cache guarantees on a real model.
"""
from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from app.engine.face import token_kinds
from app.engine.face.chat import ChatRequest, ChatTemplate, ChatTemplateError, no_template_message
from app.engine.face.model_info import ModelInfo, ModelLoadError

WORDS = (
    "<bos>", "<eos>", "<start_of_image>", " the", " cat", " sat", " on", " mat", " a", " dog", " ran",
    " far", " away", ".", ",", "\n", " and", " then", " slept", " sun", " rose", " over", " hill",
    " quiet", " town", " she", " he", " said", " nothing", " again", " once", " upon", " time",
    " there", " was", " light", " rain", " fell", " softly", " é", "\u00e9t\u00e9", " river", " sang",
)
BOS, EOS, SPECIAL = 0, 1, 2
#: As in Gemma 3: <bos> and <eos> are control tokens, <start_of_image> is user-defined (rendered as its text).
CONTROL_TOKENS = (BOS, EOS)
#: The fake's chat template: "role: content" lines, then "assistant:".
FAKE_CHAT_TEMPLATE = ChatTemplate("model", "{role}: {content}\n ... assistant:")


class FakeVocab:
    """Tokens are the words above; tokenising takes the longest word at each point."""

    def __init__(self, eos_bias: float = -4.0):
        self.texts = [w.encode("utf-8") for w in WORDS]
        self.n_tokens = len(self.texts)
        self.add_bos = True
        self.eos_bias = eos_bias
        self.eos = EOS

    def piece(self, token: int, *, special: bool = True) -> bytes:
        if token in CONTROL_TOKENS and not special:
            return b""
        return self.texts[token]

    def detokenize_one(self, token: int) -> bytes:
        return self.texts[token]

    def token_texts(self) -> list[bytes]:
        return list(self.texts)

    def is_eog(self, token: int) -> bool:
        return token == EOS

    def is_control(self, token: int) -> bool:
        return token in CONTROL_TOKENS

    def token_kinds(self) -> bytes:
        kinds = bytearray([token_kinds.NORMAL]) * self.n_tokens
        for t in CONTROL_TOKENS:
            kinds[t] = token_kinds.CONTROL
        kinds[SPECIAL] = token_kinds.USER_DEFINED
        return bytes(kinds)

    def tokenize(self, text: bytes, *, add_special: bool, parse_special: bool) -> list[int]:
        out = [BOS] if add_special and self.add_bos else []
        i = 0
        candidates = sorted(range(self.n_tokens), key=lambda t: -len(self.texts[t]))
        while i < len(text):
            for t in candidates:
                piece = self.texts[t]
                if t in CONTROL_TOKENS and not parse_special:  # user-defined tokens are always matched
                    continue
                if piece and text.startswith(piece, i):
                    out.append(t)
                    i += len(piece)
                    break
            else:  # an unknown byte: skip it (the fake has no byte tokens)
                i += 1
        return out

    def tokenize_plain(self, text: bytes) -> list[int]:
        return self.tokenize(text, add_special=False, parse_special=False)


def fake_logits(history: tuple[int, ...], n_vocab: int, eos_bias: float, special_bias: float = -3.0) -> np.ndarray:
    """Deterministic float32 logits for the next token after ``history``."""
    digest = hashlib.blake2b(np.asarray(history[-3:], dtype=np.int64).tobytes(), digest_size=8).digest()
    rng = np.random.default_rng(int.from_bytes(digest, "little"))
    logits = rng.normal(0.0, 2.0, n_vocab).astype(np.float32)
    logits[BOS] = -30.0
    logits[SPECIAL] += np.float32(special_bias)
    logits[EOS] += np.float32(eos_bias)
    return logits


@dataclass
class FakeCounters:
    """What the fake contexts did (tests check reuse of cached prefixes with it)."""

    decodes: int = 0
    tokens_decoded: int = 0
    contexts: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class FakeContext:
    """``n_seq`` sequences of tokens; ``decode_*`` append, ``logits(i)`` reads the last outputs.  A prompt is
    decoded in batches of ``n_batch`` tokens, as llama.cpp's context does (``RunOptions.n_batch``)."""

    def __init__(self, model: FakeModel, n_seq: int, n_ctx: int, n_batch: int = 8):
        self.model = model
        self.n_seq = n_seq
        self.n_ctx = n_ctx
        self.n_batch = n_batch
        self.n_vocab = model.vocab.n_tokens
        self.seqs: list[list[int]] = [[] for _ in range(n_seq)]
        self._out: list[np.ndarray] = []
        self._prompt_out: np.ndarray | None = None
        self.closed = False
        with model.counters.lock:
            model.counters.contexts += 1

    def _logits(self, seq: int) -> np.ndarray:
        return fake_logits(tuple(self.seqs[seq]), self.n_vocab, self.model.vocab.eos_bias, self.model.special_bias)

    def _count(self, n_tokens: int) -> None:
        self.model.before_decode()
        with self.model.counters.lock:
            self.model.counters.decodes += 1
            self.model.counters.tokens_decoded += n_tokens

    def decode_tokens(self, seq: int, tokens: list[int], start: int, should_stop=None) -> bool:
        """Append ``tokens`` to sequence ``seq`` from ``start``; False if ``should_stop()`` cut it short."""
        if start != len(self.seqs[seq]):
            raise ValueError(f"fake context: position {start} does not follow sequence {seq} ({len(self.seqs[seq])})")
        for first in range(0, len(tokens), self.n_batch):  # a stop can land between two batches
            if should_stop is not None and should_stop():
                return False
            self._count(len(tokens[first:first + self.n_batch]))
            self.seqs[seq].extend(tokens[first:first + self.n_batch])
        self._prompt_out = self._logits(seq)
        return True

    def seq_rm(self, seq: int, p0: int, p1: int = -1) -> None:
        if p1 != -1:
            raise ValueError("fake context: only the end of a sequence can be dropped")
        del self.seqs[seq][p0:]

    def seq_cp(self, src: int, dst: int) -> None:
        self.seqs[dst] = list(self.seqs[src])

    def decode_step(self, items: list[tuple[int, int, int]]) -> None:
        self._count(len(items))
        self._out = []
        for seq, tok, pos in items:
            if pos != len(self.seqs[seq]):
                raise ValueError(f"fake context: position {pos} does not follow sequence {seq} ({len(self.seqs[seq])})")
            self.seqs[seq].append(int(tok))
            self._out.append(self._logits(seq))

    def logits(self, i: int) -> np.ndarray:
        return self._prompt_out if i < 0 else self._out[i]

    def close(self) -> None:
        self.closed = True


class FakeModel:
    """A model with the fake vocabulary; ``step_delay_s`` slows each decode (for stop tests).

    ``special_bias`` is added to <start_of_image>'s logit; ``chat_template`` None: a model without one.
    """

    def __init__(self, path: str = "fake.gguf", *, step_delay_s: float = 0.0, eos_bias: float = -4.0,
                 fail_after_decodes: int | None = None, special_bias: float = -3.0,
                 chat_template: ChatTemplate | None = FAKE_CHAT_TEMPLATE):
        self.vocab = FakeVocab(eos_bias)
        self.special_bias = special_bias
        self.chat_template = chat_template
        self.step_delay_s = step_delay_s
        self.fail_after_decodes = fail_after_decodes
        self.counters = FakeCounters()
        self.closed = False
        self.info = ModelInfo(
            path=str(path), name="fake", architecture="fake", size_bytes=1024, n_params=1000,
            n_vocab=self.vocab.n_tokens, n_ctx_train=2048, description="scripted fake model", gpu_layers=0,
        )

    def before_decode(self) -> None:
        if self.fail_after_decodes is not None and self.counters.decodes >= self.fail_after_decodes:
            raise RuntimeError("fake decode failure")
        if self.step_delay_s:
            time.sleep(self.step_delay_s)

    def format_chat(self, request: ChatRequest) -> str:
        if self.chat_template is None:
            raise ChatTemplateError(no_template_message(self.info.name))
        return "".join(f"{role}: {content}\n" for role, content in request.messages()) + "assistant:"

    def new_context(self, n_seq: int, options) -> FakeContext:
        return FakeContext(self, n_seq, int(options.n_ctx), int(options.n_batch))

    def close(self) -> None:
        self.closed = True


def fake_loader(**model_kwargs):
    """A model loader for :class:`app.engine.engine.Engine` that makes fake models.

    A path containing ``"bad"`` fails to load, as a corrupt file would.
    """

    def load(request, progress) -> FakeModel:
        path = request.path or "bundled-fake.gguf"
        for fraction in (0.0, 0.5, 1.0):
            if progress(fraction) is False:
                raise ModelLoadError(f"{path}: cancelled")
        if "bad" in str(path):
            raise ModelLoadError(f"{path}: not a GGUF model file (it does not start with 'GGUF')")
        return FakeModel(str(path), **model_kwargs)

    return load
