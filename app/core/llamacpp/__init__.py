"""What the playground knows of llama.cpp's command line: its options, quoting, export and import."""
from .export import (
    CHAT_PROGRAM,
    INLINE_PROMPT_MAX,
    MODEL_PLACEHOLDER,
    PINNED_FIELDS,
    PLAIN_PROGRAM,
    PROMPT_MODES,
    SCATTER_BUILD_NOTE,
    SERVER_PROGRAM,
    command_args,
    export_text,
    llama_cli_command,
    needs_scatter_build,
    scatter_ext_call,
)
from .importer import ImportResult, import_command, import_command_with_notes
from .off_values import OFF_VALUES, off_note, strip_off_values
from .options import NON_SAMPLING_OPTIONS
from .prompt_file import PromptFile, PromptFileConflict, pick_path, prompt_file_text, system_file_text
from .python_api import LlamaExport, llama_gaps, llama_kwargs
from .run import RunSpec
from .run_export import RunExport, export_run, reproducing_flags
from .server import ServerExport, server_request
from .shell import escape, escape_for_file, process_escapes, split_command

__all__ = [
    "CHAT_PROGRAM", "INLINE_PROMPT_MAX", "MODEL_PLACEHOLDER", "NON_SAMPLING_OPTIONS", "OFF_VALUES", "PINNED_FIELDS",
    "PLAIN_PROGRAM", "PROMPT_MODES", "SCATTER_BUILD_NOTE", "SERVER_PROGRAM", "ImportResult", "LlamaExport",
    "PromptFile", "PromptFileConflict", "RunExport", "RunSpec", "ServerExport", "command_args", "escape", "escape_for_file",
    "export_run", "export_text", "import_command", "import_command_with_notes", "llama_cli_command", "llama_gaps", "llama_kwargs",
    "needs_scatter_build",
    "off_note", "pick_path", "process_escapes", "prompt_file_text", "reproducing_flags",
    "scatter_ext_call", "server_request", "split_command", "strip_off_values", "system_file_text",
]
