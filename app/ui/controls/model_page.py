"""The Model page: open a GGUF file, recent models, GPU layers, RPC servers, what is loaded.

Its fields are the state's :class:`app.core.state.ModelForm` (the page shows them and writes edits
back); parsing the servers and the split, and the recent models' file, are the run actions'."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QLineEdit, QPushButton, QSpinBox, QWidget

from app.core.changes import Change, Changed


class ModelPage(QWidget):
    openRequested = Signal()

    def __init__(self, state, playground, parent=None):
        super().__init__(parent)
        self.state = state
        self.playground = playground
        form = QFormLayout(self)
        self.open_button = QPushButton("Open GGUF ...")
        self.open_button.clicked.connect(self.openRequested)
        self.recent = QComboBox()
        self.recent.setToolTip("Recently opened models")
        self.recent.activated.connect(lambda i: self.load(self.recent.itemData(i)))
        self.gpu_layers = QSpinBox()
        self.gpu_layers.setRange(-1, 999)
        self.gpu_layers.setSpecialValueText("all the build can")
        self.gpu_layers.valueChanged.connect(lambda n: state.set_model_form(gpu_layers=n))
        self.gpu_layers.setToolTip("<b>-ngl</b><br>Layers offloaded to the GPU; takes effect when a model is (re)loaded.")
        self.rpc = QLineEdit()
        self.rpc.setPlaceholderText("host:port,host:port (none: this computer only)")
        self.rpc.textChanged.connect(lambda text: state.set_model_form(rpc=text))
        self.rpc.setToolTip("<b>--rpc</b><br>llama.cpp RPC servers that take the offloaded layers (start one with "
                            "<tt>scatter-playground rpc-server</tt>). Empty: run here. Takes effect on Load.")
        self.tensor_split = QLineEdit()
        self.tensor_split.setPlaceholderText("e.g. 3,1 (empty: by free memory)")
        self.tensor_split.textChanged.connect(lambda text: state.set_model_form(tensor_split=text))
        self.tensor_split.setToolTip("<b>--tensor-split</b><br>Share of the offloaded layers per device, in order.")
        self.reload_button = QPushButton("Load")
        self.reload_button.setToolTip("Load the model again with these settings (connect to the RPC servers, "
                                      "or run here when the field is empty)")
        self.reload_button.clicked.connect(lambda: self.load(state.model_form.path))
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
        self.show_form()

    @property
    def path(self) -> str | None:
        """The model the Load button loads again (the state's; None: the bundled one)."""
        return self.state.model_form.path

    def load(self, path: str | None) -> None:
        self.playground.runs.load_from_form(path)

    def show_form(self) -> None:
        """The fields as the state has them (without echoing them back)."""
        form = self.state.model_form
        for widget, show in ((self.gpu_layers, lambda: self.gpu_layers.setValue(form.gpu_layers)),
                             (self.rpc, lambda: self.rpc.text() != form.rpc and self.rpc.setText(form.rpc)),
                             (self.tensor_split, lambda: self.tensor_split.text() != form.tensor_split
                              and self.tensor_split.setText(form.tensor_split)), (self.recent, self._fill_recent)):
            widget.blockSignals(True)
            show()
            widget.blockSignals(False)

    def _fill_recent(self) -> None:
        paths = self.state.model_form.recent
        if [self.recent.itemData(i) for i in range(self.recent.count())] != list(paths):
            self.recent.clear()
            for path in paths:
                self.recent.addItem(Path(path).name, path)

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.MODEL_FORM:
            self.show_form()
        if change.what != Changed.MODEL or self.state.model is None:
            return
        info = self.state.model
        servers = "".join(f"\nRPC {s.label()}" for s in info.servers)
        self.info.setText(f"{info.name}\n{info.path}\nvocabulary {info.n_vocab}, trained context {info.n_ctx_train}\n"
                          f"layers: {info.offload or info.gpu_layers}\nllama.cpp build: {info.backend or 'unknown'}{servers}")

    def close_bindings(self) -> None:
        self._unsubscribe()
