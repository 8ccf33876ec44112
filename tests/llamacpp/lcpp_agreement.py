"""The whole-run agreement's harness: one configuration set run through the playground and every export.

For each ``(index, settings, prompt)``:

* **engine**: the playground's engine (what ``generate`` runs), in this process, on the session's one
  loaded model; one fresh workspace per prompt, so each prompt is decoded once, in one batch, as a fresh
  run decodes it (the later configurations of that prompt start from its kept logits, the same numbers);
* **completion**: the exported command line (:func:`~app.core.llamacpp.export_run`) run in ``llama-completion``;
* **server**: the exported request (:func:`~app.core.llamacpp.server_request`) POSTed to ``llama-server``
  started from the exported launch line, one server per distinct launch line, reused across requests
  (the request carries every sampling field; ``cache_prompt`` is false, so each prompt is decoded anew);
* **kwargs**: the exported llama-cpp-python keyword arguments, where they express the chain (no gaps).

The programs get ``-t 1 --no-warmup -fit off`` after the exported words: the export leaves them out because
they change no number (the warm-up decode is cleared and the samplers reset after it; llama.cpp's CPU
kernels give the same numbers on any thread count; ``--fit`` only sizes what a line leaves unset to the
devices' memory, and the exported lines set the context, on a CPU build with nothing to offload), and they
make a run cheap: one thread is what a loaded 2-core machine runs fastest, and the fit's trial load of the
model was 45 % of a short run here (0.75 s against 0.42 s a ``-n 1`` run).
The llama.cpp programs run in a worker thread while the in-process runs go on in this one: two cores busy.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from lcpp_programs import THREADS, Server, run_completion

from app.core.llamacpp import export_run, llama_kwargs, server_request

#: What the test adds after the exported words of a program (see the module docstring).
RUNTIME_ARGS = ["-t", THREADS, "--no-warmup", "-fit", "off"]
#: The same after a server's launch line (``lcpp_programs.Server`` adds the thread count itself).
SERVER_RUNTIME_ARGS = ["--no-warmup", "-fit", "off"]
#: The export paths, as the counts name them.
PATHS = ("completion", "server", "kwargs")
#: The full set (54 configurations x 64 tokens) runs when asked: ``make agreement``.
WHOLE_RUN_AGREEMENT = os.environ.get("SCATTER_AGREEMENT") == "1"
#: (set, tokens, configurations, counts, differences) of each set run in this session, for pytest's report.
SUMMARIES: list[tuple] = []


@dataclass
class Outcome:
    """One configuration's text through the engine and each export path (None: not run or not comparable)."""

    index: int
    settings: object
    prompt: str
    engine: str = ""
    engine_tokens: tuple = ()
    completion: str | None = None
    server: str | None = None
    kwargs: str | None = None
    errors: dict = field(default_factory=dict)  # path -> what the program said instead of a text


def gather(configs, model, model_path: str, programs: Path, folder: Path, n_predict: int, n_ctx: int) -> list[Outcome]:
    """Every configuration through the engine and the three export paths."""
    out = [Outcome(i, s, p) for i, s, p in configs]
    run = dict(n_predict=n_predict, n_ctx=n_ctx, model_path=model_path)
    failure: list[BaseException] = []

    def programs_side():
        try:
            _complete(out, programs, run)
            _serve(out, programs, folder, run)
        except BaseException as err:  # noqa: BLE001 - re-raised in the caller's thread below
            failure.append(err)

    worker = threading.Thread(target=programs_side, name="llama.cpp programs", daemon=True)
    worker.start()
    run_engine(out, model, n_predict, n_ctx)
    _kwargs(out, run)
    worker.join()
    if failure:
        raise failure[0]
    return out


def run_engine(out: list[Outcome], model, n_predict: int, n_ctx: int) -> None:
    """Each outcome's engine text and tokens (one workspace per prompt)."""
    from app.engine.face.options import LaneConfig, RunOptions
    from app.engine.run.generation import Generation
    from app.engine.run.workspace import Workspace

    options = RunOptions(max_tokens=n_predict, n_ctx=n_ctx, n_threads=int(THREADS))
    for prompt in dict.fromkeys(o.prompt for o in out):
        workspace = Workspace(model, 1, options)
        try:
            for o in (o for o in out if o.prompt == prompt):
                (result,) = Generation(model, prompt, [LaneConfig(o.settings, "lane 0")], options,
                                       workspace=workspace).run()
                o.engine, o.engine_tokens = result.text, result.tokens
        finally:
            workspace.close()


def _complete(out: list[Outcome], programs: Path, run: dict) -> None:
    for o in out:
        e = export_run(o.settings, prompt=o.prompt, prompt_mode="inline", **run)
        if e.target != "stock llama.cpp":
            o.errors["completion"] = f"exported for {e.target}: {e.text}"
            continue
        done = run_completion(programs, [*e.args[1:], *RUNTIME_ARGS])
        if done.returncode == 0:
            o.completion = done.generated
        else:
            o.errors["completion"] = done.log[-1500:]


def _serve(out: list[Outcome], programs: Path, folder: Path, run: dict) -> None:
    groups: dict[tuple, list] = {}
    for o in out:
        r = server_request(o.settings, prompt=o.prompt, **run)
        groups.setdefault(r.launch_args, []).append((o, r))
    for n, (launch, items) in enumerate(groups.items()):
        with Server(programs, [*launch, *SERVER_RUNTIME_ARGS], folder / f"server-{n}.log") as server:
            for o, r in items:
                answer = server.post(r.endpoint, r.body)
                if "content" in answer:
                    o.server = answer["content"]
                else:
                    o.errors["server"] = str(answer)[:500]


def _kwargs(out: list[Outcome], run: dict) -> None:
    for o in out:
        e = llama_kwargs(o.settings, prompt=o.prompt, **run)
        if not e.gaps:
            o.kwargs = kwargs_text(e)


def kwargs_text(e) -> str:
    """The text of a :class:`~app.core.llamacpp.LlamaExport` run in llama-cpp-python (one thread, CPU)."""
    import llama_cpp

    llm = llama_cpp.Llama(**dict(e.init_kwargs, n_threads=int(THREADS), n_threads_batch=int(THREADS), n_gpu_layers=0))
    try:
        return getattr(llm, e.method)(**e.call_kwargs)["choices"][0]["text"]
    finally:
        llm.close()


def first_difference(model, tokens, other: str) -> int:
    """The index of the first engine token whose text ``other`` does not continue (``len(tokens)``: none)."""
    text = b""
    want = other.encode("utf-8", "surrogatepass")
    for n, token in enumerate(tokens):
        text += model.vocab.piece(token)
        if not want.startswith(text):
            return n
    return len(tokens)


def differences(outcomes: list[Outcome], path: str, model) -> list[str]:
    """One paragraph per configuration whose ``path`` text differs from the engine's."""
    bad = []
    for o in outcomes:
        text = getattr(o, path)
        if text is not None and text != o.engine:
            bad.append(f"config {o.index} (from token {first_difference(model, o.engine_tokens, text)}): "
                       f"{o.settings!r}\n  prompt {o.prompt!r}\n  ours   {o.engine!r}\n  theirs {text!r}")
    return bad


def counts(outcomes: list[Outcome], model) -> dict[str, tuple[int, int, int]]:
    """path -> (agree, differ, not compared)."""
    out = {}
    for path in PATHS:
        compared = [o for o in outcomes if getattr(o, path) is not None]
        differ = len(differences(compared, path, model))
        out[path] = (len(compared) - differ, differ, len(outcomes) - len(compared))
    return out
