"""Every setting of the sampler chain, with llama.cpp's defaults.

:class:`SamplerSettings` and :class:`ScatterParams` are frozen dataclasses
whose fields, defaults and range checks come from the flag table
(:mod:`sampler.flagtable`): one field per row, checked by the row when the
object is built, with errors naming the flag.  Only checks across fields are
code here (``--scatter-strength-min`` <= ``--scatter-strength-max``).

A setting is addressed by its field path, ``"temp"`` or ``"scatter.k"``:
:meth:`SamplerSettings.get` reads one, :meth:`SamplerSettings.with_value`
returns a checked copy with one changed.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import field, make_dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .flagtable import PY_TYPES, SCATTER_ROWS, SETTINGS_ROWS, Flag, row_for
from .stagetable import sampler_seq

if TYPE_CHECKING:
    from typing_extensions import Self  # typing.Self from Python 3.11; only the type checker reads it

    # the fields as the type checker sees them, written from the flag table (sampler/settings_stub.py)
    from .settings_fields import ScatterFields, SettingsFields
else:  # at run time the fields come from the rows (make_dataclass below)
    ScatterFields = SettingsFields = object


def _fields(rows: tuple[Flag, ...]) -> list:
    return [(row.attr, PY_TYPES[row.kind], field(default=row.default)) for row in rows]


def _check_rows(obj, rows: tuple[Flag, ...]) -> None:
    """Replace each field by its checked, normalised value (the classes are frozen)."""
    for row in rows:
        object.__setattr__(obj, row.attr, row.check(getattr(obj, row.attr)))


class _Fields:
    """For the type checker: the fields of the two classes below are made from the flag table when this
    module runs (one per row); it reads them, typed, from ``settings_fields.pyi``, and takes any
    arguments to the constructor (each row's check converts and refuses them by name)."""

    if TYPE_CHECKING:
        __dataclass_fields__: ClassVar[dict[str, Any]]

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...


#: Each class's fields as a default instance has them (checked), by attribute.
_DEFAULT_FIELDS: dict[type, dict] = {}


def from_checked(cls, values: Mapping[str, object]):
    """A ``cls`` (SamplerSettings or ScatterParams) from ``values`` by attribute, each already the
    result of its row's :meth:`~sampler.flagtable.Flag.check` (as :mod:`sampler.codec` reads them);
    missing fields take the defaults.  The per-row checks are not run a second time (for 10,000
    presets that second pass alone took half a second), the checks across fields are."""
    defaults = _DEFAULT_FIELDS.get(cls)
    if defaults is None:
        defaults = _DEFAULT_FIELDS[cls] = dict(vars(cls()))
    if not defaults.keys() >= values.keys():
        unknown = set(values) - set(defaults)
        raise TypeError(f"{cls.__name__}: unknown field(s) {', '.join(sorted(unknown))}")
    obj = object.__new__(cls)
    vars(obj).update(defaults)
    vars(obj).update(values)  # frozen: not through __setattr__, as a copy would
    obj._check_across()
    return obj


class _ScatterMethods(_Fields, ScatterFields):
    """What ScatterParams has besides its fields."""

    def __post_init__(self):
        _check_rows(self, SCATTER_ROWS)
        self._check_across()

    def _check_across(self) -> None:
        """The checks that involve more than one field."""
        if self.strength_min > self.strength_max:
            raise ValueError(
                f"--scatter-strength-min: must not exceed --scatter-strength-max "
                f"({self.strength_min!r} > {self.strength_max!r})"
            )

    @property
    def enabled(self) -> bool:
        """The spec's "When it is a no-op", negated."""
        wants = self.strength > 0 or self.adaptive or self.absorption > 0
        return wants and self.k > 1 and self.radius > 0 and self.steps > 0 and self.collision > 0

    def why_noop(self) -> str | None:
        """A sentence saying why scatter does nothing, or None if it can fire."""
        if not (self.strength > 0 or self.adaptive or self.absorption > 0):
            return "strength is 0, adaptive is off and absorption is 0"
        for ok, why in (
            (self.k > 1, "k must be above 1"),
            (self.radius > 0, "radius is 0"),
            (self.steps > 0, "steps is 0"),
            (self.collision > 0, "collision probability is 0"),
        ):
            if not ok:
                return why
        return None


def _dataclass(name: str, fields: list, methods: type) -> type:
    """A frozen dataclass with these fields and methods, importable (and picklable) from here."""
    cls = make_dataclass(name, fields, bases=(methods,), frozen=True)
    cls.__module__ = __name__  # make_dataclass's ``module=`` needs Python 3.12
    return cls


if TYPE_CHECKING:
    class ScatterParams(_ScatterMethods):
        """The scatter flags (the type checker's view: see :class:`_Fields`)."""
else:
    ScatterParams = _dataclass("ScatterParams", _fields(SCATTER_ROWS), _ScatterMethods)
    ScatterParams.__doc__ = (
        "The scatter flags (one field per ``scatter.*`` row of the flag table), checked when built.\n\n"
        "Fields: " + ", ".join(row.attr for row in SCATTER_ROWS) + "."
    )


class _SettingsMethods(_Fields, SettingsFields):
    """What SamplerSettings has besides its fields."""

    def __post_init__(self):
        _check_rows(self, SETTINGS_ROWS)
        self._check_across()

    def _check_across(self) -> None:
        """The checks that involve more than one field."""
        if not isinstance(self.scatter, ScatterParams):
            raise ValueError(f"scatter: expected ScatterParams, got {type(self.scatter).__name__}")
        if self.grammar and self.json_schema:
            raise ValueError("--grammar and --json-schema: give one of them (llama.cpp keeps the last one given)")

    def get(self, path: str):
        """The value of one setting by field path (``"temp"``, ``"scatter.k"``)."""
        row = row_for(path)
        owner = self.scatter if row.group == "scatter" else self
        return getattr(owner, row.attr)

    def with_value(self, path: str, value) -> Self:
        """A checked copy with one setting changed; ValueError names the flag."""
        return self.with_values({path: value})

    def with_values(self, changes: Mapping[str, object]) -> Self:
        """A checked copy with several settings changed at once (by field path)."""
        # values as given (Any: each field's row checks and converts it when the copy is made)
        top: dict[str, Any] = {}
        scatter: dict[str, Any] = {}
        for path, value in changes.items():
            row = row_for(path)
            (scatter if row.group == "scatter" else top)[row.attr] = value
        if scatter:
            top["scatter"] = dataclasses.replace(self.scatter, **scatter)
        return dataclasses.replace(self, **top)

    def replace(self, **changes) -> Self:
        """A copy with some fields changed (and checked); ``scatter_k=...`` changes ``scatter.k``."""
        scatter_changes = {k[len("scatter_"):]: changes.pop(k) for k in list(changes) if k.startswith("scatter_")}
        if scatter_changes:
            changes["scatter"] = dataclasses.replace(changes.get("scatter", self.scatter), **scatter_changes)
        return dataclasses.replace(self, **changes)

    @property
    def sampler_seq(self) -> str:
        """The order as ``--sampler-seq`` letters."""
        return sampler_seq(self.samplers)


if TYPE_CHECKING:
    class SamplerSettings(_SettingsMethods):
        """All flags of one chain (the type checker's view: see :class:`_Fields`)."""
else:
    SamplerSettings = _dataclass(
        "SamplerSettings",
        _fields(SETTINGS_ROWS) + [("scatter", ScatterParams, field(default_factory=ScatterParams))],
        _SettingsMethods,
    )
    SamplerSettings.__doc__ = (
        "All flags of one chain (one field per top-level row of the flag table, plus ``scatter``), "
        "checked when built.\n\nFields: " + ", ".join(row.attr for row in SETTINGS_ROWS) + ", scatter."
    )
