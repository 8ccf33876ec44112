"""Runs a sweep's samples on the engine thread and writes their rows.

The runner is driven by engine events, whoever delivers them: the command line
pumps the engine itself, the window gets them through its bridge (the
playground hands each event to :attr:`SweepRunner.handlers`).  It keeps
:data:`IN_FLIGHT` Generate commands queued (up to four samples each, one per
lane, each with its own settings and seed), so the engine never waits for it;
after each run it measures the samples (:mod:`app.core.sweep.metrics`) on the
caller's thread and, for the sweep series, queues a MatchEntropy command per sample
that finds its entropy-matched temperature on the engine thread (``sampler.entropy.match_entropy``:
the baseline chain replayed on the sample's own records).  Rows are written a whole
group at a time, in plan order, once the group's samples and matches are in.

:meth:`SweepRunner.cancel` (or a stop of the engine from elsewhere) stops after
the current step (an entropy match: after its current bisection step); what was written
stays a valid, partial CSV.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.engine.face import commands as cmd
from app.engine.face import events as ev
from app.engine.face.options import LaneConfig, RunOptions
from app.engine.face.records import StopReason

from .metrics import group_self_bleu, sample_metrics
from .output import sample_row
from .plan import SWEEP, Sample, SweepPlan, batches, groups

IN_FLIGHT = 2
#: Entropy tolerance of the matched temperature (normalised entropy, 0 to 1).
MATCH_TOL = 1e-3


@dataclass
class Progress:
    """How far a sweep is, phase by phase: its samples generated and measured (``done``), their entropy
    matches (``matched`` of ``to_match``: the sweep series' samples of this run), the rows written, and what
    the engine works on for it now (``now``: "generating samples 5-8", "matching the entropy of sample 6")."""

    total: int  # samples in the plan
    skipped: int  # already in the file (resumed)
    done: int = 0  # measured in this run
    written: int = 0  # rows written in this run
    elapsed_s: float = 0.0
    to_match: int = 0  # entropy matches this run needs (one per sweep-series sample it runs)
    matched: int = 0  # of which found
    now: str = ""  # what the engine works on for the sweep ("" when nothing)

    @property
    def _work(self) -> tuple[int, int]:
        """(steps done, steps in all): a sample and an entropy match are a step each."""
        return self.skipped + self.done + self.matched, self.total + self.to_match

    @property
    def fraction(self) -> float:
        done, every = self._work
        return done / every if every else 1.0

    @property
    def eta_s(self) -> float | None:
        """Seconds left at this run's pace so far (None before the first sample)."""
        done, every = self._work
        ran = done - self.skipped
        return self.elapsed_s / ran * (every - done) if ran else None


@dataclass
class _Result:
    tokens: list[int]
    metrics: dict
    stop: str
    text: str
    match: object = None
    records: tuple = field(default=(), repr=False)


class SweepRunner:
    """Runs ``plan``'s samples (those whose key is not in ``done``) and hands each finished group's rows
    to ``write(rows)``; ``on_change()`` is called after every event that moved it on."""

    def __init__(self, engine, plan: SweepPlan, write: Callable[[list[dict]], None], *, done: Sequence = (),
                 threads: int | None = None, on_change: Callable[[], None] | None = None, in_flight: int = IN_FLIGHT):
        self.engine, self.plan, self.write = engine, plan, write
        self.on_change = on_change or (lambda: None)
        self.in_flight = in_flight
        done_keys = set(done)
        every = plan.samples()
        self.samples = [s for s in every if s.key not in done_keys]
        _check_whole_groups(every, done_keys)
        self.progress = Progress(len(every), len(every) - len(self.samples),
                                 to_match=sum(self._needs_match(s) for s in self.samples))
        self.options = RunOptions(max_tokens=plan.tokens, n_ctx=plan.n_ctx, n_threads=threads,
                                  raw_logsumexp=True)
        self._batches = list(batches(self.samples))
        self._groups = groups(self.samples)
        self._next_batch = 0
        self._next_group = 0
        self._runs: dict[int, list[Sample]] = {}
        self._records: dict[int, dict[int, list]] = {}
        self._tasks: dict[int, Sample] = {}  # entropy matches in flight, by task id
        self._results: dict[int, _Result] = {}  # sample index -> result
        self._cancelled = False
        self._t0: float | None = None
        self.started = self.finished = False
        self.error = ""
        self.handlers: dict[type, Callable[[Any], None]] = {
            ev.StepsProduced: self._on_steps, ev.RunEnded: self._on_run_ended, ev.TaskEnded: self._on_task,
        }

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    # -- control -------------------------------------------------------------------------------

    def start(self) -> None:
        self.started = True
        self._t0 = time.monotonic()
        for _ in range(self.in_flight):
            self._submit_next()
        self._check_finished()

    def cancel(self) -> None:
        """Stop the engine's work (this sweep's and anything else queued); the rows written stay."""
        if not self.finished and not self._cancelled:
            self._cancelled = True
            self.engine.stop()  # the engine's own stop: ends a run within a step, a match within a bisection step
            self._check_finished()

    def handle(self, event) -> None:
        handler = self.handlers.get(type(event))
        if handler is not None:
            handler(event)

    # -- events --------------------------------------------------------------------------------

    def _submit_next(self) -> None:
        if self._cancelled or self._next_batch >= len(self._batches):
            return
        batch = self._batches[self._next_batch]
        self._next_batch += 1
        run_id = self.engine.next_id()
        self._runs[run_id] = batch
        self._records[run_id] = {i: [] for i in range(len(batch))}
        lanes = tuple(LaneConfig(s.settings, f"sample {s.index}", key=i) for i, s in enumerate(batch))
        self.engine.submit(cmd.Generate(run_id, batch[0].prompt.text, lanes, self.options))

    def _on_steps(self, e: ev.StepsProduced) -> None:
        lanes = self._records.get(e.run_id)
        if lanes is not None:
            for rec in e.records:
                lanes[rec.lane].append(rec)

    def _on_run_ended(self, e: ev.RunEnded) -> None:
        batch = self._runs.pop(e.run_id, None)
        if batch is None:
            return
        records = self._records.pop(e.run_id)
        results = {r.lane: r for r in e.results}
        if e.error and not self.cancelled:
            self._fail(f"the run of samples {batch[0].index}-{batch[-1].index} failed: {e.error}")
        elif self.cancelled or any(results.get(i) is None or results[i].stop_reason == StopReason.CANCELLED
                                   for i in range(len(batch))):
            self.cancel()  # stopped from here or from elsewhere: nothing more starts
        else:
            self._measure(batch, records, results)
            self._submit_next()
        self._advance()

    def _measure(self, batch: list[Sample], records: dict, results: dict) -> None:
        for i, sample in enumerate(batch):
            recs = tuple(records[i])
            r = results[i]
            keep = recs if self._needs_match(sample) else ()
            self._results[sample.index] = _Result([int(x.token) for x in recs], sample_metrics(recs),
                                                  r.stop_reason.name.lower(), r.text, records=keep)
            self.progress.done += 1
            if keep:
                task_id = self.engine.next_id()
                self._tasks[task_id] = sample
                self.engine.submit(cmd.MatchEntropy(task_id, keep, keep, self.plan.base.replace(seed=sample.seed),
                                                    tol=MATCH_TOL, label="sweep: match entropy"))

    def _needs_match(self, sample: Sample) -> bool:
        return self.plan.match and sample.point.series == SWEEP

    def _on_task(self, e: ev.TaskEnded) -> None:
        sample = self._tasks.pop(e.task_id, None)
        if sample is None:
            return
        if e.cancelled or self.cancelled:
            self.cancel()  # stopped from here or from elsewhere: nothing more starts
        elif e.error:
            self._fail(e.error)
        else:
            result = self._results[sample.index]
            result.match, result.records = e.result, ()
            self.progress.matched += 1
        self._advance()

    def _advance(self) -> None:
        """Write every finished group that is next in plan order; see whether the sweep has ended."""
        while not self.cancelled and self._next_group < len(self._groups):
            group = self._groups[self._next_group]
            found = [self._results.get(s.index) for s in group]
            results = [r for r in found if r is not None]
            if len(results) < len(group) or any(self._needs_match(s) and r.match is None for s, r in zip(group, results)):
                break
            bleu = group_self_bleu([r.tokens for r in results])
            rows = []
            for s, r, b in zip(group, results, bleu):
                rows.append(sample_row(s, self.plan.axes, {**r.metrics, "self_bleu": b}, r.match, r.stop, r.text))
                del self._results[s.index]
            try:
                self.write(rows)
            except OSError as exc:
                self._fail(f"writing the rows failed: {exc.strerror or exc}")
                break
            self.progress.written += len(rows)
            self._next_group += 1
        self._check_finished()

    def _fail(self, message: str) -> None:
        if not self.error:
            self.error = message
        self.cancel()

    def _doing(self) -> str:
        """What the engine works on for this sweep: its oldest command still open (the engine runs them in order)."""
        if not self._runs and not self._tasks:
            return ""
        first = min((*self._runs, *self._tasks))
        if first in self._tasks:
            return f"matching the entropy of sample {self._tasks[first].index}"
        batch = self._runs[first]
        return f"generating sample{'s' if len(batch) > 1 else ''} {batch[0].index}" + (
            f"-{batch[-1].index}" if len(batch) > 1 else "")

    def _check_finished(self) -> None:
        if self._t0 is not None:
            self.progress.elapsed_s = time.monotonic() - self._t0
        self.progress.now = self._doing()
        idle = not self._runs and not self._tasks
        if self.started and not self.finished and idle and (self.cancelled or self._next_group >= len(self._groups)):
            self.finished = True
        self.on_change()


def _check_whole_groups(samples: list[Sample], done: set) -> None:
    """A resumed file holds whole groups (the runner writes them so); a partial one means it was edited."""
    for group in groups(samples):
        have = [s.key in done for s in group]
        if any(have) and not all(have):
            s = group[0]
            raise ValueError(f"the file holds only some seeds of {s.point.series} point {s.point.flags!r}, prompt "
                             f"{s.prompt.id!r} (rows are written a whole group at a time: was it edited?)")
