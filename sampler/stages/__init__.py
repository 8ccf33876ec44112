"""llama.cpp's sampler stages, one class each, ported from ``src/llama-sampler.cpp``."""
from .adaptive_p import AdaptiveP
from .dist import Dist
from .dry import Dry
from .filters import MinP, TopK, TopNSigma, TopP, Typical
from .logit_bias import LogitBias, parse_logit_bias
from .mirostat import Mirostat, MirostatV2
from .penalties import Penalties
from .temperature import Temperature
from .xtc import Xtc

__all__ = [
    "AdaptiveP", "Dist", "Dry", "LogitBias", "MinP", "Mirostat", "MirostatV2", "Penalties", "Temperature",
    "TopK", "TopNSigma", "TopP", "Typical", "Xtc", "parse_logit_bias",
]
