"""Loading a model on a background thread, with progress, for the window."""
from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from pathlib import Path

from .events import drain
from .model import LoadedModel, ModelLoadError, default_model_path


@dataclass(frozen=True)
class LoadProgress:
    fraction: float
    message: str = ""


@dataclass(frozen=True)
class LoadDone:
    model: LoadedModel


@dataclass(frozen=True)
class LoadFailed:
    path: str
    message: str


class ModelLoader:
    """Loads one model on a thread; poll :meth:`drain` for progress and the result."""

    def __init__(self, path: str | Path | None, gpu_layers: int | None = None):
        self.path = path
        self.gpu_layers = gpu_layers
        self.events: "queue.Queue[LoadProgress | LoadDone | LoadFailed]" = queue.Queue()
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, name="model-loader", daemon=True)

    def start(self) -> "ModelLoader":
        self._thread.start()
        return self

    def cancel(self) -> None:
        self._cancel.set()

    def join(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def drain(self, limit: int | None = None) -> list:
        """Everything produced since the last call (non-blocking)."""
        return drain(self.events, limit)

    def _run(self) -> None:
        path = self.path
        try:
            if path is None:
                self.events.put(LoadProgress(0.0, "Preparing the bundled model ..."))
                path = default_model_path()
            self.events.put(LoadProgress(0.0, f"Loading {Path(path).name} ..."))

            def progress(fraction: float) -> bool:
                self.events.put(LoadProgress(fraction))
                return not self._cancel.is_set()

            model = LoadedModel(path, gpu_layers=self.gpu_layers, progress=progress)
            model.vocab.token_strs()  # h3: token texts ready off the GUI thread (disk-cached, app/engine/vocab_cache.py)
            self.events.put(LoadDone(model))
        except ModelLoadError as exc:
            self.events.put(LoadFailed(str(path), str(exc)))
        except Exception as exc:  # any other failure still reaches the window as a message
            self.events.put(LoadFailed(str(path), f"{path}: {type(exc).__name__}: {exc}"))
