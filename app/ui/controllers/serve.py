"""Run ▸ Serve: the window answers llama-server's, OpenAI's and KoboldCpp's APIs on its own engine.

The switch starts the server (``app/serve``) off the GUI thread: a starter thread builds it over the
window's engine door (:class:`app.actions.serving.EngineDoor`) and starts uvicorn in a thread of its own;
what the server's threads ask of the window comes back through one queued signal (:meth:`_post`), so
Qt objects and the state are only touched here, on the GUI thread.  The status bar shows the address and
the request count while serving (its tooltip: the newest request's per-field report); a port already
taken, or no model, is one line in the status bar.  Run ▸ "Requests use this lane's settings" makes the
edited lane the override lane.  How a request becomes a run of the served lane, and why a request waits
for the window's own work, is in :mod:`app.actions.serving`.
"""
from __future__ import annotations

import socket
import threading
import time

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QInputDialog, QLabel

from app.actions.serving import ServeActions
from app.core.changes import Change, Changed
from app.serve.server import ServerThread, check_origin, make_served

#: Where the window listens: this machine only, on llama-server's (and the ``serve`` command's) port.
DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8080
#: How long a closing window waits for a server still starting (it reads the vocabulary first).
START_WAIT_S = 15.0


def port_problem(host: str, port: int) -> str:
    """One line when ``host:port`` cannot be listened on ("" when it can; port 0 takes any free one)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: a closed server's port is free
        try:
            probe.bind((host, port))
        except OSError as exc:
            taken = "is taken (another server is listening there)" if exc.errno in (98, 48, 10048) else f"failed: {exc.strerror}"
            return f"Serve: port {port} on {host} {taken}; Run \u25b8 Serve port \u2026 picks another"
    return ""


class ServeController(QObject):
    _posted = Signal(object)

    def __init__(self, window, state, playground):
        super().__init__(window)
        self.window, self.state, self.playground = window, state, playground
        self._posted.connect(self._run_posted, Qt.ConnectionType.QueuedConnection)
        self.actions = ServeActions(state, playground.engine, playground.runs, playground.history, self._posted.emit)
        playground.listen(self.actions.handlers)
        self.host, self.port = DEFAULT_HOST, DEFAULT_PORT
        self.cors_origin: str | None = None  # one browser page allowed to call (Kobold Lite, mikupad)
        self.server: ServerThread | None = None
        self._starter: threading.Thread | None = None
        self._closing = False
        self.toggle = QAction("Serve", window)
        self.toggle.setCheckable(True)
        self.toggle.setToolTip("Answer llama-server's, OpenAI's and KoboldCpp's APIs on this window's model: "
                               "each request runs in a lane here")
        self.toggle.toggled.connect(self._toggled)
        self.port_action = QAction("Serve port \u2026", window)
        self.port_action.triggered.connect(lambda _checked=False: self.ask_port())
        self.origin_action = QAction("Serve a browser page \u2026", window)
        self.origin_action.setToolTip("Let one browser page call the server (CORS): Kobold Lite, or mikupad opened "
                                      "from a file (null)")
        self.origin_action.triggered.connect(lambda _checked=False: self.ask_origin())
        self.override = QAction("Requests use this lane's settings", window)
        self.override.setCheckable(True)
        self.override.setToolTip("The edited lane's settings replace every served request's sampler fields "
                                 "(a slider moved applies from the request's next token)")
        self.override.toggled.connect(self._override_toggled)
        self.label = QLabel("")
        self.label.hide()
        window.statusBar().addPermanentWidget(self.label)
        self._unsubscribe = state.subscribe(self._on_change)

    def fill_menu(self, menu) -> None:
        menu.addSeparator()
        for action in (self.toggle, self.port_action, self.origin_action, self.override):
            menu.addAction(action)

    # -- the switch ---------------------------------------------------------------------------------

    def _toggled(self, on: bool) -> None:
        if on and self.server is None and self._starter is None:
            self.start()
        elif not on:
            self.stop()

    def start(self, host: str | None = None, port: int | None = None) -> None:
        """Start serving (off this thread); the state says when it serves, or the status bar why not."""
        self.host, self.port = host or self.host, self.port if port is None else port
        if self.state.model is None:
            self._failed("Serve: no model is loaded yet")
            return
        self.state.serving.set_starting()
        chat_template, options = self.state.chat.chat_template, self.state.run_settings
        self._starter = threading.Thread(target=self._start_off_thread, name="serve-start", daemon=True,
                                         args=(self.state.model, chat_template, options, self.host, self.port,
                                               self.cors_origin))
        self._starter.start()

    def _start_off_thread(self, info, chat_template, options, host: str, port: int, cors_origin: str | None) -> None:
        problem = port_problem(host, port)
        if problem:
            self._post(lambda: self._failed(problem))
            return
        door, served = self.actions.door, None
        try:
            served = make_served(door, door.wake, info, chat_template, options, hooks=self.actions,
                                 cors_origin=cors_origin)
            self._post(lambda: setattr(self.actions, "runner", served.runner))
            server = ServerThread(served, host, port).start()
        except Exception as exc:  # one line, never a traceback
            if served is not None:
                served.runner.close()
            line = f"Serve: could not start ({exc})"
            self._post(lambda: self._failed(line))
            return
        self._post(lambda: self._started(server))

    def _started(self, server: ServerThread) -> None:
        self._starter = None
        self.server = server
        if self._closing or not self.toggle.isChecked():  # switched off (or closed) while it started
            self.stop()
            return
        self.actions.runner = server.served.runner
        self.state.serving.set_address(server.url)

    def _failed(self, line: str) -> None:
        self._starter = None
        self.state.serving.set_address("")
        self.state.report(line)
        self.toggle.blockSignals(True)
        self.toggle.setChecked(False)
        self.toggle.blockSignals(False)

    def stop(self) -> None:
        """Stop serving: the request running ends (its client gets its finish), then the threads end."""
        server, self.server = self.server, None
        if server is None:
            return  # not started yet: _started stops it
        self.actions.stopped()
        server.server.should_exit = True
        server.served.runner.close()  # a stream still open gets its end, so uvicorn closes at once
        server.thread.join(10)
        self.state.serving.set_address("")
        if self.toggle.isChecked():
            self.toggle.blockSignals(True)
            self.toggle.setChecked(False)
            self.toggle.blockSignals(False)

    def ask_port(self) -> None:
        port, ok = QInputDialog.getInt(self.window, "Serve", f"Port to listen on ({self.host}):", self.port, 1, 65535)
        if ok and port != self.port:
            self.port = port
            self._restart()

    def ask_origin(self) -> None:
        origin, ok = QInputDialog.getText(
            self.window, "Serve", "The one browser page that may call the server (empty: none):\n"
            "https://lite.koboldai.net for Kobold Lite, null for mikupad.html opened from a file",
            text=self.cors_origin or "")
        if ok:
            self.set_origin(origin.strip() or None)

    def set_origin(self, origin: str | None) -> bool:
        """Let ``origin`` call the server (None: no page); a bad one is one line and changes nothing."""
        try:
            check_origin(origin)
        except ValueError as exc:
            self.state.report(f"Serve: {str(exc).removeprefix('--cors-origin: ')}")
            return False
        if origin != self.cors_origin:
            self.cors_origin = origin
            self._restart()
        return True

    def _restart(self) -> None:
        """Serving: serve again with the new port or page."""
        if self.server is not None:
            self.stop()
            self.toggle.setChecked(True)

    # -- the override lane --------------------------------------------------------------------------------

    def _override_toggled(self, on: bool) -> None:
        self.actions.set_override(self.state.current_lane if on else None)

    # -- threads -> this one -------------------------------------------------------------------------------

    def _post(self, fn) -> None:
        self._posted.emit(fn)

    def _run_posted(self, fn) -> None:
        fn()

    def _on_change(self, change: Change) -> None:
        if change.what in (Changed.SERVING, Changed.LANES, Changed.CURRENT_LANE):
            self._show()
        elif change.what == Changed.MODEL:
            self._model_changed()

    def _model_changed(self) -> None:
        """Another model loaded: the server described the old one (its vocabulary, template, name), so it
        stops and says so.  The model lost in a crash and loaded again is the same: serving goes on."""
        server, model = self.server, self.state.model
        if server is not None and model is not None and model.path != server.served.info.path:
            self.stop()
            line = "Serve stopped: the window loaded another model (switch Run \u25b8 Serve on to serve it)"
            self._post(lambda: self.state.report(line))  # after the load's own line (its note, often none)

    def _show(self) -> None:
        serving = self.state.serving
        if serving.starting:
            text = "Serve: starting \u2026"
        elif serving.on:
            count = f"{serving.requests} request" + ("" if serving.requests == 1 else "s")
            text = f"Serving {serving.address} \u00b7 {count}"
        else:
            text = ""
        override = serving.index_of(self.state.lanes, serving.override_lane)
        if text and override is not None:
            text += f" \u00b7 lane {override + 1} overrides"
        self.label.setText(text)
        page = f"Browser page allowed: {self.cors_origin}\n" if self.cors_origin else ""
        self.label.setToolTip(page + (serving.report or "No request yet"))
        self.label.setVisible(bool(text))
        self.override.blockSignals(True)
        self.override.setChecked(override is not None)
        self.override.blockSignals(False)
        self.override.setText(f"Requests use lane {override + 1}'s settings" if override is not None
                               else "Requests use this lane's settings")

    def close(self) -> None:
        """The window closes: serving stops, no thread of it is left."""
        self._closing = True
        starter = self._starter
        deadline = time.monotonic() + START_WAIT_S
        while starter is not None and starter.is_alive() and time.monotonic() < deadline:
            QCoreApplication.processEvents()  # the engine's answers the start waits for, then its posted start
            starter.join(0.02)
        QCoreApplication.processEvents()
        self.stop()
        self._unsubscribe()
        self.actions.close()
