"""The work the engine thread does for each command: load, generate, fan.

Each function runs on the engine thread, reports through ``engine.emit`` and
never raises: a failure becomes an event that says what went wrong.
"""
from __future__ import annotations

import dataclasses
import time
import traceback

from app.engine.face.commands import Fan, Generate, LoadModel
from app.engine.face.events import (
    FanEnded,
    FanProduced,
    ModelLoaded,
    ModelLoadFailed,
    ModelLoadProgress,
    RunEnded,
    RunStarted,
    StepsProduced,
)
from app.engine.face.model_info import ModelLoadError
from app.engine.face.options import MAX_LANES, LaneConfig
from app.engine.face.records import StopReason
from app.engine.llama.context import DecodeError
from app.engine.llama.model_file import ModelFileChanged
from app.engine.rpc.watch import RpcServerLost
from app.engine.run.generation import Generation

#: Load progress is reported at most this often (seconds), the last fraction always.
PROGRESS_INTERVAL_S = 0.05


def load_model(engine, cmd: LoadModel) -> None:
    path = cmd.request.path or "the bundled model"
    if engine.cancelled():
        engine.emit(ModelLoadFailed(cmd.load_id, str(path), "cancelled"))
        return
    last = [0.0]

    def progress(fraction: float, message: str = "") -> bool:
        now = time.monotonic()
        if message or fraction >= 1.0 or now - last[0] >= PROGRESS_INTERVAL_S:
            last[0] = now
            engine.emit(ModelLoadProgress(cmd.load_id, float(fraction), message))
        return not engine.cancelled()

    try:
        model = engine.loader(cmd.request, progress)
    except ModelLoadError as exc:
        engine.emit(ModelLoadFailed(cmd.load_id, str(path), str(exc)))
        return
    except Exception as exc:  # any other failure still arrives as a message
        engine.emit(ModelLoadFailed(cmd.load_id, str(path), f"{path}: {type(exc).__name__}: {exc}"))
        return
    engine.replace_model(model)
    announce_model(engine, cmd.load_id, cmd.request.labels)


def announce_model(engine, load_id: int, labels: bool = True) -> None:
    """Tell the views about the engine's model (its token texts and kinds included, for labels and chips,
    unless ``labels`` is False)."""
    model = engine.model
    vocab = model.vocab
    if not labels:
        engine.emit(ModelLoaded(load_id, model.info, (), b"", model.chat_template))
        return
    if hasattr(vocab, "token_strs"):  # llama.cpp's vocabulary: decoded once, cached on disk per model file
        texts = tuple(vocab.token_strs())
    else:
        texts = tuple(t.decode("utf-8", "replace") for t in vocab.token_texts())
    engine.emit(ModelLoaded(load_id, model.info, texts, model.vocab.token_kinds(), model.chat_template))


def _no_model(engine) -> str | None:
    return None if engine.model is not None else "no model is loaded"


def generate(engine, cmd: Generate) -> None:
    if engine.cancelled():
        engine.emit(RunEnded(cmd.run_id))
        return
    problem = _no_model(engine)
    if problem:
        engine.emit(RunEnded(cmd.run_id, error=problem))
        return
    try:
        prompt, chat_prompt = run_prompt(engine.model, cmd)
        keys = [c.key for c in cmd.lanes if c.key is not None]
        workspace = engine.workspace_for(max([len(cmd.lanes)] + [k + 1 for k in keys]), cmd.options)
        checks = _CountedStop(engine.cancelled)
        gen = Generation(engine.model, prompt, cmd.lanes, cmd.options, workspace=workspace, should_stop=checks)
    # no chat template, a prompt too long, no memory ...
    except (ValueError, DecodeError, RpcServerLost, ModelFileChanged) as exc:
        engine.emit(RunEnded(cmd.run_id, error=str(exc)))
        return
    starts = tuple((lane.key, tuple(lane.prompt_tokens)) for lane in gen.lanes)
    engine.emit(RunStarted(cmd.run_id, starts, chat_prompt))
    try:
        _step_until_done(engine, gen, cmd.run_id)
    except (RpcServerLost, ModelFileChanged) as exc:  # found between two steps: the text so far is kept
        for lane in gen.lanes:
            lane.stop(StopReason.ERROR, str(exc))
        engine.emit(RunEnded(cmd.run_id, tuple(gen.results()), error=str(exc)))
        return
    except Exception as exc:  # a crash inside a step: report it, keep what was made
        for lane in gen.lanes:
            lane.stop(StopReason.ERROR, str(exc))
        engine.emit(RunEnded(cmd.run_id, tuple(gen.results()), error=f"{type(exc).__name__}: {exc}",
                             details=traceback.format_exc()))
        return
    finally:
        gen.close()
    tokens = sum(len(lane.tokens) for lane in gen.lanes)
    tps = tokens / gen.wall_s if gen.wall_s else 0.0
    decoded = len(gen.prompt_tokens) if gen.prompt_ready else min(len(gen.prompt_tokens), checks.passed * cmd.options.n_batch)
    engine.emit(RunEnded(cmd.run_id, tuple(gen.results()), tps, gen.wall_s, prompt_decoded=decoded))


class _CountedStop:
    """The engine's stop as a run's ``should_stop``, counting the checks that said go on: one before each
    prompt batch, so while the prompt is decoded, the batches begun (each finishes before the next check)."""

    def __init__(self, cancelled):
        self.cancelled = cancelled
        self.passed = 0

    def __call__(self) -> bool:
        if self.cancelled():
            return True
        self.passed += 1
        return False


def run_prompt(model, cmd: Generate) -> tuple[str, str]:
    """(the run's prompt, the formatted chat prompt or ""): with a chat request (and a lane that
    starts from the prompt) both are the request in the model's chat template, else the command's
    text and "".  ChatTemplateError (a ValueError naming the model) when the model has none."""
    if cmd.chat is None or all(lane.prefix is not None for lane in cmd.lanes):
        return cmd.prompt, ""
    formatted = model.format_chat(cmd.chat)
    return formatted, formatted


def _step_until_done(engine, gen: Generation, run_id: int) -> None:
    while not gen.finished:
        if not engine.poll_controls(gen):
            gen.cancel()
        records = gen.sample_step()
        if records:
            engine.emit(StepsProduced(run_id, tuple(records), time.monotonic()))
        gen.decode_step()


def fan_batches(cmd: Fan) -> list[tuple[int, list[LaneConfig]]]:
    """(lane, its configs) per batch: ``count`` seeds per lane, at most MAX_LANES a batch (a lane is its
    config's ``key``, else its place in the command, as a run's records name it)."""
    if not 1 <= cmd.count <= 16:
        raise ValueError(f"fan: continuations per lane must be 1 to 16, got {cmd.count}")
    batches = []
    for index, config in enumerate(cmd.lanes):
        seeds = [
            dataclasses.replace(
                config, key=None, settings=config.settings.replace(seed=(config.settings.seed + 1000 * (k + 1)) & 0x7FFFFFFF))
            for k in range(cmd.count)
        ]
        for i in range(0, cmd.count, MAX_LANES):
            batches.append((index if config.key is None else config.key, seeds[i:i + MAX_LANES]))
    return batches


def fan(engine, cmd: Fan) -> None:
    done = 0
    try:
        problem = _no_model(engine)
        if problem:
            raise ValueError(problem)
        for lane, configs in fan_batches(cmd):
            if engine.cancelled():
                break
            records: list[list] = [[] for _ in configs]
            gen = Generation(engine.model, "", configs, cmd.options, should_stop=engine.cancelled)
            try:
                while not gen.finished:
                    for rec in gen.step():
                        records[rec.lane].append(rec)
            finally:
                gen.close()
            for result, config, recs in zip(gen.results(), configs, records):
                engine.emit(FanProduced(cmd.fan_id, lane, config.settings.seed, result.text, tuple(recs)))
                done += 1
    except Exception as exc:
        error = str(exc) if isinstance(exc, (ValueError, RpcServerLost, ModelFileChanged)) else f"{type(exc).__name__}: {exc}"
        engine.emit(FanEnded(cmd.fan_id, done, error=error))
        return
    engine.emit(FanEnded(cmd.fan_id, done, cancelled=engine.cancelled()))
