"""A panel's plot item: pyqtgraph's PlotItem, its "Plot Options" made only when something asks for them.

pyqtgraph's PlotItem builds its right-click "Plot Options" (a form of thirty widgets from a Qt Designer
template, a menu of six submenus, a WidgetGroup over the form, twenty-three signal connections) in its
constructor, for every plot, menu enabled or not, and a window makes eight: without them a window's
making went from 70 to 55 ms (``python -m bench.window_build_bench``, docs/benchmarks.md).  Our panels
disable the menu: the options are read only when an item that follows them is added (a PlotDataItem,
which no panel uses) or pyqtgraph's state is saved.  So this item's constructor is PlotItem's
(pyqtgraph 0.14.0, pinned in pyproject.toml) without that part, and ``ctrl``, ``ctrlMenu`` and
``stateGroup`` make the options, as pyqtgraph would have, the first time one of them is read.
tests/ui/test_panel_plot_item.py holds it to PlotItem's own attributes and connections, so an upgrade
that adds one fails there.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import pyqtgraph as pg
from pyqtgraph import functions as fn
from pyqtgraph import icons
from pyqtgraph.graphicsItems.ButtonItem import ButtonItem
from pyqtgraph.graphicsItems.GraphicsWidget import GraphicsWidget
from pyqtgraph.graphicsItems.LabelItem import LabelItem
from pyqtgraph.graphicsItems.PlotItem import plotConfigTemplate_generic as ui_template
from pyqtgraph.WidgetGroup import WidgetGroup
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QGraphicsGridLayout, QGraphicsWidget, QMenu, QSizePolicy, QWidget, QWidgetAction

translate = QCoreApplication.translate


@dataclass
class PlotOptions:
    """What PlotItem's constructor makes for its "Plot Options": the form, its menu, their state."""

    form: object  # pyqtgraph's Ui_Form: the checks, sliders and spins PlotItem's methods read
    menu: QMenu
    state: WidgetGroup | None


class PanelPlotItem(pg.PlotItem):
    """PlotItem with its options made on first use; its bounding rectangle and shape are Qt's own.

    Qt asks a graphics item's bounding rectangle (and a clipping parent's shape) many times a paint;
    for a Python subclass each question is a call into Python (pyqtgraph's ``GraphicsWidget`` answers
    ``mapRectFromParent(geometry())``: the same rectangle as Qt's ``QGraphicsWidget.rect()``, for a
    widget that is not transformed).  Handing the C++ methods back tells PySide that nothing
    overrides them, and Qt answers without Python."""

    boundingRect = QGraphicsWidget.boundingRect
    shape = QGraphicsWidget.shape

    _options: PlotOptions | None = None
    _closed = False

    def __init__(self, axis_items: dict, view_box: pg.ViewBox):
        """PlotItem's constructor for ``axisItems=axis_items, viewBox=view_box, enableMenu=False``,
        without labels, a title or data, and without the options (:meth:`_made_options`)."""
        GraphicsWidget.__init__(self)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.autoBtn = ButtonItem(icons.getGraphPixmap("auto"), 14, self)
        self.autoBtn.mode = "auto"
        self.autoBtn.clicked.connect(self.autoBtnClicked)
        self.buttonsHidden = False
        self.mouseHovering = False
        self.layout = QGraphicsGridLayout()
        self.layout.setContentsMargins(1, 1, 1, 1)
        self.setLayout(self.layout)
        self.layout.setHorizontalSpacing(0)
        self.layout.setVerticalSpacing(0)
        self.vb = view_box
        self.vb.sigStateChanged.connect(self.viewStateChanged)
        self.setMenuEnabled(False, None)
        self.vb.sigRangeChanged.connect(self.sigRangeChanged)
        self.vb.sigXRangeChanged.connect(self.sigXRangeChanged)
        self.vb.sigYRangeChanged.connect(self.sigYRangeChanged)
        self.vb.sigRangeChangedManually.connect(self.sigRangeChangedManually)
        self.layout.addItem(self.vb, 2, 1)
        self.alpha = 1.0
        self.autoAlpha = True
        self.spectrumMode = False
        self.legend = None
        self.axes = {}
        self.setAxisItems(axis_items)
        self.titleLabel = LabelItem("", size="11pt", parent=self)
        self.layout.addItem(self.titleLabel, 0, 1)
        self.setTitle(None)
        for i in range(4):
            self.layout.setRowPreferredHeight(i, 0)
            self.layout.setRowMinimumHeight(i, 0)
            self.layout.setRowSpacing(i, 0)
            self.layout.setRowStretchFactor(i, 1)
        for i in range(3):
            self.layout.setColumnPreferredWidth(i, 0)
            self.layout.setColumnMinimumWidth(i, 0)
            self.layout.setColumnSpacing(i, 0)
            self.layout.setColumnStretchFactor(i, 1)
        self.layout.setRowStretchFactor(2, 100)
        self.layout.setColumnStretchFactor(1, 100)
        self.items = []
        self.curves = []
        self.itemMeta = weakref.WeakKeyDictionary()
        self.dataItems = []
        self.paramList = {}
        self.avgCurves = {}
        self.avgPen = fn.mkPen((0, 200, 0))
        self.avgShadowPen = fn.mkPen((0, 0, 0), width=4)
        self.fileDialog = None

    # -- the options, made when first read -------------------------------------------------

    @property
    def ctrl(self):
        return self._made_options().form

    @property
    def stateGroup(self) -> WidgetGroup | None:
        return self._made_options().state

    @property
    def ctrlMenu(self) -> QMenu | None:
        return None if self._closed else self._made_options().menu

    @ctrlMenu.setter
    def ctrlMenu(self, menu) -> None:
        """PlotItem's ``close`` sets None: it is shut down."""
        self._closed = menu is None

    def close(self) -> None:
        if self._options is None:  # never made: PlotItem's close needs only a menu to let go of
            self._options = PlotOptions(form=None, menu=QMenu(), state=None)
        super().close()

    def _made_options(self) -> PlotOptions:
        """The options, made as PlotItem's constructor makes them (pyqtgraph 0.14.0)."""
        if self._options is not None:
            return self._options
        w = QWidget()
        c = ui_template.Ui_Form()
        c.setupUi(w)
        menu_items = [
            (translate("PlotItem", "Transforms"), c.transformGroup),
            (translate("PlotItem", "Downsample"), c.decimateGroup),
            (translate("PlotItem", "Average"), c.averageGroup),
            (translate("PlotItem", "Alpha"), c.alphaGroup),
            (translate("PlotItem", "Grid"), c.gridGroup),
            (translate("PlotItem", "Points"), c.pointsGroup),
        ]
        menu = QMenu(translate("PlotItem", "Plot Options"))
        for name, grp in menu_items:
            sm = menu.addMenu(name)
            act = QWidgetAction(self)
            act.setDefaultWidget(grp)
            sm.addAction(act)
        state = WidgetGroup()
        for _, grp in menu_items:
            state.autoAdd(grp)
        self._options = PlotOptions(form=c, menu=menu, state=state)
        c.alphaGroup.toggled.connect(self.updateAlpha)
        c.alphaSlider.valueChanged.connect(self.updateAlpha)
        c.autoAlphaCheck.toggled.connect(self.updateAlpha)
        c.xGridCheck.toggled.connect(self.updateGrid)
        c.yGridCheck.toggled.connect(self.updateGrid)
        c.gridAlphaSlider.valueChanged.connect(self.updateGrid)
        c.fftCheck.toggled.connect(self.updateSpectrumMode)
        c.subtractMeanCheck.toggled.connect(self.updateSubtractMeanMode)
        c.logXCheck.toggled.connect(self.updateLogMode)
        c.logYCheck.toggled.connect(self.updateLogMode)
        c.derivativeCheck.toggled.connect(self.updateDerivativeMode)
        c.phasemapCheck.toggled.connect(self.updatePhasemapMode)
        c.downsampleSpin.valueChanged.connect(self.updateDownsampling)
        c.downsampleCheck.toggled.connect(self.updateDownsampling)
        c.autoDownsampleCheck.toggled.connect(self.updateDownsampling)
        c.subsampleRadio.toggled.connect(self.updateDownsampling)
        c.meanRadio.toggled.connect(self.updateDownsampling)
        c.clipToViewCheck.toggled.connect(self.updateDownsampling)
        c.avgParamList.itemClicked.connect(self.avgParamListClicked)
        c.averageGroup.toggled.connect(self.avgToggled)
        c.maxTracesCheck.toggled.connect(self._handle_max_traces_toggle)
        c.forgetTracesCheck.toggled.connect(self.updateDecimation)
        c.maxTracesSpin.valueChanged.connect(self.updateDecimation)
        return self._options
