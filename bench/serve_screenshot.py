"""The window while a chat request it serves streams (Run ▸ Serve), on the bundled model, saved as PNG.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python -m bench.serve_screenshot [OUT.png] [--size 1500x940]

The window serves on 127.0.0.1:8080 (any free port if that one is taken); an OpenAI client's streamed
``/v1/chat/completions`` request is sent from a thread, and the window is grabbed while the reply is
still streaming into the served lane; then Stop ends the request (its client gets its finish).  The
window's preferences and session come from a temporary folder, so a writer's own never show.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "serve-window.png"
REQUEST = {
    "messages": [{"role": "system", "content": "You are a novelist with a plain, vivid style."},
                 {"role": "user", "content": "Write the opening of a story about a lighthouse keeper who "
                                             "finds a letter from the future."}],
    "max_tokens": 400, "temperature": 0.7, "top_k": 0, "top_p": 1.0, "min_p": 0.05, "dry_multiplier": 0.8,
    "scatter_strength": 0.3, "seed": 7, "stream": True,
}


def _pump(app, until, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise SystemExit("serve screenshot: timed out")
        app.processEvents()
        time.sleep(0.01)


def _stream(url: str, got: dict) -> None:
    import httpx

    with httpx.stream("POST", url + "/v1/chat/completions", json=REQUEST, timeout=600) as r:
        for line in r.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                for choice in json.loads(line[6:]).get("choices", ()):
                    got["text"] = got.get("text", "") + (choice.get("delta", {}).get("content") or "")
                    got["finish"] = choice.get("finish_reason") or got.get("finish")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default=str(DOC))
    parser.add_argument("--size", default="1500x940", help="WxH")
    parser.add_argument("--tokens", type=int, default=60, help="grab once the reply has this many tokens")
    args = parser.parse_args(argv)
    os.environ["SCATTER_PLAYGROUND_CONFIG"] = tempfile.mkdtemp(prefix="scatter-serve-screenshot-")
    from PySide6.QtWidgets import QApplication

    from app.ui.controllers.serve import DEFAULT_HOST, DEFAULT_PORT, port_problem
    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.resize(*(int(v) for v in args.size.split("x")))
    window.show()
    _pump(app, lambda: window.state.model is not None)
    window.serve.port = 0 if port_problem(DEFAULT_HOST, DEFAULT_PORT) else DEFAULT_PORT
    window.serve.toggle.setChecked(True)
    _pump(app, lambda: window.state.serving.on or not window.serve.toggle.isChecked())
    if not window.state.serving.on:
        raise SystemExit(f"serve screenshot: {window.state.problem}")
    got: dict = {}
    client = threading.Thread(target=_stream, args=(window.state.serving.address, got), daemon=True)
    client.start()
    _pump(app, lambda: window.state.busy == "run" and len(window.state.lane().records) >= args.tokens)
    end = time.monotonic() + 0.3
    while time.monotonic() < end:  # the panels' next frame
        app.processEvents()
        time.sleep(0.01)
    window.grab().save(args.out)
    print(f"saved {args.out} ({len(window.state.lane().records)} tokens streamed so far)")
    window.actions.stop.trigger()
    _pump(app, lambda: not client.is_alive(), 60)  # the window's thread drives the engine: it keeps turning
    print(f"the client got {len(got.get('text', ''))} characters, finish_reason {got.get('finish')!r}")
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
