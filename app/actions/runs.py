"""Loading a model and running lanes: the commands that start them and the events that follow."""
from __future__ import annotations

from pathlib import Path
from types import EllipsisType

from app.core.recent import RecentModels
from app.core.state import PlaygroundState
from app.core.text_tree import TextTree
from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.endpoints import parse_endpoints, parse_tensor_split, tensor_split_problem
from app.engine.face.model_info import LoadRequest
from app.engine.face.options import LaneConfig, PromptText, RunOptions
from app.engine.face.records import StepRecord


def start_parts(tree: TextTree, pieces) -> tuple[int | str | PromptText, ...]:
    """What a run on ``pieces`` of a lane starts from: the root's prompt tokens, then each
    generated token, and the writer's text as text (the engine tokenizes it)."""
    root = tree.root()
    assert root is not None, "the start of a lane that has no text"
    parts: list[int | str | PromptText] = list(root.prompt_tokens) if root.prompt_tokens else [PromptText(root.prompt)]
    for piece in pieces:
        parts.append(piece.token if isinstance(piece, StepRecord) else piece.text)
    return tuple(parts)


class RunActions:
    def __init__(self, state: PlaygroundState, engine, history, recent: RecentModels | None = None):
        self.state = state
        self.engine = engine
        self.history = history
        self.recent = recent  # the recently loaded models' file (None: none kept, e.g. in tests and scripts)
        if recent is not None:
            state.set_model_form(recent=tuple(recent.paths()))
        self.handlers = {
            ev.ModelLoadProgress: self._on_load_progress, ev.ModelLoaded: self._on_loaded,
            ev.ModelLoadFailed: self._on_load_failed, ev.ModelLost: self._on_model_lost,
            ev.RunStarted: self._on_run_news, ev.StepsProduced: self._on_run_news, ev.RunEnded: self._on_run_ended,
            ev.EngineCrashed: self._on_crashed,
        }

    # -- model ---------------------------------------------------------------------------

    def load_model(self, path: str | None = None, gpu_layers: int | None = None, rpc: tuple[str, ...] = (),
                   tensor_split: tuple[float, ...] = ()) -> None:
        """Load a model (its layers on the RPC servers ``rpc`` if any); the current one stays until
        the new one is ready.  Work in progress stops first."""
        if self.state.load_id is not None or self.state.busy:
            self.engine.stop()
        self._load(LoadRequest(path, gpu_layers, tuple(rpc), tuple(tensor_split)))

    def load_from_form(self, path: str | None | EllipsisType = ...) -> None:
        """Load what the Model page says (``path``: this model instead); a bad server list or
        split is reported and nothing loads."""
        form = self.state.model_form
        try:
            rpc = parse_endpoints(form.rpc) if form.rpc.strip() else ()
            split = parse_tensor_split(form.tensor_split) if form.tensor_split.strip() else ()
        except ValueError as exc:
            self.state.report(str(exc))
            return
        known_gpus = self.state.model.local_gpus if self.state.model is not None else None
        problem = tensor_split_problem(split, rpc, known_gpus)  # before the load stops what runs
        if problem:
            self.state.report(problem)
            return
        path = form.path if path is ... else path
        self.state.set_model_form(path=path)
        self.load_model(path, None if form.gpu_layers < 0 else form.gpu_layers, rpc, split)

    def _load(self, request: LoadRequest) -> None:
        load_id = self.engine.next_id()
        where = f" on {', '.join(request.rpc)}" if request.rpc else ""
        self.state.begin_load(load_id, request, f"Loading {request.path or 'the bundled model'}{where} ...")
        self.engine.submit(cmd.LoadModel(load_id, request))

    def expect_adopted_model(self) -> None:
        """The engine was given a model: its ModelLoaded event (load id 0) is on the way."""
        self.state.begin_load(0, None, "Reading the model's vocabulary ...")

    def _on_load_progress(self, e: ev.ModelLoadProgress) -> None:
        if e.load_id == self.state.load_id:
            self.state.set_load_progress(e.fraction, e.message)

    def _on_loaded(self, e: ev.ModelLoaded) -> None:
        if e.load_id != self.state.load_id:
            return
        if self.recent is not None:
            self.recent.add(e.info.path)
        recent = tuple(self.recent.paths()) if self.recent is not None else self.state.model_form.recent
        self.state.set_model_form(path=e.info.path, recent=recent)
        self.state.set_model(e.info, e.token_texts, request=self.state.load_request)
        self.state.set_loading(False)
        self.state.set_status(f"Loaded {Path(e.info.path).name or e.info.name}")  # what was done last
        self.state.report(e.info.note)  # e.g. GPU layers asked for on a build without a GPU

    def _on_load_failed(self, e: ev.ModelLoadFailed) -> None:
        if e.load_id != self.state.load_id:
            return  # a load that a newer one replaced
        self.state.set_loading(False)
        if e.message != "cancelled":
            self.state.report(f"Could not load the model: {e.message}")

    def _on_model_lost(self, e: ev.ModelLost) -> None:
        """An RPC server went away: the model is gone (the text stays); load again to go on."""
        self.state.set_model(None)
        self.state.report(e.message)

    def _on_crashed(self, e: ev.EngineCrashed) -> None:
        """The engine's process died and a new one runs, without a model: the run in progress ends
        with the text it made, and the next run loads the model again (the one the engine held)."""
        if self.state.run_id is not None:
            self.state.text.end_runs(self.state.run_id, ())
            self._end("stopped: the engine crashed")
        if self.state.load_id is not None:
            self.state.set_loading(False)
        self.state.set_model(None, lost=self.state.loaded_request)
        self.state.report(e.message)

    # -- runs ----------------------------------------------------------------------------------

    def options(self, max_tokens: int | None = None) -> RunOptions:
        """The run options from the state (ValueError names a bad one)."""
        rs = self.state.run_settings
        return rs.replace(max_tokens=max_tokens) if max_tokens else rs

    def ready(self) -> bool:
        """Whether new work can start (a model, nothing running); says why not.  After a crash
        the lost model is loaded again first (the engine runs the work once it is loaded)."""
        if self.state.model is None and self.state.lost_model is None:
            self.state.report("No model is loaded yet.")
            return False
        if self.state.busy or self.state.load_id is not None:
            return False
        if self.state.model is None and self.state.lost_model is not None:
            self._load(self.state.lost_model)
        return True

    def generate(self) -> None:
        """Generate from the prompt in every lane; the text each had stays, as another branch."""
        if not self.ready():
            return
        self.history.checkpoint()
        self.state.select(None)  # a new text: the panels follow its newest token, not a step of the old one
        run_id = self.engine.next_id()
        configs = []
        for i, lane in enumerate(self.state.lanes):
            self.state.text.begin_new_root_run(run_id, i, self.state.chat.prompt_for_run())
            configs.append(LaneConfig(lane.settings, f"lane {i + 1}", key=i))
        self._start(run_id, tuple(configs))

    def continue_run(self) -> None:
        """Every lane goes on from where its text ends: its exact tokens, the cached prefix reused."""
        if not self.ready():
            return
        if any(lane.branch is None for lane in self.state.lanes):
            self.state.report("Every lane needs some text to continue: generate first.")
            return
        self.history.checkpoint()
        self.state.select(None)  # the panels follow the new tokens as they come
        run_id = self.engine.next_id()
        configs = []
        for i, lane in enumerate(self.state.lanes):
            pieces = lane.tree.pieces()
            configs.append(LaneConfig(lane.settings, f"lane {i + 1}", key=i, prefix=start_parts(lane.tree, pieces),
                                      first_step=sum(1 for p in pieces if isinstance(p, StepRecord))))
            assert lane.branch is not None  # every lane has text (above)
            self.state.text.begin_run(run_id, i, lane.branch)
        self._start(run_id, tuple(configs))

    def branch_from(self, index: int, step: int, token: int) -> bool:
        """Lane ``index`` takes ``token`` at ``step`` instead and goes on from there (a new branch;
        the old continuation stays).  Only the cache after that step is decoded again."""
        if not self.ready():
            return False
        lane = self.state.lanes[index]
        pieces = lane.tree.pieces()
        found = next(((i, p) for i, p in enumerate(pieces) if isinstance(p, StepRecord) and p.step == step), None)
        if found is None:
            self.state.report(f"Lane {index + 1} has no step {step} to branch from.")
            return False
        at, record = found
        self.history.checkpoint()
        run_id = self.engine.next_id()
        config = LaneConfig(lane.settings, f"lane {index + 1}", key=index, prefix=start_parts(lane.tree, pieces[:at]),
                            first_step=step, force=(step, int(token)), chain_state=record.chain_state)
        self.state.text.begin_fork_run(run_id, index, at)
        self.state.select(step)
        self._start(run_id, (config,))
        return True

    def _start(self, run_id: int, lanes: tuple[LaneConfig, ...]) -> None:
        try:
            options = self.options()
        except ValueError as exc:
            self.state.report(str(exc))
            self.state.text.end_runs(run_id, ())
            return
        self.state.report("")
        self.state.set_status("running")
        self.state.set_busy("run", run_id)
        self.engine.submit(cmd.Generate(run_id, self.state.prompt, lanes, options,
                                        chat=self.state.chat.chat_request()))  # chat mode: the engine formats

    def stop(self) -> None:
        """Stop whatever the engine is doing (a run, a fan, a load) within one step."""
        self.engine.stop()

    def pause(self, paused: bool = True) -> None:
        self.engine.submit(cmd.SetPaused(paused))

    def send_settings(self, index: int) -> None:
        """The run in progress uses the lane's settings from its next step on."""
        if self.state.busy == "run":
            self.engine.submit(cmd.UpdateLaneSettings(index, self.state.lanes[index].settings))

    def _on_run_news(self, e: ev.RunStarted | ev.StepsProduced) -> None:
        """A run's start (the tokens each lane starts from) or its newest records."""
        if e.run_id != self.state.run_id:
            return  # from a run that was stopped before this one began
        if isinstance(e, ev.RunStarted):
            self.state.text.set_starts(e.run_id, dict(e.starts))
        else:
            self.state.text.add_records(e.run_id, e.records)

    def _on_run_ended(self, e: ev.RunEnded) -> None:
        if e.run_id != self.state.run_id:
            return
        self.state.text.end_runs(e.run_id, e.results)
        if e.error:
            self._end("stopped by an error" if e.results else "did not start")
            self.state.report(f"Generation stopped: {e.error}" if e.results else e.error)
            return
        self._end(self._summary(e.results), e.tokens_per_s)

    def _end(self, status: str, tokens_per_s: float | None = None) -> None:
        self.state.set_busy("")
        self.state.set_status(status, tokens_per_s=tokens_per_s)

    def _summary(self, results) -> str:
        if not results:
            return "stopped before it began"
        r = results[min(self.state.current_lane, len(results) - 1)]
        return f"stopped: {r.stop_reason.value}" + (f" ({r.detail})" if r.detail else "")
