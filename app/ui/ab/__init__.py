"""The blind A/B view: a dialog (``ab_dialog``) over three pages, one class per file."""
from .ab_dialog import ABDialog

__all__ = ["ABDialog"]
