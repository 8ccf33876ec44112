"""Temperature, plain or dynamic (llama.cpp's ``temp_ext``)."""
from __future__ import annotations

import numpy as np

from ..candidates import Candidates
from ..cfloat import logf, logf_scalar, powf_scalar, seq_sum_f32
from ..flagtable import check
from ..stage import Stage
from .softmax import softmax

F32 = np.float32
NEG_INF = F32(-np.inf)


def scale_by_temperature(cur: Candidates, temp: np.float32) -> None:
    """``llama_sampler_temp_impl``: divide, or keep only the first maximum when temp <= 0."""
    if len(cur) == 0:
        return
    if temp <= 0:
        out = np.full(len(cur), NEG_INF, dtype=F32)
        best = int(np.argmax(cur.logits))
        out[best] = cur.logits[best]
        cur.logits = out
        return
    cur.logits = cur.logits / temp


class Temperature(Stage):
    name = "temperature"

    def __init__(self, temp: float = 0.8, dynatemp_range: float = 0.0, dynatemp_exponent: float = 1.0):
        self.temp = F32(check("temp", temp))
        self.delta = F32(check("dynatemp_range", dynatemp_range))
        self.exponent = F32(check("dynatemp_exponent", dynatemp_exponent))
        self.enabled = not (self.temp == 1 and self.delta <= 0)
        #: The temperature the last step used (dynamic temperature varies).
        self.last_temp = float(self.temp)

    def apply(self, cur: Candidates) -> None:
        if self.delta <= 0:
            self.last_temp = float(self.temp)
            scale_by_temperature(cur, self.temp)
            return
        if len(cur) <= 1:
            return
        min_temp = max(F32(0), F32(self.temp - self.delta))
        max_temp = F32(self.temp + self.delta)
        max_entropy = -logf_scalar(F32(1.0) / F32(len(cur)))
        softmax(cur, True)
        p = cur.probs[cur.probs > 0]
        entropy = -seq_sum_f32(p * logf(p))  # C: entropy -= p * logf(p), in order
        normalized = F32(entropy / max_entropy)
        dyn_temp = F32(min_temp + F32((max_temp - min_temp) * powf_scalar(normalized, self.exponent)))
        self.last_temp = float(dyn_temp)
        scale_by_temperature(cur, dyn_temp)
        shifted = np.exp(cur.logits.astype(np.float64) - float(cur.logits[0]))
        cur.p = (shifted.astype(F32) / shifted.sum()).astype(F32)

    def noted(self) -> tuple[str, float]:
        return "temperature", self.last_temp

    def clone(self) -> Temperature:
        return Temperature(float(self.temp), float(self.delta), float(self.exponent))
