"""The checked-value memo of sampler.codec (presets load 10,000 entries through it) never lets one
value stand for another that compares equal, and the checks across fields still run."""
from __future__ import annotations

import math

import pytest

from sampler import SamplerSettings, settings_from_dict, settings_to_dict


def test_zero_and_minus_zero_keep_their_signs_whichever_comes_first():
    for first, second in ((0.0, -0.0), (-0.0, 0.0)):
        a = settings_from_dict({"temp": first})
        b = settings_from_dict({"temp": second})
        assert math.copysign(1.0, a.temp) == math.copysign(1.0, first)
        assert math.copysign(1.0, b.temp) == math.copysign(1.0, second)


def test_an_integer_seen_first_does_not_let_true_or_an_unintegral_float_through():
    assert settings_from_dict({"top_k": 1}).top_k == 1
    assert type(settings_from_dict({"top_k": 1.0}).top_k) is int
    with pytest.raises(ValueError, match=r"settings\.top_k: expected an integer, got True"):
        settings_from_dict({"top_k": True})
    with pytest.raises(ValueError, match=r"settings\.top_k"):
        settings_from_dict({"top_k": 1.5})


def test_a_refused_value_is_refused_every_time_with_its_own_path():
    for where in ("preset 'a': settings", "preset 'b': settings"):
        with pytest.raises(ValueError, match=rf"^{where}\.mirostat: "):
            settings_from_dict({"mirostat": 3}, where)


def test_the_check_across_scatter_fields_runs_on_values_each_valid_alone():
    settings_from_dict({"scatter": {"strength_min": 0.2, "strength_max": 0.5}})  # each value seen valid
    with pytest.raises(ValueError, match=r"settings\.scatter: --scatter-strength-min: must not exceed"):
        settings_from_dict({"scatter": {"strength_min": 0.5, "strength_max": 0.2}})


def test_lists_seen_before_come_back_equal_and_unshared_mutations_cannot_reach_them():
    data = settings_to_dict(SamplerSettings().replace(dry_sequence_breakers=("a", "b")))
    first = settings_from_dict(data)
    data["dry_sequence_breakers"].append("c")  # the caller's list, changed after the read
    assert first.dry_sequence_breakers == ("a", "b")
    assert settings_from_dict(data).dry_sequence_breakers == ("a", "b", "c")


def test_what_is_read_equals_what_the_checked_constructor_builds():
    settings = SamplerSettings().replace(temp=0.7, top_k=12, seed=5, scatter_k=8, samplers=("top_k", "temperature"))
    assert settings_from_dict(settings_to_dict(settings)) == settings


@pytest.mark.parametrize("scatter", [5, 0.5, True, None, "x", [1]])
def test_a_scatter_part_that_is_not_an_object_is_one_line(scatter):
    with pytest.raises(ValueError, match=r"^settings\.scatter: expected an object"):
        settings_from_dict({"scatter": scatter})
