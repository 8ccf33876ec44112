"""Where each lane of a run starts: its tokens, and its KV sequence."""
from __future__ import annotations

from collections.abc import Sequence

from app.engine.face.options import LaneConfig, PromptText
from app.engine.llama.model import tokenize_prompt
from app.engine.run.lane import LaneRun
from app.engine.run.workspace import Workspace


class PromptTooLong(ValueError):
    pass


def assign_sequences(lanes: list[LaneRun], workspace: Workspace | None) -> None:
    """Each lane's KV sequence: its key in a kept workspace (so its cache is its own from run to
    run, also when a run has only some lanes), else its place in the run."""
    keys = [lane.key for lane in lanes]
    by_key = workspace is not None and len(set(keys)) == len(keys) and all(0 <= k < workspace.n_seq for k in keys)
    for lane in lanes:
        lane.seq = lane.key if by_key else lane.index


def expand_parts(model, parts) -> list[int]:
    """Token ids from a lane's start parts: ids as they are, PromptText as a prompt, text without BOS."""
    tokens: list[int] = []
    for part in parts:
        if isinstance(part, PromptText):
            tokens += tokenize_prompt(model, part.text)
        elif isinstance(part, str):
            tokens += model.vocab.tokenize(part.encode("utf-8"), add_special=False, parse_special=True)
        else:
            tokens.append(_in_vocab(model, part))
    return tokens


def _in_vocab(model, token) -> int:
    """``token`` if the model has it; else ValueError (llama.cpp would abort the process on it).

    The ids come from a session file, which may be another model's or made by hand.
    """
    t, n = int(token), model.vocab.n_tokens
    if not 0 <= t < n:
        raise ValueError(f"token {t} is not in this model's vocabulary (ids 0 to {n - 1}): the text was "
                         "made with another model, or its file is damaged")
    return t


def lane_starts(model, prompt: str, lanes: Sequence[LaneConfig], n_ctx: int) -> list[list[int]]:
    """The tokens each lane starts from, checked against the context size."""
    tokenized: dict[str, list[int]] = {}
    starts = []
    for i, cfg in enumerate(lanes):
        if cfg.prefix is not None:
            tokens = expand_parts(model, cfg.prefix)
        else:
            text = prompt if cfg.prompt is None else cfg.prompt
            if text not in tokenized:
                tokenized[text] = tokenize_prompt(model, text)
            tokens = tokenized[text]
        which = f"lane {i + 1}: " if len(lanes) > 1 else ""
        if not tokens:
            raise PromptTooLong(f"{which}the prompt is empty after tokenising")
        if len(tokens) >= n_ctx:
            raise PromptTooLong(
                f"{which}the prompt is {len(tokens)} tokens long but the context holds {n_ctx}; "
                "shorten the prompt or raise the context size"
            )
        starts.append(tokens)
    return starts
