"""What the RPC-across-hosts tests and bench need (tests/engine/test_rpc_hosts.py, bench/rpc_hosts.py):
iproute2's ``ip`` (and ``tc``), with root to make network namespaces.  ``make test`` runs ``ensure``: as root
with apt-get it installs iproute2 when ``ip`` is missing; without root there is nothing to install (those
tests skip, saying why), so it never stops make.  Standard library only.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys


def main(argv: list[str]) -> int:
    if argv != ["ensure"]:
        print("usage: netns_deps.py ensure", file=sys.stderr)
        return 2
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or shutil.which("ip"):
        return 0
    if shutil.which("apt-get") is None:
        print("note: the RPC-across-hosts tests need iproute2's ip; they will skip", file=sys.stderr)
        return 0
    print(">>> Installing iproute2 (the RPC-across-hosts tests make network namespaces)", flush=True)
    done = subprocess.run(["apt-get", "install", "-y", "-qq", "iproute2"])
    if done.returncode != 0:
        print("note: apt-get could not install iproute2; the RPC-across-hosts tests will skip", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
