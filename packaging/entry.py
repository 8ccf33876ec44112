"""The bundled app's entry point (PyInstaller): the same as the ``scatter-playground`` command."""
import multiprocessing
import sys

from app.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
