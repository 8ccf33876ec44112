"""What the playground knows of llama.cpp's command line: its options, quoting, export and import."""
from .export import (
    MODEL_PLACEHOLDER, SCATTER_BUILD_NOTE, command_args, export_text, llama_cli_command, needs_scatter_build,
    scatter_ext_call,
)
from .importer import import_command
from .options import NON_SAMPLING_OPTIONS
from .shell import escape, process_escapes, quote, split_command

__all__ = [
    "MODEL_PLACEHOLDER", "NON_SAMPLING_OPTIONS", "SCATTER_BUILD_NOTE", "command_args", "escape", "export_text",
    "import_command", "llama_cli_command", "needs_scatter_build", "process_escapes", "quote", "scatter_ext_call",
    "split_command",
]
