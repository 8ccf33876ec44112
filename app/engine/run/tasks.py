"""The engine's tasks: work on the loaded model that is not a run (an entropy match, a chat format,
tokenizing and detokenizing).

Each ends with a :class:`~app.engine.face.events.TaskEnded` of its ``task_id`` and never raises: a
failure is the event's ``error``.  A stop of the engine ends an entropy match between two of its
bisection steps (``cancelled``); a chat format is one quick call and always finishes.
"""
from __future__ import annotations

from app.engine.face.commands import CheckGrammar, Detokenize, FormatChat, MatchEntropy, Tokenize
from app.engine.face.events import TaskEnded
from sampler.entropy import MatchStopped, match_entropy

#: The error of an entropy match a stop ended.
STOPPED = "stopped before the temperature was found"


def _failed(label: str, exc: Exception) -> str:
    return f"{label}: {type(exc).__name__}: {exc}"


def match(engine, cmd: MatchEntropy) -> None:
    vocab = getattr(engine.model, "vocab", None)
    try:
        if engine.cancelled():
            raise MatchStopped
        result = match_entropy(cmd.target, cmd.baseline, cmd.settings, tol=cmd.tol, vocab=vocab,
                               should_stop=engine.cancelled)
    except MatchStopped:
        engine.emit(TaskEnded(cmd.task_id, error=f"{cmd.label}: {STOPPED}", cancelled=True))
        return
    except Exception as exc:  # reported, never raised on the engine thread
        engine.emit(TaskEnded(cmd.task_id, error=_failed(cmd.label, exc)))
        return
    engine.emit(TaskEnded(cmd.task_id, result))


def format_chat(engine, cmd: FormatChat) -> None:
    label = "format the chat"
    if engine.model is None:
        engine.emit(TaskEnded(cmd.task_id, error=f"{label}: no model is loaded"))
        return
    try:
        text = engine.model.format_chat(cmd.request)
    except Exception as exc:
        engine.emit(TaskEnded(cmd.task_id, error=_failed(label, exc)))
        return
    engine.emit(TaskEnded(cmd.task_id, text))


def _on_model(engine, task_id: int, label: str, work) -> None:
    """``TaskEnded(task_id, work(model))``, or the error (no model, or what ``work`` raised)."""
    if engine.model is None:
        engine.emit(TaskEnded(task_id, error=f"{label}: no model is loaded"))
        return
    try:
        result = work(engine.model)
    except Exception as exc:
        engine.emit(TaskEnded(task_id, error=_failed(label, exc)))
        return
    engine.emit(TaskEnded(task_id, result))


def tokenize(engine, cmd: Tokenize) -> None:
    def work(model):
        add = cmd.add_special and model.vocab.add_bos
        return tuple(model.vocab.tokenize(cmd.text.encode("utf-8"), add_special=add, parse_special=cmd.parse_special))

    _on_model(engine, cmd.task_id, "tokenize", work)


def detokenize(engine, cmd: Detokenize) -> None:
    def work(model):
        n = model.vocab.n_tokens
        bad = next((t for t in cmd.tokens if not 0 <= t < n), None)
        if bad is not None:
            raise ValueError(f"token {bad} is not in this model's vocabulary (ids 0 to {n - 1})")
        return tuple(model.vocab.piece(t, special=True) for t in cmd.tokens)

    _on_model(engine, cmd.task_id, "detokenize", work)
def check(engine, cmd: CheckGrammar) -> None:
    """llama.cpp's parse of the grammar (a schema converted first), over the model's vocabulary if one is
    loaded; the GBNF, or the one line that says why not."""
    from app.engine.llama.grammar import GrammarError, check_grammar, grammar_text
    from sampler import SamplerSettings

    try:
        settings = SamplerSettings(**{cmd.field: cmd.text})
        flag, text = grammar_text(settings)
        if text:
            vocab = getattr(engine.model, "vocab", None)
            check_grammar(text, vocab if hasattr(vocab, "ptr") else None, flag=flag)
    except (GrammarError, ValueError, TypeError) as exc:
        engine.emit(TaskEnded(cmd.task_id, error=str(exc)))
        return
    engine.emit(TaskEnded(cmd.task_id, text))
