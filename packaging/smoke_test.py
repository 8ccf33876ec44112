"""Smoke-test a built one-folder app (make package): headless generation, then the window offscreen.

    python packaging/smoke_test.py dist/scatter-playground

The bundled model is assembled from the bundle's own parts into a temporary folder
(``SCATTER_PLAYGROUND_MODEL_DIR``), so the test proves the parts are in the bundle.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    folder = Path(argv[1] if len(argv) > 1 else "dist/scatter-playground").resolve()
    exe = folder / ("scatter-playground.exe" if os.name == "nt" else "scatter-playground")
    if not exe.is_file():
        print(f"smoke test: {exe} does not exist (build with make package)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="scatter-smoke-") as tmp:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        env.update(SCATTER_PLAYGROUND_MODEL_DIR=str(Path(tmp) / "model"), SCATTER_PLAYGROUND_CACHE=str(Path(tmp) / "cache"),
                   QT_QPA_PLATFORM=env.get("QT_QPA_PLATFORM", "offscreen"))
        checks = [
            ("generate -n 4 -p hi", [str(exe), "generate", "-n", "4", "-p", "hi", "-s", "1"], "4 tokens"),
            ("window --smoke-test", [str(exe), "--smoke-test"], "model ready"),
        ]
        for label, cmd, expect in checks:
            t0 = time.perf_counter()
            try:
                proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
            except subprocess.TimeoutExpired:
                print(f"smoke test: {label}: no exit after 300 s", file=sys.stderr)
                return 1
            took = time.perf_counter() - t0
            if proc.returncode != 0 or expect not in proc.stderr:
                print(f"smoke test: {label}: FAILED (exit {proc.returncode}, {took:.1f} s)\n--- stdout\n{proc.stdout[-2000:]}"
                      f"\n--- stderr\n{proc.stderr[-4000:]}", file=sys.stderr)
                return 1
            print(f"smoke test: {label}: ok ({took:.1f} s){': ' + proc.stdout.strip()[:60] if proc.stdout.strip() else ''}")
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    print(f"smoke test: {folder} passed ({size / 2**20:.0f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
