"""Flag coverage: every sampling option of llama.cpp's arg.cpp (``.set_sampling()``) is taken here, by the flag
table or by ``parse_flags`` itself (``--backend-sampling``): 34 of 34 in the vendored llama.cpp."""
from __future__ import annotations

import re

from llamacpp_source import source_path
from sampler.flags import BACKEND_SAMPLING, FLAG_BY_NAME, UNSUPPORTED


def sampling_options() -> list[tuple[str, ...]]:
    """Each ``add_opt(common_arg({...}, ...).set_sampling())`` of arg.cpp: its spellings."""
    text = source_path("common/arg.cpp").read_text(encoding="utf-8")
    out = []
    for block in re.split(r"add_opt\(common_arg\(", text)[1:]:
        head = block.split("add_opt(", 1)[0]
        if ".set_sampling()" in head:
            out.append(tuple(re.findall(r'"(-[^"]+)"', head.split("}", 1)[0])))
    return out


def test_every_sampling_option_of_llama_cpp_is_taken():
    options = sampling_options()
    assert len(options) == 34
    taken = set(FLAG_BY_NAME) | set(BACKEND_SAMPLING)
    missing = [names for names in options if not set(names) <= taken]
    assert missing == []
    assert set(UNSUPPORTED) == set(BACKEND_SAMPLING)  # the one flag without a row, taken by parse_flags
