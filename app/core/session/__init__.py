"""Sessions: the prompt, the lanes (settings, seeds, presets, text trees, step records), the run
settings and any further parts, in one file; the last one kept and restored; the text exported.

``files`` saves and opens (all or nothing), ``container`` is the zip file,
``document`` the structure, ``records_codec`` and ``tree_codec`` the lanes'
records and text, ``parts`` the list to extend, ``autosave`` the last
session, ``export`` the text export.
"""
from .autosave import Autosave, autosave_path
from .document import FORMAT, VERSION, Session
from .errors import NewerSessionFile, SessionFileError
from .export import export_file, export_text
from .files import SUFFIX, open_session, read_session, save_session, session_bytes
from .parts import PARTS, SessionPart

__all__ = [
    "FORMAT", "PARTS", "SUFFIX", "VERSION", "Autosave", "NewerSessionFile", "Session", "SessionFileError",
    "SessionPart", "autosave_path", "export_file", "export_text", "open_session", "read_session", "save_session",
    "session_bytes",
]
