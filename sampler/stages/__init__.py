"""llama.cpp's sampler stages, one class each, ported from ``src/llama-sampler.cpp``."""
from .dist import Dist
from .dry import Dry
from .filters import MinP, TopK, TopNSigma, TopP, Typical
from .penalties import Penalties
from .temperature import Temperature
from .xtc import Xtc

__all__ = ["Dist", "Dry", "MinP", "Penalties", "Temperature", "TopK", "TopNSigma", "TopP", "Typical", "Xtc"]
