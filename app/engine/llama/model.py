"""Loading a GGUF model with llama.cpp: checks first, clear errors, nothing half-loaded."""
from __future__ import annotations

import contextlib
import ctypes
import os
import struct
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import llama_cpp as ll

from app.engine.face.endpoints import tensor_split_problem
from app.engine.face.model_info import ModelInfo, ModelLoadError
from app.engine.llama import backend, llama_log
from app.engine.llama.chat_template import choose_template, file_template, format_chat
from app.engine.llama.context import DecodeContext
from app.engine.llama.memory import check_context_fits
from app.engine.llama.metadata import meta_value
from app.engine.llama.model_file import FileWatch
from app.engine.llama.vocab import ModelVocabulary
from app.engine.rpc.link import RpcLink

GGUF_MAGIC = b"GGUF"
_backend_lock = threading.Lock()
_backend_ready = False


def default_model_path(progress: Callable[[str], None] | None = None) -> Path:
    """The bundled Gemma 3 270M, written into the user cache on first use (app/engine/bundled.py)."""
    from app.engine.llama.bundled import BundledModelError, ensure_bundled_model

    try:
        return ensure_bundled_model(message=progress)
    except BundledModelError as exc:
        raise ModelLoadError(str(exc)) from None


def supports_gpu_offload() -> bool:
    """Whether the build has a GPU device (llama_supports_gpu_offload() is also true for
    a CPU-only build with the RPC backend; see app/engine/backend.py)."""
    return backend.has_gpu()


def ensure_backend() -> None:
    global _backend_ready
    with _backend_lock:
        if not _backend_ready:
            llama_log.install()
            ll.llama_backend_init()
            _backend_ready = True


def check_gguf_file(path: str | os.PathLike) -> Path:
    """Raise ModelLoadError unless ``path`` is a readable file with a GGUF header."""
    p = Path(path).expanduser()
    if not p.exists():
        raise ModelLoadError(f"{p}: no such file")
    if not p.is_file():
        raise ModelLoadError(f"{p}: not a file")
    try:
        with p.open("rb") as f:
            head = f.read(24)
    except OSError as exc:
        raise ModelLoadError(f"{p}: cannot be read ({exc.strerror or exc})") from None
    if len(head) < 4 or head[:4] != GGUF_MAGIC:
        raise ModelLoadError(f"{p}: not a GGUF model file (it does not start with 'GGUF')")
    if len(head) < 24:
        raise ModelLoadError(f"{p}: truncated GGUF file (header incomplete)")
    version = struct.unpack("<I", head[4:8])[0]
    if version not in (2, 3):
        raise ModelLoadError(f"{p}: unsupported GGUF version {version}")
    return p


class LoadedModel:
    """A llama.cpp model and its vocabulary; ``close()`` frees it."""

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        gpu_layers: int | None = None,
        progress: Callable[[float], bool | None] | None = None,
        rpc: Sequence[str] = (),
        tensor_split: Sequence[float] = (),
        repack: bool = True,
    ):
        """Load ``path``.  ``progress(fraction)`` is called while loading; returning
        False from it cancels the load (ModelLoadError "cancelled").  ``rpc``: servers
        (host:port) whose devices take the offloaded layers (see rpc_link).  ``repack`` False
        keeps the CPU's weights as the file has them (llama-cli's ``--no-repack``), as an RPC
        server holds them; llama.cpp's repacked CPU kernels sum in another order.

        ``self.offload`` says how many layers really went to a GPU (or RPC server), and
        ``self.backend_message`` is a one-line note when ``gpu_layers`` asked for
        GPU layers that this build cannot give (else None)."""
        ensure_backend()
        p = check_gguf_file(path)
        requested_layers = gpu_layers
        if gpu_layers is None:  # all layers to a GPU, or to the RPC servers when there are some
            gpu_layers = 999 if supports_gpu_offload() or rpc else 0
        if gpu_layers < 0:
            raise ModelLoadError(f"{p}: GPU layers must be >= 0, got {gpu_layers}")
        problem = tensor_split_problem(tensor_split, rpc, len(backend.backend_info().gpus))
        if problem:
            raise ModelLoadError(problem)
        params = ll.llama_model_default_params()
        params.n_gpu_layers = int(gpu_layers)
        params.use_extra_bufts = bool(repack)
        self.rpc = RpcLink(rpc, tensor_split) if rpc or tensor_split else None
        if self.rpc is not None:
            self.rpc.prepare(params)
        cancelled = []
        link = self.rpc
        if progress is not None or link is not None:

            def _report(fraction, _user):
                if link is not None:
                    link.tick()  # the load's guard sees it move on
                try:
                    keep_going = progress is None or progress(float(fraction)) is not False
                except Exception:
                    keep_going = False
                if not keep_going:
                    cancelled.append(True)
                return keep_going

            callback = ll.llama_progress_callback(_report)
            params.progress_callback = callback
        with llama_log.capture_errors() as errors, _sizes(self.rpc), _guarded(self.rpc):
            handle = ll.llama_model_load_from_file(str(p).encode("utf-8"), params)
        if not handle:
            if self.rpc is not None:
                self.rpc.close()
            reason = "cancelled" if cancelled else errors.reason() or "llama.cpp could not load it"
            raise ModelLoadError(f"{p}: {reason}")
        self.handle = handle
        self.file_watch = FileWatch(p)  # llama.cpp maps the file: a change in place under a run is checked
        if self.rpc is not None:
            self.rpc.loaded()
        self.vocab = ModelVocabulary(ll.llama_model_get_vocab(handle), model_path=p)
        desc = ctypes.create_string_buffer(256)
        ll.llama_model_desc(handle, desc, len(desc))
        self.offload = backend.offload_of(handle, int(gpu_layers), self.rpc.device_names() if self.rpc else None)
        #: A note when GPU layers were asked for on a build that has no GPU backend (None otherwise).
        self.backend_message = None if self.rpc else backend.gpu_request_message(requested_layers)
        self.info = ModelInfo(
            path=str(p),
            name=meta_value(handle, "general.name") or p.stem,
            architecture=meta_value(handle, "general.architecture"),
            size_bytes=int(ll.llama_model_size(handle)),
            n_params=int(ll.llama_model_n_params(handle)),
            n_vocab=self.vocab.n_tokens,
            n_ctx_train=int(ll.llama_model_n_ctx_train(handle)),
            description=desc.value.decode("utf-8", "replace"),
            gpu_layers=self.offload.offloaded,
            backend=backend.backend_info().summary(),
            offload=self.offload.summary(),
            note=self.backend_message or "",
            servers=self.rpc.servers() if self.rpc is not None else (),
            local_gpus=len(backend.backend_info().gpus),
        )
        #: The chat template chat mode formats with (None: the model has none llama.cpp can apply).
        self.chat_template = choose_template(file_template(handle), self.info.architecture, self.vocab)

    def format_chat(self, request) -> str:
        """The prompt for a ChatRequest in the model's chat template (ChatTemplateError if it has none)."""
        return format_chat(self.chat_template, request, self.info.name)

    def check_servers(self) -> None:
        """Before each decode: RpcServerLost (naming it) if an RPC server has gone away, ModelFileChanged
        (naming it) if the model's file was cut short or rewritten in place (app.engine.llama.model_file)."""
        if self.rpc is not None:
            self.rpc.check()
        watch = getattr(self, "file_watch", None)
        if watch is not None:
            watch.check()

    def new_context(self, n_seq: int, options) -> DecodeContext:
        """A decoding context of ``n_seq`` sequences (``options``: a RunOptions).

        ContextTooLarge (a ValueError naming the size) when its KV cache would not fit in memory.
        """
        check_context_fits(self, options.n_ctx, n_seq)
        self.check_servers()
        with _sizes(self.rpc, new_context=True):
            ctx = DecodeContext(self, n_seq, options)
        if self.rpc is not None:
            self.rpc.context_made()
        return ctx

    def close(self) -> None:
        if getattr(self, "handle", None):
            if self.rpc is not None:
                self.rpc.sink_lost()
            ll.llama_model_free(self.handle)
            self.handle = None
            if self.rpc is not None:
                self.rpc.close()

    def __enter__(self) -> LoadedModel:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def tokenize_prompt(model: LoadedModel, prompt: str) -> list[int]:
    """Tokens of the prompt, BOS as the model's metadata says, special tokens parsed."""
    vocab = model.vocab
    return vocab.tokenize(prompt.encode("utf-8"), add_special=vocab.add_bos, parse_special=True)


def load_llama_model(request, progress) -> LoadedModel:
    """The engine's loader: the bundled model when ``request.path`` is None, else that file.

    ``progress(fraction, message="")`` is called as loading goes on; when it
    returns False the load stops with ModelLoadError "cancelled".
    """
    path = request.path
    if path is None:
        from app.engine.llama.bundled import BundledModelError, ensure_bundled_model

        progress(0.0, "Preparing the bundled model ...")
        try:  # a first run assembles it, with a fraction that moves
            path = ensure_bundled_model(progress=lambda f: progress(f, ""), message=lambda m: progress(0.0, m))
        except BundledModelError as exc:
            raise ModelLoadError(str(exc)) from None
    progress(0.0, f"Loading {Path(path).name} ...")

    def load() -> LoadedModel:
        return LoadedModel(path, gpu_layers=request.gpu_layers, progress=progress,
                           rpc=request.rpc, tensor_split=request.tensor_split)

    if request.path is not None:
        return load()
    from app.engine.llama.bundled_check import load_bundled

    return load_bundled(Path(path), load, ModelLoadError, lambda m: progress(0.0, m))


def _guarded(link):
    """A load onto RPC servers ends within their deadline when one stops answering (nothing without them)."""
    return link.loading() if link is not None else contextlib.nullcontext()


def _sizes(link, new_context: bool = False):
    """Collect the buffer sizes llama.cpp logs for the RPC servers (nothing without them)."""
    return link.sizes.capture(new_context) if link is not None else contextlib.nullcontext()
