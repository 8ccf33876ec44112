"""The Model page: open a GGUF file, recent models, GPU layers, RPC servers, what is loaded."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QWidget

from app.engine.rpc.endpoints import parse_endpoints, parse_tensor_split, tensor_split_problem
from app.recent import RecentModels
from app.state import Change


class ModelPage(QWidget):
    openRequested = Signal()

    def __init__(self, state, playground, parent=None):
        super().__init__(parent)
        self.state = state
        self.playground = playground
        self.recent_models = RecentModels()
        self.path: str | None = None  # the model loaded last (None: the bundled one)
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
        self.rpc = QLineEdit()
        self.rpc.setPlaceholderText("host:port,host:port (none: this computer only)")
        self.rpc.setToolTip("<b>--rpc</b><br>llama.cpp RPC servers that take the offloaded layers (start one with "
                            "<tt>scatter-playground rpc-server</tt>). Empty: run here. Takes effect on Load.")
        self.tensor_split = QLineEdit()
        self.tensor_split.setPlaceholderText("e.g. 3,1 (empty: by free memory)")
        self.tensor_split.setToolTip("<b>--tensor-split</b><br>Share of the offloaded layers per device, in order.")
        self.reload_button = QPushButton("Load")
        self.reload_button.setToolTip("Load the model again with these settings (connect to the RPC servers, "
                                      "or run here when the field is empty)")
        self.reload_button.clicked.connect(lambda: self.load(self.path))
        self.info = QLabel("no model")
        self.info.setWordWrap(True)
        form.addRow(self.open_button)
        form.addRow("Recent", self.recent)
        form.addRow("GPU layers", self.gpu_layers)
        form.addRow("RPC servers", self.rpc)
        form.addRow("Tensor split", self.tensor_split)
        form.addRow(self.reload_button)
        form.addRow(self.info)
        self._unsubscribe = state.subscribe(self._on_change)
        self._fill_recent()

    def load(self, path: str | None) -> None:
        layers = self.gpu_layers.value()
        try:
            rpc = parse_endpoints(self.rpc.text()) if self.rpc.text().strip() else ()
            split = parse_tensor_split(self.tensor_split.text()) if self.tensor_split.text().strip() else ()
        except ValueError as exc:
            self.state.report(str(exc))
            return
        known_gpus = self.state.model.local_gpus if self.state.model is not None else None
        problem = tensor_split_problem(split, rpc, known_gpus)  # before the load stops what runs
        if problem:
            self.state.report(problem)
            return
        self.path = path
        self.playground.runs.load_model(path, None if layers < 0 else layers, rpc, split)

    def _fill_recent(self) -> None:
        self.recent.clear()
        for path in self.recent_models.paths():
            self.recent.addItem(Path(path).name, path)

    def _on_change(self, change: Change) -> None:
        if change.what != "model" or self.state.model is None:
            return
        info = self.state.model
        self.path = info.path
        self.recent_models.add(info.path)
        self._fill_recent()
        servers = "".join(f"\nRPC {s.label()}" for s in info.servers)
        self.info.setText(f"{info.name}\n{info.path}\nvocabulary {info.n_vocab}, trained context {info.n_ctx_train}\n"
                          f"layers: {info.offload or info.gpu_layers}\nllama.cpp build: {info.backend or 'unknown'}{servers}")

    def close_bindings(self) -> None:
        self._unsubscribe()
