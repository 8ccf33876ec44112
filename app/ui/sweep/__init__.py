"""The sweep window (``sweep_window.py``) and its parts: the form, one plot class per file, the matched table."""
