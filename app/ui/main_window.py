"""The playground window: it composes the views and controllers and holds no truth of its own.

The state (:mod:`app.core.state`) holds every value, the playground
(:mod:`app.playground`) acts on it, the engine (in a process of its own) does
the model's work and the bridge brings its events back to this thread.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QFileDialog, QMainWindow, QPlainTextEdit, QStatusBar, QToolBar, QWidget

from app.core.changes import Change, Changed
from app.core.presets import PresetStore, default_prompt, find_builtin
from app.core.recent import RecentModels
from app.core.session import Autosave
from app.core.state import PlaygroundState
from app.engine.process import EngineProcess
from app.playground import Playground

from . import panels
from .chat_box import PromptArea
from .controllers.actions import ActionsController
from .controllers.desk import ChatTokensController
from .controllers.menus import fill_menu_bar
from .controllers.presets import PresetsController
from .controllers.reading import ReadingController
from .controllers.redraw import RedrawController
from .controllers.serve import ServeController
from .controllers.sessions import SessionsController
from .controllers.status import StatusController
from .controllers.view import ViewController
from .controls.settings_panel import SettingsPanel
from .engine_bridge import EngineBridge
from .focus_keys import tab_moves_focus
from .gui_gc import GuiGarbageCollection
from .lanes_view import LanesView
from .panel import Feed
from .window_layout import build_layout, opening_size

FIRST_PRESET = "creative-writing"


FIRST_SEED = 42


def on_screen(widget) -> bool:
    """Whether a widget shows some of itself: not hidden, not collapsed by a splitter, not wholly
    covered by the window's other widgets, its window not minimized."""
    if not (widget.isVisible() and widget.width() > 0 and widget.height() > 0):
        return False
    return not widget.window().isMinimized() and not widget.visibleRegion().isEmpty()


def first_state() -> PlaygroundState:
    """A new playground: the default prompt and one creative-writing lane on seed 42."""
    preset = find_builtin(FIRST_PRESET)
    return PlaygroundState(default_prompt(), preset.settings.replace(seed=FIRST_SEED), preset.name)


class MainWindow(QMainWindow):
    def __init__(self, *, engine=None, load_default: bool = True, state: PlaygroundState | None = None,
                 restore_session: bool = True):
        """``engine``: the engine to use, not started (default: llama.cpp in a process of its own; tests
        pass an in-process engine on the fake backend, or one given a loaded model).  The last session
        comes back unless a ``state`` is given or ``restore_session`` is False."""
        super().__init__()
        self.setWindowTitle("Scatter Playground")
        self.resize(*opening_size(self.screen()))
        self.gc = GuiGarbageCollection()
        self.state = state or first_state()
        self.bridge = EngineBridge(engine if engine is not None else EngineProcess(), parent=self)
        self.playground = Playground(self.state, self.bridge.engine, PresetStore(), RecentModels(), Autosave())
        adopted = getattr(engine, "model", None) is not None  # an in-process engine handed a loaded model
        if adopted:
            self.playground.runs.expect_adopted_model()
        self.bridge.start(self.playground)
        if not adopted and load_default:  # the engine loads while the widgets are built
            self.playground.runs.load_model(None)
        self.presets = PresetsController(self, self.state, self.playground)
        self._build()
        if restore_session and state is None:
            self.sessions.restore_last()

    # -- layout ----------------------------------------------------------------------

    def _build(self) -> None:
        state, playground = self.state, self.playground
        self.actions = ActionsController(self, state, playground, self.presets)
        bar = QToolBar("Run")
        bar.setMovable(False)
        self.addToolBar(bar)
        self.actions.fill_toolbar(bar)
        self.chat_tokens = ChatTokensController(self, state, playground)  # chat mode, special tokens
        self.chat_tokens.fill_toolbar(bar)
        fill_menu_bar(self.menuBar(), self, self.actions, self.presets)
        for action in self.chat_tokens.view_actions():
            self.view_menu.addAction(action)
        self.sessions = SessionsController(self, state, playground)
        self.controls = SettingsPanel(state, playground)
        self.controls.model_page.openRequested.connect(self._open_model_dialog)
        self.prompt = QPlainTextEdit(state.prompt)
        self.prompt.setMaximumHeight(90)
        self.prompt.setMinimumHeight(36)
        self.prompt.setPlaceholderText("Prompt")
        tab_moves_focus(self.prompt)  # Tab and Ctrl+Tab move the focus on instead of typing a tab
        self.prompt.textChanged.connect(lambda: state.set_prompt(self.prompt.toPlainText()))
        self.prompt_area = PromptArea(self.prompt, state, playground)  # the prompt, or chat's two fields
        self.lanes_view = LanesView(state, playground)
        self._build_panels()
        central, self.splitters = build_layout(self)
        self.setCentralWidget(central)
        self.setStatusBar(QStatusBar())
        self.status = StatusController(self.statusBar(), state)
        self.redraws = RedrawController(self, state)
        self.view = ViewController(self, state)  # theme, text size, splitter sizes (View menu)
        self.reading = ReadingController(self, state)  # F9: the reading layout; Ctrl+1..4: the edited lane
        self.serve = ServeController(self, state, self.playground)  # Run ▸ Serve
        self.serve.fill_menu(self.run_menu)
        bar.addSeparator()
        bar.addAction(self.reading.toggle)
        self._unsubscribe = state.subscribe(self._on_change)

    def _build_panels(self) -> None:
        """Every panel of the list (:data:`app.ui.panels.PANELS`), each also the window's attribute of its
        key (``window.funnel``)."""
        self.panel_specs = panels.PANELS
        self.panels: dict[str, QWidget] = {}
        for spec in self.panel_specs:
            self.panels[spec.key] = spec.make(self)
            setattr(self, spec.key, self.panels[spec.key])
        self._shown_steps: dict[str, object] = {}  # key of a panel of one step -> the record it shows

    # -- views -----------------------------------------------------------------------

    def _on_change(self, change: Change) -> None:
        if change.what == Changed.PROMPT and self.prompt.toPlainText() != self.state.prompt:
            self.prompt.setPlainText(self.state.prompt)

    def show_panels(self, *, live: bool = False) -> None:
        """Every panel on screen shows the edited lane's records and its selected step (a panel
        hidden, collapsed or covered is skipped, and drawn when it shows again).  In a live frame a
        panel of one step that shows the same step as in the last frame is left as it is."""
        records = self.state.lane().records
        rec = self.state.current_record()
        for spec in self.panel_specs:
            panel = self.panels[spec.key]
            if not on_screen(panel):
                continue
            if spec.feed is Feed.RUN:
                panel.show_run(records, rec, live=live, forks=self.state.radar.forks)
            elif not (live and self._shown_steps.get(spec.key) is rec):
                panel.show_record(rec)
                self._shown_steps[spec.key] = rec

    def branch_with(self, token: int) -> None:
        """The edited lane goes on from the shown step with ``token`` instead (a new branch)."""
        rec = self.state.current_record()
        if rec is not None:
            self.playground.runs.branch_from(self.state.current_lane, rec.step, token)

    def _open_model_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a GGUF model", str(Path.home()),
                                              "GGUF models (*.gguf);;All files (*)")
        if path:
            self.controls.model_page.load(path)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.WindowStateChange and not self.isMinimized() and hasattr(self, "redraws"):
            self.redraws.schedule(live=bool(self.state.busy))  # panels skipped while minimized catch up

    def closeEvent(self, event) -> None:
        self.serve.close()  # no request runs on, no server thread is left
        self.sessions.close()  # the last session, kept for the next window
        self.reading.leave()  # the workbench's sizes are the ones kept
        self.view.close()  # the splitters' sizes, for the next window
        for part in (self.redraws, self.actions, self.status, self.controls, self.chat_tokens, self.prompt_area,
                     self.lanes_view):
            part.close_bindings()
        self._unsubscribe()
        self.bridge.close()
        self.gc.close()
        super().closeEvent(event)
