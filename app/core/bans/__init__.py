"""Banned phrases seen from the records (Qt-free): what each ban did in a run, and slop proposed from samples."""
