"""Immutable per-step records: what the window and the trace file read."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

import numpy as np

from sampler import SamplerSettings
from sampler.chain import StageCount
from sampler.codec import settings_for_trace
from sampler.scatter import ScatterTrace


class StopReason(str, Enum):
    EOG = "end of generation token"
    STOP_STRING = "stop string"
    MAX_TOKENS = "token limit"
    CONTEXT_FULL = "context full"
    CANCELLED = "cancelled"
    ERROR = "error"


class FinalTail(NamedTuple):
    """What a record's ``final_ids``/``final_p`` leave out (a saved session keeps only the most
    likely candidates of a large final distribution): how many candidates, their probability
    mass and their sum of ``p * log(p)``, enough for the distribution's entropy."""

    n: int
    mass: float
    plogp: float


class BanHit(NamedTuple):
    """A banned phrase that began at a step (``app.engine.run.bans``): taken back, or kept and why."""

    phrase: str  # the phrase as lists show it (``BannedPhrase.shown``)
    about: str  # what the model was about to write: the text from where the phrase began
    rewound: int  # how many tokens went back (0: none)
    kept: str = ""  # why the phrase stayed ("" when it was taken back)


@dataclass(frozen=True, eq=False)
class StepRecord:
    """One step of one lane.  Owns its arrays (copies), so views can keep it."""

    lane: int
    step: int
    token: int
    piece: bytes  # the token's raw bytes
    text: str  # text this step completed (may be empty mid-character)
    raw_rank: int  # rank of the token among the raw logits (0 = the arg-max)
    chosen_index: int  # its index in the final candidates
    chosen_p: float  # its probability in the final candidates
    top_ids: np.ndarray  # raw top-N ids before the chain, descending logit
    top_logits: np.ndarray
    stages: tuple[StageCount, ...]
    scatter: ScatterTrace | None
    final_ids: np.ndarray  # what dist sampled from
    final_p: np.ndarray
    decode_ms: float  # the batched decode that produced these logits (shared by lanes)
    chain_ms: float  # this lane's sampling chain
    temperature: float  # the temperature applied (dynamic temperature varies)
    settings: SamplerSettings  # what this step was sampled with (the seed included)
    forced: bool = False  # the writer chose this token (a branch), not the chain
    chain_state: object = None  # the chain's state before this step (to branch from it later)
    final_tail: FinalTail | None = None  # None: final_ids/final_p are the whole final distribution
    # The raw model distribution of the chosen token: log p = raw_logit - raw_logsumexp (any token, also one
    # outside the top 64).  raw_logsumexp is NaN unless the run asked for it (RunOptions.raw_logsumexp).
    raw_logit: float = float("nan")
    raw_logsumexp: float = float("nan")
    banned: tuple[int, ...] = ()  # tokens a banned phrase took back at this step (app.engine.run.bans)
    ban_kept: bool = False  # a banned phrase begins here and was kept (see ban_hits for why)
    ban_hits: tuple[BanHit, ...] = ()  # every banned phrase that began at this step, in order

    def to_json(self) -> dict:
        sc = self.scatter
        return {
            "lane": self.lane, "step": self.step, "token": self.token, "text": self.text,
            "raw_rank": self.raw_rank, "chosen_p": self.chosen_p,
            "top_ids": self.top_ids[:16].tolist(), "top_logits": [round(float(x), 4) for x in self.top_logits[:16]],
            "stages": [[s.name, s.n_in, s.n_out] for s in self.stages],
            "scatter": None if sc is None else {
                "fired": sc.fired, "gate_drawn": sc.gate_drawn, "m": sc.m, "entropy": None if not sc.fired else sc.entropy,
                "strength": sc.strength, "ids": sc.ids.tolist(),
                "p_before": np.round(sc.p_before, 6).tolist(), "p_final": np.round(sc.p_final, 6).tolist(),
                "absorption_factors": np.round(sc.absorption_factors, 6).tolist(),
            },
            "decode_ms": round(self.decode_ms, 3), "chain_ms": round(self.chain_ms, 3),
            "forced": self.forced,
            # what differs from llama.cpp's defaults, by field path (from the sampler's flag table)
            "settings": settings_for_trace(self.settings, only_changed=True),
            **({"banned": list(self.banned)} if self.banned else {}),
            **({"ban_kept": True} if self.ban_kept else {}),
            **({"ban_hits": [list(h) for h in self.ban_hits]} if self.ban_hits else {}),
        }


@dataclass(frozen=True)
class LaneResult:
    """How one lane ended."""

    lane: int
    stop_reason: StopReason
    text: str
    tokens: tuple[int, ...]
    detail: str = ""
