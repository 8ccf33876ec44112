from .export_dialog import ExportDialog
from .fan_dialog import FanDialog
from .import_dialog import ImportDialog

__all__ = ["ExportDialog", "FanDialog", "ImportDialog"]
