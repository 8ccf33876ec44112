"""Settings by field path (``get``/``with_value``) and the JSON codec (``sampler.codec``)."""
from __future__ import annotations

import dataclasses
import json
import pickle

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings

from sampler.codec import settings_for_trace, settings_from_dict, settings_to_dict
from sampler.flagtable import ROW_BY_FIELD, ROWS
from sampler.phrases import BannedPhrase
from sampler.settings import SamplerSettings, ScatterParams
from strategies import any_settings
from tiers import examples

DEFAULT = SamplerSettings()
PATHS = list(ROW_BY_FIELD)
PROPS = hyp_settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: A valid value different from the default, for every field (written here, not taken from the table).
OTHER = {
    "seed": 5, "samplers": ("top_k", "scatter"), "temp": 0.5, "dynatemp_range": 0.1, "dynatemp_exponent": 2.0,
    "top_k": 7, "top_p": 0.5, "min_p": 0.2, "typ_p": 0.5, "top_n_sigma": 1.0, "xtc_probability": 0.5,
    "xtc_threshold": 0.2, "penalty_last_n": 3, "penalty_repeat": 1.5, "penalty_present": 0.5,
    "penalty_freq": 0.25, "dry_multiplier": 0.5, "dry_base": 2.0, "dry_allowed_length": 4,
    "dry_penalty_last_n": 9, "dry_sequence_breakers": ("x", "y"), "min_keep": 3, "scatter.k": 8,
    "scatter.strength": 0.5, "scatter.radius": 1.0, "scatter.steps": 3, "scatter.adaptive": True,
    "scatter.strength_min": 0.1, "scatter.strength_max": 0.2, "scatter.entropy_target": 0.4,
    "scatter.absorption": 0.3, "scatter.absorption_last_n": 5, "scatter.collision": 0.5,
    "grammar": 'root ::= "yes" | "no"', "json_schema": '{"type": "string"}',
    "logit_bias": ((15043, float("-inf")), (7, 1.5)), "ignore_eos": True, "mirostat": 2, "mirostat_eta": 0.2,
    "mirostat_tau": 4.0, "adaptive_target": 0.4, "adaptive_decay": 0.5,
    "banned_phrases": (BannedPhrase("in the end"), BannedPhrase("Suddenly", True)),
    "smoothing_factor": 0.25, "smoothing_curve": 2.0, "top_a": 0.2, "tfs_z": 0.95,
    "ban_depth": 12, "ban_budget": 9,
}


def test_other_covers_every_field():
    assert set(OTHER) == set(PATHS)


@pytest.mark.parametrize("path", PATHS)
def test_get_and_with_value(path):
    changed = DEFAULT.with_value(path, OTHER[path])
    assert changed.get(path) == OTHER[path] != DEFAULT.get(path)
    assert DEFAULT.get(path) == ROW_BY_FIELD[path].default  # the original is untouched
    # every other field kept
    assert all(changed.get(p) == DEFAULT.get(p) for p in PATHS if p != path)
    # the same as replace() with the old spelling
    assert changed == DEFAULT.replace(**{path.replace(".", "_"): OTHER[path]})


@pytest.mark.parametrize("path", ["tmp", "scatter", "scatter.bogus", "scatter_k", "", "temp.x"])
def test_unknown_path(path):
    with pytest.raises(ValueError, match="unknown setting"):
        DEFAULT.with_value(path, 1)
    with pytest.raises(ValueError, match="unknown setting"):
        DEFAULT.get(path)


@pytest.mark.parametrize("path,bad", [
    ("temp", -1.0), ("top_k", 1.5), ("seed", -1), ("scatter.k", -1), ("scatter.strength", 2.0),
    ("scatter.adaptive", 1), ("samplers", ("bogus",)), ("dry_sequence_breakers", ("",)), ("min_keep", -1),
])
def test_with_value_checks_and_names_the_flag(path, bad):
    with pytest.raises(ValueError) as exc:
        DEFAULT.with_value(path, bad)
    assert str(exc.value).startswith(ROW_BY_FIELD[path].flag + ":")


def test_with_values_checks_pairs_once():
    s = DEFAULT.with_values({"scatter.strength_min": 0.6, "scatter.strength_max": 0.9})
    assert (s.scatter.strength_min, s.scatter.strength_max) == (0.6, 0.9)
    with pytest.raises(ValueError, match="--scatter-strength-min: must not exceed --scatter-strength-max"):
        DEFAULT.with_value("scatter.strength_min", 0.6)


def test_classes_are_dataclasses_that_pickle():
    s = DEFAULT.with_value("scatter.k", 3)
    assert pickle.loads(pickle.dumps(s)) == s
    assert dataclasses.replace(s, temp=0.1).temp == 0.1
    assert type(s).__module__ == "sampler.settings" and type(s.scatter).__name__ == "ScatterParams"
    assert isinstance(s.scatter, ScatterParams) and hash(s) == hash(dataclasses.replace(s))
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.temp = 0.3


# --------------------------------------------------------------------------
# The codec
# --------------------------------------------------------------------------


@PROPS
@given(s=any_settings())
def test_codec_round_trip(s):
    data = settings_to_dict(s)
    text = json.dumps(data, allow_nan=False)
    assert settings_from_dict(json.loads(text)) == s


def test_codec_shape():
    data = settings_to_dict(DEFAULT.with_value("scatter.adaptive", True))
    assert set(data) == {p for p in PATHS if "." not in p} | {"scatter"}
    assert set(data["scatter"]) == {p.split(".")[1] for p in PATHS if "." in p}
    assert data["samplers"] == list(DEFAULT.samplers) and data["scatter"]["adaptive"] is True
    assert settings_from_dict({}) == DEFAULT
    assert settings_from_dict({"scatter": {}}) == DEFAULT
    assert settings_from_dict({"top_k": 64.0}).top_k == 64  # integral floats for integers


#: Wrong JSON types per kind.
WRONG = {
    "float": ["0.5", True, None, [1.0], {}],
    "int": [1.5, "3", True, None, [3]],
    "uint": [1.5, "3", False],
    "switch": [1, 0, "true", None],
    "samplers": ["top_k", ["top_k", 3], None, 5],
    "breaker": ["x", [1], None],
    "bias": ["7+1", [[7, 1.0]], [7], None],
    "phrases": ["end", ["end"], [{"text": 5}], [{"text": "x", "exact_case": "yes"}], None],
    "text": [["root ::= x"], 5, None, True],
}


def _at(path: str, value) -> dict:
    group, _, attr = path.rpartition(".")
    return {group: {attr: value}} if group else {attr: value}


@pytest.mark.parametrize("path", PATHS)
def test_codec_rejects_wrong_types_naming_key_and_value(path):
    for value in WRONG[ROW_BY_FIELD[path].kind]:
        with pytest.raises(ValueError) as exc:
            settings_from_dict(_at(path, value))
        message = str(exc.value)
        assert message.startswith(f"settings.{path}: "), message
        assert repr(value)[:10] in message or "unknown sampler" in message, message


@pytest.mark.parametrize("data,key", [
    ({"tmep": 0.5}, "'tmep'"), ({"scatter": {"strenght": 0.1}}, "'strenght'"), ({"scatter_k": 3}, "'scatter_k'"),
])
def test_codec_rejects_unknown_keys(data, key):
    with pytest.raises(ValueError, match="unknown key") as exc:
        settings_from_dict(data)
    assert key in str(exc.value)


@pytest.mark.parametrize("data", [None, [], "x", {"scatter": []}, {"scatter": None}])
def test_codec_rejects_non_objects(data):
    with pytest.raises(ValueError, match="expected an object"):
        settings_from_dict(data)


def test_codec_range_errors_name_key_flag_and_value():
    with pytest.raises(ValueError) as exc:
        settings_from_dict({"scatter": {"k": 2**40}}, where="preset 'x'")
    assert str(exc.value) == (
        "preset 'x'.scatter.k: --scatter-k: out of range for a C int32 (-2147483648 to 2147483647), "
        "got 1099511627776"
    )
    with pytest.raises(ValueError, match=r"settings\.scatter: --scatter-strength-min: must not exceed"):
        settings_from_dict({"scatter": {"strength_min": 0.9}})


def test_trace_dict():
    s = DEFAULT.with_values({"temp": 0.3, "scatter.k": 9, "dry_sequence_breakers": ("a",)})
    full = settings_for_trace(s)
    assert list(full) == [r.field for r in ROWS if r.kind not in ("seq", "file")]
    assert all(full[p] == (list(s.get(p)) if isinstance(s.get(p), tuple) else s.get(p)) for p in PATHS)
    json.dumps(full, allow_nan=False)
    assert settings_for_trace(s, only_changed=True) == {"temp": 0.3, "dry_sequence_breakers": ["a"], "scatter.k": 9}
    assert settings_for_trace(DEFAULT, only_changed=True) == {}
