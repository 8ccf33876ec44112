"""llama.cpp's own grammar sampler (``llama_sampler_init_grammar``) over one lane's candidates.

:class:`LlamaGrammar` is the :class:`sampler.grammar_text.GrammarCheck` the chain consults where
``common_sampler_sample`` does (``sampler.chain.SamplerChain._grammar_step``): ``allows`` is llama.cpp's
apply to a one-token array, ``rejected`` its apply to the whole vocabulary, ``accept`` its accept.  A token
the grammar refuses is never handed to llama.cpp's accept (it throws a C++ exception there, or aborts on an
end-of-generation token, and either ends the process): :meth:`LlamaGrammar.accept` raises ValueError instead.

A grammar's state is the generated tokens it accepted since its start, so a lane's grammar is made again
by replaying them (:func:`grammar_for`): after a rewind, from a branch at step n (the n tokens before it), and
in a session opened later.  The prompt's tokens are never accepted (``is_generated=false`` in llama.cpp).
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import tempfile
import weakref
from collections.abc import Iterable

import llama_cpp as ll
import numpy as np

from sampler.grammar_text import grammar_source
from sampler.json_schema import schema_to_grammar

#: llama_token_data as NumPy lays it out (id, logit, p: 12 bytes, as the C struct)
TOKEN_DATA = np.dtype([("id", "<i4"), ("logit", "<f4"), ("p", "<f4")])
assert TOKEN_DATA.itemsize == ctypes.sizeof(ll.llama_token_data)
#: How much of llama.cpp's parse error one line keeps.
_ERROR_CHARS = 160


class GrammarError(ValueError):
    """A grammar llama.cpp cannot parse, or a schema it cannot convert: one line naming the flag."""


class LlamaGrammar:
    """One llama.cpp grammar sampler over a model's vocabulary (freed when this object is)."""

    def __init__(self, vocab, text: str, *, flag: str = "--grammar"):
        self.vocab = vocab
        self.text = text
        with _stderr_lines() as lines:
            ptr = ll.llama_sampler_init_grammar(vocab.ptr, text.encode("utf-8"), b"root")
        if not ptr:
            raise GrammarError(f"{flag}: llama.cpp cannot parse the grammar: {_parse_error(lines)}")
        self._ptr = ptr
        self._free = weakref.finalize(self, ll.llama_sampler_free, ptr)
        self._one = np.zeros(1, TOKEN_DATA)
        self._one_array = _token_array(self._one)

    def allows(self, token: int) -> bool:
        """Whether the grammar takes ``token`` next (llama.cpp's apply to ``{token, 1.0, 0.0}``)."""
        self._one[0] = (token, 1.0, 0.0)
        ll.llama_sampler_apply(self._ptr, ctypes.byref(self._one_array))
        return bool(self._one["logit"][0] != -np.inf)

    def rejected(self, ids: np.ndarray) -> np.ndarray:
        """True where llama.cpp's apply sets the logit of ``ids`` to ``-inf``."""
        data = np.zeros(len(ids), TOKEN_DATA)
        data["id"] = ids
        array = _token_array(data)
        ll.llama_sampler_apply(self._ptr, ctypes.byref(array))
        return data["logit"] == -np.inf

    def accept(self, token: int) -> None:
        """Move the grammar on by ``token``; ValueError (nothing moved) if the grammar does not take it."""
        if not self.allows(token):
            piece = self.vocab.piece(int(token), special=True).decode("utf-8", "replace")
            raise ValueError(f"the grammar does not allow token {int(token)} ({piece!r}) here")
        ll.llama_sampler_accept(self._ptr, int(token))

    def replay(self, tokens: Iterable[int], first_step: int = 0) -> None:
        """Accept ``tokens`` in order (the steps before this one); ValueError naming the step that does not fit."""
        for i, token in enumerate(tokens):
            try:
                self.accept(int(token))
            except ValueError as exc:
                raise ValueError(f"step {first_step + i}: {exc} (the text before this run does not "
                                 "follow the grammar)") from None


def grammar_text(settings) -> tuple[str, str]:
    """``(flag, GBNF)`` of the settings' grammar: ``--grammar``'s text, or ``--json-schema`` converted as
    llama.cpp converts it; ``("", "")`` for none.  GrammarError names a schema that cannot be converted."""
    kind, text = grammar_source(settings)
    if kind == "json_schema":
        try:
            return "--json-schema", schema_to_grammar(text)
        except ValueError as exc:
            raise GrammarError(f"--json-schema: {exc}") from None
    return ("--grammar", text) if kind else ("", "")


def grammar_for(settings, vocab, generated: Iterable[int] = (), first_step: int = 0) -> LlamaGrammar | None:
    """The lane's grammar (None without one), having accepted ``generated`` (the run's tokens before now)."""
    flag, text = grammar_text(settings)
    if not text:
        return None
    grammar = LlamaGrammar(vocab, text, flag=flag)
    grammar.replay(generated, first_step)
    return grammar


def check_grammar(text: str, vocab=None, *, flag: str = "--grammar") -> None:
    """GrammarError with llama.cpp's own parse error unless it parses ``text`` (``vocab``: a model's
    vocabulary for ``<token>`` references; without one llama.cpp parses the rest)."""
    with _stderr_lines() as lines:
        ptr = ll.llama_sampler_init_grammar(vocab.ptr if vocab is not None else None, text.encode("utf-8"), b"root")
    if not ptr:
        raise GrammarError(f"{flag}: llama.cpp cannot parse the grammar: {_parse_error(lines)}")
    ll.llama_sampler_free(ptr)


def _token_array(data: np.ndarray):
    return ll.llama_token_data_array(
        data=data.ctypes.data_as(ctypes.POINTER(ll.llama_token_data)), size=len(data), selected=-1, sorted=False)


def _parse_error(lines: list[str]) -> str:
    """llama.cpp's reason in one line: ``error parsing grammar: ...`` (stderr) or its log's own line."""
    for line in lines:
        _, found, what = line.partition("error parsing grammar: ")
        if found:
            return _short(what)
    for line in lines:
        if line.strip() and "failed to parse grammar" not in line:
            return _short(line.partition(": ")[2] or line)
    return "failed to parse grammar"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _ERROR_CHARS else text[:_ERROR_CHARS - 1] + "…"


@contextlib.contextmanager
def _stderr_lines():
    """The lines C code writes to file descriptor 2 meanwhile (llama.cpp prints a grammar's parse error there
    with ``fprintf``), plus its error log lines; they are not shown on the terminal."""
    from app.engine.llama import llama_log
    lines: list[str] = []
    with tempfile.TemporaryFile() as sink, llama_log.capture_errors() as errors:
        saved = os.dup(2)
        try:
            os.dup2(sink.fileno(), 2)
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            lines += sink.read().decode("utf-8", "replace").splitlines()
            lines += errors.lines
