"""Build llama-cpp-python once per backend and flags, cache the wheel, install it into a venv.

Used by the Makefile (``make run GPU=cuda`` ...); run it with any Python >= 3.10,
standard library only (a fresh venv has nothing else yet):

    python packaging/llama_wheel.py key     --venv .venv [--gpu cuda]   # prints the build key
    python packaging/llama_wheel.py ensure  --venv .venv [--gpu cuda]   # no-op when up to date
    python packaging/llama_wheel.py ensure  --venv .venv --dry-run      # says what it would do

Why: pip's wheel cache does not key on ``CMAKE_ARGS``, so a CPU wheel it built
once would silently be reused for a CUDA request.  Here every build has a key,
``<backend>-<hash>``, hashing the exact CMake flags, the llama-cpp-python
version, the Python tag and the platform; its wheel is kept in
``<cache>/wheels/<key>/`` (``~/.cache/scatter-playground`` on Linux, or
``$SCATTER_PLAYGROUND_CACHE``), so a second venv on the machine installs it in
seconds.  The venv records the key it holds in ``.venv/.llama-build.json``; a
different key (another backend, other flags, a new version) reinstalls.

The flags: always ``-DLLAVA_BUILD=OFF`` (the app never uses the multimodal
library) and ``-DGGML_RPC=ON``; the backend's flag (``-DGGML_CUDA=on``,
``-DGGML_METAL=on``, ``-DGGML_VULKAN=on``); on x86-64 ``-DGGML_NATIVE=OFF``
unless ``NATIVE=1`` (a portable AVX2 build: it runs on any x86-64 CPU from the
last ten years, can be bundled for other machines, and avoids ``-march=native``
turning on AMX, which some virtual machines advertise but trap); then the
user's own ``CMAKE_ARGS``, which come last and so win.  The build uses every
core (``CMAKE_BUILD_PARALLEL_LEVEL``, unless set).

Every failure exits non-zero with a one-line reason: nothing is hidden.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "llama-cpp-python"
BASE_FLAGS = ["-DLLAVA_BUILD=OFF", "-DGGML_RPC=ON"]
BACKEND_FLAGS = {"cpu": [], "cuda": ["-DGGML_CUDA=on"], "metal": ["-DGGML_METAL=on"], "vulkan": ["-DGGML_VULKAN=on"]}
#: the library each backend must have installed (llama_cpp/lib/*<name>*)
BACKEND_LIBS = {"cpu": "ggml-cpu", "cuda": "ggml-cuda", "metal": "ggml-metal", "vulkan": "ggml-vulkan"}
RECORD = ".llama-build.json"


class Fail(Exception):
    pass


def pinned_version() -> str:
    """llama-cpp-python's version as pinned in pyproject.toml (``==X.Y.Z``)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    m = re.search(r'"llama-cpp-python\s*==\s*([0-9][^"\s;]*)"', text)
    if not m:
        raise Fail("pyproject.toml does not pin llama-cpp-python (expected \"llama-cpp-python==X.Y.Z\")")
    return m.group(1)


def cache_root() -> Path:
    """The same folder as platformdirs.user_cache_dir("scatter-playground") (app/engine/vocab_cache.py)."""
    if os.environ.get("SCATTER_PLAYGROUND_CACHE"):
        return Path(os.environ["SCATTER_PLAYGROUND_CACHE"])
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "scatter-playground"
    if os.name == "nt":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "scatter-playground" / "Cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "scatter-playground"


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def read_record(venv: Path) -> dict:
    try:
        return json.loads((venv / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _backend_in(flags: list[str]) -> str | None:
    """The backend a list of CMake flags turns on, if any."""
    found = None
    for flag in flags:
        for name in ("cuda", "metal", "vulkan"):
            m = re.fullmatch(rf"-DGGML_{name.upper()}(?::BOOL)?=(\S+)", flag, flags=re.I)
            if m:
                found = name if m.group(1).lower() in ("on", "1", "true", "yes") else (None if found == name else found)
    return found


def resolve(gpu: str, venv: Path, native: str, env_args: str, py_tag: str) -> dict:
    """The build a request means: backend, flags, key, wheel folder."""
    user_flags = shlex.split(env_args or "")
    gpu = (gpu or "").strip().lower()
    if gpu and gpu not in BACKEND_FLAGS:
        raise Fail(f"GPU={gpu}: expected one of {', '.join(BACKEND_FLAGS)}")
    user_backend = _backend_in(user_flags)
    if not gpu:
        # Not asked: what CMAKE_ARGS turns on, else what the venv has, else the platform's default.
        gpu = user_backend or read_record(venv).get("backend") or ("metal" if sys.platform == "darwin" else "cpu")
    elif user_backend and user_backend != gpu:
        raise Fail(f"GPU={gpu} but CMAKE_ARGS turns on {user_backend}: ask for one backend")
    flags = list(BASE_FLAGS)
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64") and native not in ("1", "on", "yes", "true"):
        flags.append("-DGGML_NATIVE=OFF")
    flags += BACKEND_FLAGS[gpu]
    flags += user_flags
    canon = []
    for f in flags:  # drop exact repeats (CMAKE_ARGS often repeats the base flags), keep the order
        if f not in canon:
            canon.append(f)
    version = pinned_version()
    ident = json.dumps({"flags": canon, "version": version, "python": py_tag,
                        "platform": f"{sys.platform}-{machine}"}, sort_keys=True)
    key = f"{gpu}-{hashlib.sha256(ident.encode()).hexdigest()[:12]}"
    return {"backend": gpu, "cmake_args": " ".join(canon), "version": version, "key": key,
            "python": py_tag, "wheel_dir": str(cache_root() / "wheels" / key)}


def py_tag_of(python: Path | str) -> str:
    out = subprocess.run([str(python), "-c", "import sys; print(f'cp{sys.version_info[0]}{sys.version_info[1]}')"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise Fail(f"{python} does not run: {out.stderr.strip()[-300:]}")
    return out.stdout.strip()


def run(cmd: list[str], env: dict | None = None, dry: bool = False) -> None:
    shown = " ".join(shlex.quote(str(c)) for c in cmd)
    print(f"+ {shown}", flush=True)
    if dry:
        return
    proc = subprocess.run([str(c) for c in cmd], env=env)
    if proc.returncode != 0:
        raise Fail(f"command failed (exit {proc.returncode}): {shown}")


def find_wheel(folder: Path, version: str) -> Path | None:
    """The folder's wheel (llama-cpp-python's are ``py3-none-<platform>``: ctypes, no CPython ABI;
    the folder's key already holds the Python version and the platform)."""
    wheels = sorted(folder.glob(f"llama_cpp_python-{version}-*.whl"))
    return wheels[-1] if wheels else None


def build(spec: dict, python: Path, dry: bool) -> Path:
    """pip wheel llama-cpp-python from source with the flags, into the wheel folder."""
    folder = Path(spec["wheel_dir"])
    env = dict(os.environ)
    env["CMAKE_ARGS"] = spec["cmake_args"]
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    env["FORCE_CMAKE"] = "1"
    print(f">>> Building {PACKAGE} {spec['version']} for {spec['backend']} "
          f"(CMAKE_ARGS={spec['cmake_args']}, {env['CMAKE_BUILD_PARALLEL_LEVEL']} parallel jobs).", flush=True)
    print(">>> This is the slow step (about 7 min on 2 cores); its wheel is kept in "
          f"{folder} for every later venv.", flush=True)
    if dry:
        run([python, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "--no-binary", PACKAGE,
             "-w", "<tmp>", f"{PACKAGE}=={spec['version']}"], dry=True)
        return folder / f"llama_cpp_python-{spec['version']}-py3-none-<platform>.whl"
    folder.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f".{spec['key']}-", dir=folder.parent) as tmp:
        # --no-cache-dir: pip must neither reuse a wheel it built with other flags nor keep this one.
        run([python, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "--no-binary", PACKAGE,
             "--progress-bar", "off", "-w", tmp, f"{PACKAGE}=={spec['version']}"], env=env)
        built = sorted(Path(tmp).glob("*.whl"))
        if len(built) != 1 or not built[0].name.startswith(f"llama_cpp_python-{spec['version']}-"):
            raise Fail(f"pip wheel made {[w.name for w in built]}, not one {PACKAGE} {spec['version']} wheel")
        folder.mkdir(exist_ok=True)
        (Path(tmp) / "build.json").write_text(json.dumps(
            {**spec, "built": time.strftime("%Y-%m-%d %H:%M:%S"), "build_s": round(time.monotonic() - t0)}, indent=1))
        os.replace(Path(tmp) / "build.json", folder / "build.json")
        os.replace(built[0], folder / built[0].name)  # last: a wheel in the folder is a complete one
    print(f">>> Built in {time.monotonic() - t0:.0f} s.", flush=True)
    return folder / built[0].name


def installed_libs(python: Path) -> list[str]:
    code = ("import importlib.util, os; s = importlib.util.find_spec('llama_cpp'); "
            "d = os.path.join(list(s.submodule_search_locations)[0], 'lib') if s else ''; "
            "print('\\n'.join(sorted(os.listdir(d))) if d and os.path.isdir(d) else '')")
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    return out.stdout.split()


def ensure(args) -> int:
    venv = Path(args.venv)
    python = venv_python(venv)
    if not python.exists():
        raise Fail(f"{python} does not exist: create the venv first (python3 -m venv {venv})")
    spec = resolve(args.gpu, venv, args.native, os.environ.get("CMAKE_ARGS", ""), py_tag_of(python))
    record = read_record(venv)
    if record.get("key") == spec["key"] and installed_libs(python):
        return 0  # up to date
    wheel = find_wheel(Path(spec["wheel_dir"]), spec["version"])
    if wheel is None:
        wheel = build(spec, python, args.dry_run)
    else:
        print(f">>> Using the cached {spec['backend']} build of {PACKAGE}: {wheel}", flush=True)
    if not args.dry_run:  # from here until the check passes, the venv's build is unknown
        (venv / RECORD).unlink(missing_ok=True)
    # Dependencies first, then the wheel itself over whatever build the venv had (same version:
    # without --force-reinstall pip would keep the old build).
    run([python, "-m", "pip", "install", "--progress-bar", "off", wheel], dry=args.dry_run)
    run([python, "-m", "pip", "install", "--progress-bar", "off", "--force-reinstall", "--no-deps", wheel],
        dry=args.dry_run)
    if args.dry_run:
        print(f">>> (dry run) would record {spec['key']} in {venv / RECORD}")
        return 0
    libs = installed_libs(python)
    for need in ("llama", BACKEND_LIBS[spec["backend"]], "ggml-rpc"):
        if not any(need in name for name in libs):
            raise Fail(f"the installed {PACKAGE} has no {need} library (found: {', '.join(libs) or 'nothing'}); "
                       f"the {spec['backend']} build did not take: see the build log above")
    (venv / RECORD).write_text(json.dumps({**spec, "wheel": str(wheel)}, indent=1), encoding="utf-8")
    print(f">>> {PACKAGE} {spec['version']} ({spec['backend']}, {spec['key']}) installed in {venv}.", flush=True)
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=["key", "ensure", "show"])
    p.add_argument("--venv", default=".venv")
    p.add_argument("--gpu", default=os.environ.get("GPU", ""), help="cpu, cuda, metal or vulkan (default: keep)")
    p.add_argument("--native", default=os.environ.get("NATIVE", ""), help="1: -march=native on x86-64")
    p.add_argument("--dry-run", action="store_true", help="print the commands instead of running them")
    args = p.parse_args(argv)
    try:
        if args.command == "ensure":
            return ensure(args)
        python = venv_python(Path(args.venv))
        spec = resolve(args.gpu, Path(args.venv), args.native, os.environ.get("CMAKE_ARGS", ""),
                       py_tag_of(python if python.exists() else sys.executable))
        print(spec["key"] if args.command == "key" else json.dumps(spec, indent=1))
        return 0
    except Fail as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
