"""The engine's side of a lost RPC server (see rpc_watch for between decodes, rpc_abort for during one).

Between decodes, the work in progress fails with RpcServerLost like any other
error; afterwards :func:`drop_if_lost` frees the model (its dead connection
sunk first) and tells the views with ModelLost.

During a decode, llama.cpp's thread calls :func:`report_stuck` (through the
engine's rescue handler) while the engine thread waits inside llama.cpp for
ever: the work in progress is reported failed, the text made so far with it,
and the models that used RPC are abandoned, unfreed.
"""
from __future__ import annotations

from .commands import Fan, Generate, LoadModel, RunTask
from .events import FanEnded, ModelLoadFailed, ModelLost, RunEnded, TaskEnded
from .records import LaneResult, StopReason

#: Models and workspaces left behind by a stuck engine thread: never freed (their connections are shut).
graveyard: list = []


def _rpc_model(model) -> bool:
    link = getattr(model, "rpc", None)
    return link is not None and bool(link.endpoints)


def uses_rpc(engine, cmd) -> bool:
    """Whether the work in progress (or the engine's model) talks to RPC servers."""
    return (isinstance(cmd, LoadModel) and bool(cmd.request.rpc)) or _rpc_model(engine.model)


def drop_if_lost(engine) -> None:
    """After a command: if the model's RPC server went away, free the model and say so."""
    link = getattr(engine.model, "rpc", None)
    if link is None or link.lost is None:
        return
    engine.replace_model(None)  # sinks the dead connection, then frees the workspace and the model
    engine.emit(ModelLost(f"RPC server {link.lost} went away: the model was unloaded; load it again, "
                          "with the servers once they are back or without them"))


def snapshot(gen, message: str) -> tuple[LaneResult, ...]:
    """The lanes' text so far (read while the engine thread waits inside llama.cpp)."""
    return tuple(LaneResult(lane.key, StopReason.ERROR, lane.text, tuple(lane.tokens), message) for lane in gen.lanes)


def report_stuck(engine, cmd, message: str) -> None:
    """The engine thread is stuck in llama.cpp: report ``cmd`` failed and abandon the RPC model."""
    if isinstance(cmd, LoadModel):
        engine.emit(ModelLoadFailed(cmd.load_id, str(cmd.request.path or "the bundled model"), message))
    elif isinstance(cmd, Generate):
        gen = engine.live_run
        engine.emit(RunEnded(cmd.run_id, snapshot(gen, message) if gen is not None else (), error=message))
    elif isinstance(cmd, Fan):
        engine.emit(FanEnded(cmd.fan_id, 0, error=message))
    elif isinstance(cmd, RunTask):
        engine.emit(TaskEnded(cmd.task_id, error=message))
    if _rpc_model(engine.model):
        graveyard.append(engine.abandon_model())
        engine.emit(ModelLost(f"{message} (the model was unloaded)"))
