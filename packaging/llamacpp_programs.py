"""Build llama.cpp's own programs (llama-completion, llama-cli, llama-server) once per machine.

The suite holds our exports to the real programs (tests marked ``llamacpp_programs``), so they must be
built from exactly the llama.cpp our llama-cpp-python vendors, with exactly our wheel's GGML flags:

    python packaging/llamacpp_programs.py ensure   # builds once, later a no-op; prints the bin folder
    python packaging/llamacpp_programs.py path     # the bin folder (exit 1 when not built yet)

Beside ``bin`` it keeps ``source``: the few llama.cpp files the suite reads verbatim (SOURCE_FILES: the
samplers' defaults and parsing, which tests/sampler/data/llama.cpp excerpts and the tables must match).

Source: the llama-cpp-python sdist of the pinned version (``pip download --no-binary``), its
``vendor/llama.cpp``.  Flags: the wheel's (``llama_wheel.resolve``: the backend's flag,
``-DGGML_NATIVE=OFF``, ``-DGGML_RPC=ON``, the user's ``CMAKE_ARGS``), plus what makes the programs and
nothing else (no curl, tests or examples).  Static libraries, so each program is one self-contained
file (the numbers are the same code as the wheel's shared libraries).  Cached in
``<cache>/llamacpp-programs/<key>/bin`` beside the wheels; the key hashes the version, the flags and
the platform.  ``-j2`` unless ``CMAKE_BUILD_PARALLEL_LEVEL`` says otherwise (make test runs this on
small shared machines).  Every failure exits non-zero with a one-line reason.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import llama_wheel as lw  # noqa: E402

#: the programs; llama-cli is built where this llama.cpp version has it
PROGRAMS = ("llama-completion", "llama-cli", "llama-server")
REQUIRED = ("llama-completion", "llama-server")
#: llama.cpp's files the suite reads (kept in <key>/source; glob patterns inside vendor/llama.cpp)
SOURCE_FILES = ("common/common.h", "common/sampling.cpp", "common/arg.cpp", "src/llama-sampler.cpp",
                "include/llama.h", "tools/server/*.cpp", "common/json-schema-to-grammar.cpp",
                "tests/test-json-schema-to-grammar.cpp")
PROGRAM_FLAGS = ["-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_CURL=OFF", "-DLLAMA_BUILD_TESTS=OFF",
                 "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_TOOLS=ON", "-DLLAMA_BUILD_SERVER=ON",
                 "-DBUILD_SHARED_LIBS=OFF"]


def spec(venv: Path, gpu: str = "") -> dict:
    """What to build: the wheel's flags (the backend the venv holds), the version, the key, the folder."""
    wheel = lw.resolve(gpu, venv, os.environ.get("NATIVE", ""), os.environ.get("CMAKE_ARGS", ""), "any")
    ggml_flags = [f for f in wheel["cmake_args"].split() if f != "-DLLAVA_BUILD=OFF"]
    flags = PROGRAM_FLAGS + ggml_flags  # the wheel's flags last, so a user's CMAKE_ARGS still wins
    ident = json.dumps({"flags": flags, "version": wheel["version"], "programs": PROGRAMS,
                        "platform": f"{sys.platform}-{platform.machine().lower()}"}, sort_keys=True)
    key = f"{wheel['backend']}-{hashlib.sha256(ident.encode()).hexdigest()[:12]}"
    folder = lw.cache_root() / "llamacpp-programs" / key
    return {"version": wheel["version"], "flags": flags, "key": key, "dir": str(folder),
            "bin": str(folder / "bin"), "source": str(folder / "source")}


def has_sources(s: dict) -> bool:
    return all(any(Path(s["source"]).glob(pattern)) for pattern in SOURCE_FILES)


def keep_sources(src: Path, s: dict) -> None:
    """Copy SOURCE_FILES from an unpacked vendor/llama.cpp into <key>/source (renamed in whole)."""
    target = Path(s["source"])
    with tempfile.TemporaryDirectory(prefix=".source-", dir=target.parent) as tmp:
        staged = Path(tmp) / "source"
        for pattern in SOURCE_FILES:
            found = sorted(src.glob(pattern))
            if not found:
                raise lw.Fail(f"llama.cpp's sources have no {pattern} ({src})")
            for path in found:
                name = path.relative_to(src)
                (staged / name).parent.mkdir(parents=True, exist_ok=True)
                (staged / name).write_bytes(path.read_bytes())
        if target.exists():
            os.rename(target, Path(tmp) / "stale")
        os.replace(staged, target)


def ensure_sources(s: dict) -> None:
    """A build made before ``source`` was kept: fetch the sdist again (seconds) for the files alone."""
    if has_sources(s):
        return
    print(f">>> Keeping llama.cpp's sampler sources beside its programs: {s['source']}", flush=True)
    with tempfile.TemporaryDirectory(prefix=f".{s['key']}-src-", dir=Path(s["dir"]).parent) as tmp:
        keep_sources(vendored_source(s["version"], Path(tmp)), s)


def built(s: dict) -> bool:
    """True when the folder holds a finished build (build.json is written last)."""
    bin_dir = Path(s["bin"])
    return (Path(s["dir"]) / "build.json").exists() and all((bin_dir / p).exists() for p in REQUIRED)


def vendored_source(version: str, work: Path) -> Path:
    """The sdist's vendor/llama.cpp, unpacked into work."""
    lw.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
            "--progress-bar", "off", "-d", work, f"{lw.PACKAGE}=={version}"])
    tars = sorted(work.glob("llama_cpp_python-*.tar.gz"))
    if len(tars) != 1:
        raise lw.Fail(f"pip download left {[t.name for t in tars]}, not one {lw.PACKAGE} sdist")
    with tarfile.open(tars[0]) as tar:
        tar.extractall(work, filter="data")
    src = work / f"llama_cpp_python-{version}" / "vendor" / "llama.cpp"
    if not (src / "CMakeLists.txt").exists():
        raise lw.Fail(f"the sdist has no vendor/llama.cpp/CMakeLists.txt ({src})")
    return src


def targets_in(src: Path) -> list[str]:
    """The programs this llama.cpp version defines (llama-cli is absent from some)."""
    tools = src / "tools"
    text = " ".join(p.read_text(encoding="utf-8", errors="replace") for p in tools.rglob("CMakeLists.txt"))
    have = [p for p in PROGRAMS if f"set(TARGET {p})" in text or f"TARGET {p}" in text]
    missing = [p for p in REQUIRED if p not in have]
    if missing:
        raise lw.Fail(f"this llama.cpp defines no {', '.join(missing)} target (tools/*/CMakeLists.txt)")
    return have


def build(s: dict) -> None:
    folder = Path(s["dir"])
    folder.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    print(f">>> Building llama.cpp's programs from {lw.PACKAGE} {s['version']}'s sources "
          f"({' '.join(s['flags'])}, {jobs} jobs; about 10-15 min on 2 cores), once, into {folder}.", flush=True)
    with tempfile.TemporaryDirectory(prefix=f".{s['key']}-", dir=folder.parent) as tmp:
        work = Path(tmp)
        src = vendored_source(s["version"], work)
        targets = targets_in(src)
        lw.run(["cmake", "-S", src, "-B", work / "build", *s["flags"]])
        lw.run(["cmake", "--build", work / "build", "-j", jobs, "--target", *targets])
        staged = work / "out" / "bin"
        staged.mkdir(parents=True)
        for name in targets:
            exe = work / "build" / "bin" / name
            if not exe.exists():
                raise lw.Fail(f"the build made no {exe}")
            os.replace(exe, staged / name)
        (work / "out" / "build.json").write_text(json.dumps(
            {**s, "programs": targets, "built": time.strftime("%Y-%m-%d %H:%M:%S"),
             "build_s": round(time.monotonic() - t0)}, indent=1), encoding="utf-8")
        if folder.exists():  # an unfinished earlier attempt
            os.rename(folder, work / "stale")
        os.replace(work / "out", folder)  # one rename: a folder there is a complete build
        keep_sources(src, s)
    print(f">>> Built llama.cpp's programs in {time.monotonic() - t0:.0f} s: {s['bin']}", flush=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=["ensure", "path", "show"])
    p.add_argument("--venv", default=".venv")
    p.add_argument("--gpu", default=os.environ.get("GPU", ""))
    args = p.parse_args(argv)
    try:
        s = spec(Path(args.venv), args.gpu)
        if args.command == "show":
            print(json.dumps({**s, "built": built(s)}, indent=1))
            return 0
        if args.command == "ensure" and not built(s):
            build(s)
        if args.command == "ensure" and built(s):
            ensure_sources(s)
        if not built(s):
            print(f"error: llama.cpp's programs are not built ({s['bin']}): run "
                  f"python packaging/llamacpp_programs.py ensure", file=sys.stderr)
            return 1
        print(s["bin"])
        return 0
    except lw.Fail as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
