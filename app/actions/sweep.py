"""A sweep from the window: start, cancel or resume it, show an earlier one, open a point as a lane.

The sweep's work runs on the engine thread (``app.core.sweep.runner``); its events
reach :attr:`SweepActions.handlers` through the playground, on the window's
thread.  While it runs the state is busy (``"sweep"``), so the window's own
runs wait, and Stop stops the sweep too.  Every change is announced as the
state's ``Changed.SWEEP``; the sweep window redraws from ``state.jobs.sweep`` (:class:`app.core.jobs.SweepShown`).
"""
from __future__ import annotations

from pathlib import Path

from app.core.state import PlaygroundState
from app.core.sweep import output
from app.core.sweep.plan import SweepPlan
from app.core.sweep.runner import SweepRunner
from app.engine.face import events as ev
from sampler import FlagError, parse_flags


class SweepActions:
    def __init__(self, state: PlaygroundState, engine, runs, lanes):
        self.state, self.engine, self.runs, self.lanes = state, engine, runs, lanes
        self.runner: SweepRunner | None = None  # the sweep running or run last (what it shows: state.jobs.sweep)
        self._out: output.SweepCsv | None = None  # the file the sweep running writes its rows to
        self.handlers = {kind: self._on_event for kind in (ev.StepsProduced, ev.RunEnded, ev.TaskEnded)}

    @property
    def running(self) -> bool:
        return self.runner is not None and not self.runner.finished

    def start(self, plan: SweepPlan, path, *, resume: bool = False, overwrite: bool = False) -> bool:
        """Run ``plan`` into ``path`` (resume: go on with it; overwrite: replace it); False, with the
        problem reported, when it cannot start."""
        if self.running or not self.runs.ready():
            return False
        path = Path(path)
        header = output.make_header(plan, output.model_description(self.state.model))
        try:
            if resume and path.exists():
                out, rows = output.resume(path, header)
            else:
                out, rows = output.create(path, header, force=overwrite), []
            runner = SweepRunner(self.engine, plan, self._write, done=[output.row_key(r) for r in rows],
                                 on_change=self._changed)
        except (OSError, ValueError) as exc:
            self.state.report(str(exc) if isinstance(exc, ValueError) else f"{path}: {exc.strerror or exc}")
            return False
        self.runner, self._out = runner, out
        self.state.jobs.show_sweep(path, header, rows, "running ...")
        self.state.report("")
        self.state.set_busy("sweep")
        runner.start()
        return True

    def cancel(self) -> None:
        if self.runner is not None and self.running:
            self.runner.cancel()

    def show_file(self, path) -> bool:
        """Show an earlier sweep's rows (nothing runs); False, with the problem reported, if unreadable."""
        if self.running:
            return False
        try:
            header, rows = output.read_sweep(path)
        except (OSError, ValueError) as exc:
            self.state.report(str(exc) if isinstance(exc, ValueError) else f"{path}: {exc.strerror or exc}")
            return False
        self.runner = None
        self.state.jobs.show_sweep(path, header, rows, f"{len(rows)} samples from {Path(path).name}")
        return True

    def open_point(self, flags: str, index: int | None = None) -> bool:
        """The lane (the edited one by default) takes a point's settings, with the sweep's first seed."""
        index = self.state.current_lane if index is None else index
        seeds = (self.state.jobs.sweep.header or {}).get("plan", {}).get("seeds") or [self.state.lanes[index].settings.seed]
        try:
            settings, rest = parse_flags(flags)
        except FlagError as exc:
            self.state.report(f"this point's flags cannot be read: {exc}")
            return False
        self.lanes.set_settings(index, settings.replace(seed=int(seeds[0])), None)
        self.state.set_status(f"Lane {index + 1} has the sweep point {flags or '(llama.cpp defaults)'}, seed {seeds[0]}")
        return True

    # -- from the engine -----------------------------------------------------------------------

    def _on_event(self, event) -> None:
        if self.runner is not None:
            self.runner.handle(event)

    def _write(self, rows: list[dict]) -> None:
        assert self._out is not None, "a sweep's rows before its file was opened"
        self._out.write_rows(rows)
        self.state.jobs.add_sweep_rows(rows)

    def _changed(self) -> None:
        runner = self.runner
        if runner is None or not runner.finished or self.state.busy != "sweep":
            self.state.jobs.sweep_changed()  # its progress
            return
        p = runner.progress
        if runner.error:
            message = f"stopped by an error: {runner.error}"
        elif runner.cancelled:
            message = f"stopped: {p.skipped + p.written} of {p.total} samples in the file (Resume goes on)"
        else:
            message = f"done: {p.total} samples"
        self.state.jobs.sweep_changed(message)
        if runner.error:
            self.state.report(f"Sweep stopped: {runner.error}")
        self.state.set_busy("")
        self.state.set_status(f"Sweep {message}")
