"""Presets: the built-in ones and the user's, in a file several windows may write at once."""
from .builtin import builtin_presets, default_prompt, find_builtin
from .preset import Preset, PresetFileError, PresetNotFound
from .store import PresetStore, default_path

__all__ = [
    "Preset", "PresetFileError", "PresetNotFound", "PresetStore", "builtin_presets", "default_path",
    "default_prompt", "find_builtin",
]
