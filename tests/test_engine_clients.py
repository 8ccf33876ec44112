"""Every client of the engine speaks its face: commands in, events out.

The window, the playground, the actions, the core and the command line (and a server, once there is one)
import from ``app.engine`` only the face (``app.engine.face`` and its modules, plain data) and
``app.engine.process`` (the window's side of the engine's process).  The command line may also import:

- ``app.engine.engine``: it runs the engine in its own process (``app/cli/pump.py``), with no pipe between
  a decode and the text it prints, and its Ctrl-C seen on the main thread while the engine thread decodes;
  making that engine is all it imports the module for (commands and events still go through the face);
- ``app.engine.host``: what that process owns beside the engine (SIGBUS and ggml's abort as one line, the
  bundled model's path and check, the GPU count for ``-ts``), which the engine's own process gets from
  ``app.engine.serve`` instead.

``app.cli.rpc_server`` is no client: it is llama.cpp's RPC server for another machine's engine (no model,
no run, no engine), so it talks to ``app.engine.rpc`` directly.

Imports are read from the source with ``ast`` (module-level and inside functions alike), so an import
that only runs on some path counts too.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLIENTS = ("app/ui", "app/playground.py", "app/actions", "app/core", "app/cli", "app/serve", "app/serve.py")
FACE = ("app.engine.face", "app.engine.process")
CLI_ALSO = ("app.engine.engine", "app.engine.host")
NOT_CLIENTS = {"app/cli/rpc_server.py"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def engine_imports(source: str, module: str, is_package: bool = False) -> set[str]:
    """The ``app.engine`` modules that ``source`` (the text of ``module``) imports, relative imports resolved."""
    found = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # ``from app.engine import host`` imports the module app.engine.host
            names = [f"{base}.{alias.name}" if base in ("app", "app.engine", "app.engine.face") else base
                     for alias in node.names]
        else:
            continue
        found.update(n for n in names if n == "app.engine" or n.startswith("app.engine."))
    return found


def allowed(name: str, module: str) -> bool:
    prefixes = FACE + (CLI_ALSO if module.startswith("app.cli") else ())
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def client_files() -> list[Path]:
    files = []
    for place in CLIENTS:
        path = ROOT / place
        if path.is_dir():
            files += sorted(path.rglob("*.py"))
        elif path.is_file():
            files.append(path)
    return [f for f in files if str(f.relative_to(ROOT)) not in NOT_CLIENTS]


def test_every_client_imports_only_the_engines_face():
    files = client_files()
    assert len(files) > 100 and any("app/cli/generate.py" in str(f) for f in files)
    wrong = {}
    for path in files:
        module = module_name(path)
        names = engine_imports(path.read_text(encoding="utf-8"), module, path.name == "__init__.py")
        bad = sorted(n for n in names if not allowed(n, module))
        if bad:
            wrong[str(path.relative_to(ROOT))] = bad
    assert wrong == {}


@pytest.mark.parametrize("source, module, expected", [
    ("from app.engine.run.generation import Generation", "app.cli.generate", {"app.engine.run.generation"}),
    ("def f():\n    import app.engine.llama.model\n", "app.ui.x", {"app.engine.llama.model"}),
    ("from app.engine import host, engine", "app.core.x", {"app.engine.host", "app.engine.engine"}),
    ("from ..engine.rpc import endpoints", "app.actions.x", {"app.engine.rpc"}),
    ("from .face import commands", "app.engine.x", {"app.engine.face.commands"}),
])
def test_the_check_sees_every_spelling_of_an_import(source, module, expected):
    assert engine_imports(source, module) == expected


def test_the_command_line_alone_may_make_an_engine():
    assert allowed("app.engine.engine", "app.cli.generate") and not allowed("app.engine.engine", "app.actions.runs")
    assert not allowed("app.engine.rpc.endpoints", "app.cli.args") and allowed("app.engine.face.endpoints", "app.ui.x")
