"""Every engine command is plain data: no field can hold a callable (typed Callable, Any or a class), and each crosses
a pipe to the engine's process and back equal to itself."""
from __future__ import annotations

import dataclasses
import pickle
import typing
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from engine_events import collect

from app.engine.face import commands as cmd
from app.engine.face import events as ev
from sampler import SamplerSettings


def command_classes() -> list[type]:
    return [c for c in vars(cmd).values() if isinstance(c, type) and c.__module__ == cmd.__name__]


def callable_parts(kind, seen: set | None = None) -> list[str]:
    """Where a type (a field's annotation) can hold a callable or anything at all: Callable, Any; walked
    through unions, containers and the fields of dataclasses and named tuples."""
    seen = set() if seen is None else seen
    if kind is typing.Any:
        return ["Any"]
    origin = typing.get_origin(kind)
    if kind is Callable or origin is Callable or (isinstance(kind, type) and issubclass(kind, type)):
        return [str(kind)]
    found = []
    for arg in typing.get_args(kind):
        found += callable_parts(arg, seen)
    if isinstance(kind, type) and kind not in seen and (dataclasses.is_dataclass(kind) or hasattr(kind, "_fields")):
        seen.add(kind)
        for name, hint in typing.get_type_hints(kind).items():
            found += [f"{kind.__name__}.{name}: {part}" for part in callable_parts(hint, seen)]
    return found


def test_no_command_field_can_hold_a_callable():
    found = {c.__name__: callable_parts(c) for c in command_classes()}
    assert {name: parts for name, parts in found.items() if parts} == {}


@dataclasses.dataclass(frozen=True)
class _Inner:
    then: Callable[[int], int] | None = None


class _Middle(NamedTuple):
    inner: _Inner


@dataclasses.dataclass(frozen=True)
class _Outer:
    items: tuple[_Middle, ...] = ()
    extra: Any = None
    kind: type = int


def test_the_walk_finds_a_callable_field_however_deep():
    parts = callable_parts(_Outer)
    assert [p.split(": ")[0] for p in parts] == ["_Outer.items", "_Outer.extra", "_Outer.kind"]
    assert "_Middle.inner: _Inner.then: " in parts[0]


def sample_commands() -> dict[type, object]:
    """One instance of every command, with real data in every field (a step record from the fake engine)."""
    from app.engine.engine import Engine
    from app.engine.face.chat import ChatRequest
    from app.engine.face.model_info import LoadRequest
    from app.engine.face.options import LaneConfig, RunOptions
    from app.engine.fake import fake_loader


    settings = SamplerSettings(seed=3)
    lane = LaneConfig(settings, "lane", key=0)
    options = RunOptions(max_tokens=3, n_ctx=128)
    engine = Engine(fake_loader()).start()
    try:
        engine.submit(cmd.LoadModel(1, LoadRequest()))
        engine.submit(cmd.Generate(2, "once upon", (lane,), options))
        events = collect(engine, lambda e: isinstance(e, ev.RunEnded))
    finally:
        engine.shutdown()
    records = tuple(r for e in events if isinstance(e, ev.StepsProduced) for r in e.records)
    assert records
    return {
        cmd.LoadModel: cmd.LoadModel(1, LoadRequest("m.gguf", 3, ("h:1",), (1.0, 2.0))),
        cmd.Generate: cmd.Generate(2, "once", (lane,), options, ChatRequest("s", "u")),
        cmd.Fan: cmd.Fan(3, (lane,), 2, options),
        cmd.Lookahead: cmd.Lookahead(4, lane, (1, 2), 3, options),
        cmd.MatchEntropy: cmd.MatchEntropy(5, records, records, settings, 1e-3, "sweep"),
        cmd.FormatChat: cmd.FormatChat(6, ChatRequest("s", "u", (("user", "a"), ("assistant", "b")))),
        cmd.Tokenize: cmd.Tokenize(7, "once", True, False),
        cmd.Detokenize: cmd.Detokenize(8, (1, 2)),
        cmd.CheckGrammar: cmd.CheckGrammar(9, "grammar", 'root ::= "a"'),
        cmd.UpdateLaneSettings: cmd.UpdateLaneSettings(0, settings),
        cmd.SetPaused: cmd.SetPaused(True),
        cmd.Shutdown: cmd.Shutdown(),
    }


def same(a, b) -> bool:
    """Equal field by field: arrays by value, NaN equal to NaN, objects without an ``==`` of their own by their
    attributes."""
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, float):
        return isinstance(b, float) and (a == b or (a != a and b != b))
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return type(a) is type(b) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if hasattr(a, "__dict__") and type(a).__eq__ is object.__eq__:
        return type(a) is type(b) and same(vars(a), vars(b))
    return type(a) is type(b) and a == b


def test_every_command_crosses_a_pipe_as_it_is():
    samples = sample_commands()
    assert set(samples) == set(command_classes()), "a command without a sample here"
    for kind, command in samples.items():
        back = pickle.loads(pickle.dumps(command))
        assert type(back) is kind and same(command, back), kind.__name__
    assert not same(samples[cmd.FormatChat], cmd.FormatChat(6, samples[cmd.Generate].chat.__class__("s", "v")))
