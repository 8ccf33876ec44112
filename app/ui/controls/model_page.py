"""The Model page: open a GGUF file, recent models, GPU layers, what is loaded."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QPushButton, QSpinBox, QWidget

from app.recent import RecentModels
from app.state import Change


class ModelPage(QWidget):
    openRequested = Signal()

    def __init__(self, state, playground, parent=None):
        super().__init__(parent)
        self.state = state
        self.playground = playground
        self.recent_models = RecentModels()
        form = QFormLayout(self)
        self.open_button = QPushButton("Open GGUF ...")
        self.open_button.clicked.connect(self.openRequested)
        self.recent = QComboBox()
        self.recent.setToolTip("Recently opened models")
        self.recent.activated.connect(lambda i: self.load(self.recent.itemData(i)))
        self.gpu_layers = QSpinBox()
        self.gpu_layers.setRange(-1, 999)
        self.gpu_layers.setSpecialValueText("all the build can")
        self.gpu_layers.setValue(-1)
        self.gpu_layers.setToolTip("<b>-ngl</b><br>Layers offloaded to the GPU; takes effect when a model is (re)loaded.")
        self.info = QLabel("no model")
        self.info.setWordWrap(True)
        form.addRow(self.open_button)
        form.addRow("Recent", self.recent)
        form.addRow("GPU layers", self.gpu_layers)
        form.addRow(self.info)
        self._unsubscribe = state.subscribe(self._on_change)
        self._fill_recent()

    def load(self, path: str | None) -> None:
        layers = self.gpu_layers.value()
        self.playground.runs.load_model(path, None if layers < 0 else layers)

    def _fill_recent(self) -> None:
        self.recent.clear()
        for path in self.recent_models.paths():
            self.recent.addItem(Path(path).name, path)

    def _on_change(self, change: Change) -> None:
        if change.what != "model" or self.state.model is None:
            return
        info = self.state.model
        self.recent_models.add(info.path)
        self._fill_recent()
        self.info.setText(f"{info.name}\n{info.path}\nvocabulary {info.n_vocab}, trained context {info.n_ctx_train}\n"
                          f"layers: {info.offload or info.gpu_layers}\nllama.cpp build: {info.backend or 'unknown'}")

    def close_bindings(self) -> None:
        self._unsubscribe()
