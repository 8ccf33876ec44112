"""What a Vulkan build of llama-cpp-python needs from the system (``make test-vulkan``).

    python packaging/vulkan_deps.py ensure       # install what is missing (root with apt-get), else name it
    python packaging/vulkan_deps.py cmake-args   # the CMake flags the build needs here (may be empty)

The packages (Debian's names): the Vulkan loader and headers, glslc (llama.cpp compiles its shaders with
it), SPIRV-Headers (its CMake asks for them), vulkaninfo, and Mesa's drivers, whose lavapipe is a
Vulkan device on any CPU.  llama.cpp needs headers of Vulkan 1.3.261 or later (VK_EXT_layer_settings);
Debian 12's are 1.3.239, so on such a machine Debian 13's headers package (``libvulkan-dev``
1.4.309) is fetched from deb.debian.org and unpacked into this project's cache, not installed, and
``cmake-args`` points the build at it.  Standard library only; every failure is one line, exit 1.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from llama_wheel import cache_root  # noqa: E402

PACKAGES = {"vulkaninfo": "vulkan-tools", "glslc": "glslc"}
FILES = {"/usr/include/vulkan/vulkan_core.h": "libvulkan-dev",
         "/usr/share/cmake/SPIRV-Headers/SPIRV-HeadersConfig.cmake": "spirv-headers"}
DRIVER = "mesa-vulkan-drivers"
NEEDED_HEADER = 261  # VK_HEADER_VERSION of 1.3.261
HEADERS_DEB = "http://deb.debian.org/debian/pool/main/v/vulkan-loader/libvulkan-dev_1.4.309.0-1_amd64.deb"


def header_version(include: Path) -> int:
    m = re.search(r"#define VK_HEADER_VERSION (\d+)", (include / "vulkan" / "vulkan_core.h").read_text())
    return int(m.group(1)) if m else 0


def headers_dir() -> Path:
    return cache_root() / "vulkan-headers-1.4.309" / "usr" / "include"


def missing() -> list[str]:
    need = [pkg for tool, pkg in PACKAGES.items() if shutil.which(tool) is None]
    need += [pkg for path, pkg in FILES.items() if not Path(path).exists()]
    if not list(Path("/usr/share/vulkan/icd.d").glob("lvp_icd*.json")):
        need.append(DRIVER)
    return need


def ensure() -> None:
    need = missing()
    if need:
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            raise SystemExit(f"error: the Vulkan build needs: {' '.join(need)} (apt-get install them as root)")
        print(f">>> Installing {' '.join(need)}", flush=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", *need], check=True)
    if header_version(Path("/usr/include")) < NEEDED_HEADER and not (headers_dir() / "vulkan").is_dir():
        if shutil.which("dpkg-deb") is None:
            raise SystemExit("error: the system's Vulkan headers are older than 1.3.261: install newer ones")
        deb = headers_dir().parents[1].with_suffix(".deb")
        deb.parent.mkdir(parents=True, exist_ok=True)
        print(f">>> The system's Vulkan headers are too old for llama.cpp; fetching {HEADERS_DEB}", flush=True)
        urllib.request.urlretrieve(HEADERS_DEB, deb)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(headers_dir().parents[1])], check=True)
        deb.unlink()


def cmake_args() -> str:
    if header_version(Path("/usr/include")) >= NEEDED_HEADER:
        return ""
    return f"-DVulkan_INCLUDE_DIR={headers_dir()}"


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    try:
        if command == "ensure":
            ensure()
        elif command == "cmake-args":
            print(cmake_args())
        else:
            print("usage: vulkan_deps.py ensure|cmake-args", file=sys.stderr)
            return 2
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
