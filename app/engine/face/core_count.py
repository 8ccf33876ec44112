"""This machine's cores counted as llama.cpp counts them for its default thread count, without llama_cpp.

A port of ``common_cpu_get_num_math()`` and ``common_cpu_get_num_physical_cores()``, in the
``common/common.cpp`` that llama-cpp-python 0.3.36 vendors (lines cited below): llama-cli's ``-t``
default (``postprocess_cpu_params``, line 295).  What it asks the system is read here from the same
places, under a root folder (``/`` on this machine; a folder of fixtures in the tests):

* Linux: the distinct ``/sys/devices/system/cpu/cpuN/topology/thread_siblings`` masks, N from 0 up to
  the first that cannot be opened (one mask per physical core: its hyperthreads share it).
* Linux on x86-64, a hybrid CPU (cpuid leaf 7, EDX bit 15): llama.cpp pins itself to each online CPU
  in turn and asks cpuid (leaf 0x1A) whether it is an efficiency (Atom) core.  Python cannot ask cpuid,
  and the kernel keeps the hybrid bit out of ``/proc/cpuinfo``; on such a part it registers a perf PMU
  per core type instead, listing each type's CPUs: ``/sys/devices/cpu_core/cpus`` (performance),
  ``/sys/devices/cpu_atom/cpus`` and, on Meteor Lake, ``/sys/devices/cpu_lowpower/cpus`` (Atom cores
  both).  An efficiency core is skipped; a performance core counts once and the CPU after it is skipped
  as its hyperthread (llama.cpp assumes they are numbered next to each other).  If a CPU cannot be
  pinned to (outside this process's cpuset), the Atom cores are not listed, or none counts, the
  physical cores are the answer.
* powerpc: the physical cores times their threads per core, at most 2.
* macOS: ``hw.perflevel0.physicalcpu`` (the performance cores), else ``hw.physicalcpu``.
* Windows: the processor-core records of ``GetLogicalProcessorInformationEx``, each counting its groups.
* Anywhere else, or where those fail: ``std::thread::hardware_concurrency()`` (the online CPUs) up to
  4, else half of it; 4 if it is unknown.
"""
from __future__ import annotations

import functools
import os
import platform
import struct
import sys
import threading
from collections.abc import Callable
from pathlib import Path

ROOT = Path("/")
CPU_DIR = "sys/devices/system/cpu"
#: The perf PMUs the kernel registers on a hybrid Intel part, one per core type (each lists its CPUs).
HYBRID_PMUS = ("sys/devices/cpu_core", "sys/devices/cpu_atom", "sys/devices/cpu_lowpower")
#: Those whose CPUs are Atom cores (cpuid leaf 0x1A's core type 0x20): the efficiency cores.
ATOM_PMUS = ("sys/devices/cpu_atom", "sys/devices/cpu_lowpower")
#: GetLogicalProcessorInformationEx's relationship of a processor-core record, and its "buffer too small" error.
RELATION_PROCESSOR_CORE = 0
ERROR_INSUFFICIENT_BUFFER = 122


def math_cores() -> int:
    """llama.cpp's default thread count on this machine (counted once: the machine does not change)."""
    return _this_machines_math_cores()


@functools.cache
def _this_machines_math_cores() -> int:
    return count_math_cores()


def count_math_cores(root: Path = ROOT, *, system: str = sys.platform, machine: str | None = None,
                     can_pin: Callable[[int], bool] | None = None) -> int:
    """``common_cpu_get_num_math()`` (common.cpp:201-227): the CPUs useful for math.

    ``can_pin(cpu)``: whether a thread can be pinned to that CPU (default: try it on a thread of its own)."""
    machine = (machine if machine is not None else platform.machine()).lower()
    linux_x86 = system.startswith("linux") and machine in ("x86_64", "amd64")
    if linux_x86:
        n_cpu = online_cpus(root)
        if n_cpu < 1:  # line 204
            return count_physical_cores(root, system=system)
        if is_hybrid_cpu(root):  # line 207
            result = _count_math_cpus(n_cpu, _atom_cpus(root), can_pin or _can_pin)
            if result > 0:  # line 212
                return result
    elif machine.startswith(("ppc", "powerpc")):  # lines 217-224
        physical, logical = count_physical_cores(root, system=system), online_cpus(root)
        smt = logical // physical if physical > 0 and logical > physical else 1
        return physical * min(smt, 2)
    return count_physical_cores(root, system=system)


def _count_math_cpus(n_cpu: int, atoms: set[int] | None, can_pin: Callable[[int], bool]) -> int:
    """``cpu_count_math_cpus()`` (common.cpp:181-194); -1 where a CPU cannot be pinned to, or where the
    efficiency cores are unknown (cpuid cannot be asked from Python: the kernel's list stands in)."""
    if atoms is None:
        return -1
    result = 0
    cpu = 0
    while cpu < n_cpu:
        if not can_pin(cpu):
            return -1
        if cpu not in atoms:  # an efficiency core harms lockstep threading: skipped
            cpu += 1  # hyperthreading isn't useful for linear algebra: the next CPU is this core's sibling
            result += 1
        cpu += 1
    return result


def is_hybrid_cpu(root: Path = ROOT) -> bool:
    """``is_hybrid_cpu()`` (common.cpp:167-171): cpuid leaf 7's hybrid bit, which the kernel shows by
    registering a perf PMU per core type (``X86_FEATURE_HYBRID_CPU``: arch/x86/events/intel)."""
    return any((root / pmu).is_dir() for pmu in HYBRID_PMUS)


def count_physical_cores(root: Path = ROOT, *, system: str = sys.platform,
                         sysctl: Callable[[str], int | None] | None = None,
                         windows_records: Callable[[], bytes | None] | None = None) -> int:
    """``common_cpu_get_num_physical_cores()`` (common.cpp:77-146)."""
    if system.startswith("linux"):  # lines 87-103
        siblings = _thread_sibling_masks(root)
        if siblings:
            return len(siblings)
    elif system == "darwin":  # lines 104-114
        ask = sysctl or _sysctl
        for name in ("hw.perflevel0.physicalcpu", "hw.physicalcpu"):
            value = ask(name)
            if value is not None:
                return value
    elif system == "win32":  # lines 115-142: the processor cores, or the default below
        records = (windows_records or _logical_processor_records)()
        cores = processor_core_groups(records) if records is not None else 0
        return cores if cores > 0 else _default_threads(_hardware_concurrency(root, system))
    return _default_threads(_hardware_concurrency(root, system))  # lines 144-145


def physical_cores() -> int:
    """This machine's physical cores as llama.cpp counts them (counted once)."""
    return _this_machines_physical_cores()


@functools.cache
def _this_machines_physical_cores() -> int:
    return count_physical_cores()


def _thread_sibling_masks(root: Path) -> set[str]:
    """Each CPU's ``thread_siblings`` line, from cpu0 up to the first whose file cannot be opened."""
    masks: set[str] = set()
    cpu = 0
    while True:
        try:
            with open(root / CPU_DIR / f"cpu{cpu}/topology/thread_siblings", encoding="ascii", errors="replace") as f:
                line = f.readline()
        except OSError:
            return masks  # no more CPUs
        if line:  # std::getline found a line (an empty file has none)
            masks.add(line.removesuffix("\n"))
        cpu += 1


def _default_threads(n: int) -> int:
    """llama.cpp's fallback: ``n`` (hardware_concurrency) up to 4, else half; 4 when unknown (line 145)."""
    return (n if n <= 4 else n // 2) if n > 0 else 4


def _hardware_concurrency(root: Path, system: str) -> int:
    """``std::thread::hardware_concurrency()``: the online CPUs (libstdc++ asks glibc's get_nprocs on Linux)."""
    return online_cpus(root) if system.startswith("linux") else (os.cpu_count() or 0)


def online_cpus(root: Path = ROOT) -> int:
    """``sysconf(_SC_NPROCESSORS_ONLN)``: the CPUs in ``/sys/devices/system/cpu/online`` (where glibc reads
    them), else what the system says."""
    text = _read(root / CPU_DIR / "online")
    if text is not None:
        cpus = parse_cpu_list(text)
        if cpus is not None:
            return len(cpus)
    try:
        return max(0, os.sysconf("SC_NPROCESSORS_ONLN"))
    except (ValueError, OSError, AttributeError):
        return os.cpu_count() or 0


def _atom_cpus(root: Path) -> set[int] | None:
    """The efficiency cores of a hybrid CPU, ``is_running_on_efficiency_core()`` (common.cpp:173-179) for
    each CPU at once (None: the kernel does not list them)."""
    atoms: set[int] = set()
    listed = False
    for pmu in ATOM_PMUS:
        text = _read(root / pmu / "cpus")
        if text is None:
            continue
        cpus = parse_cpu_list(text)
        if cpus is None:
            return None
        atoms |= cpus
        listed = True
    return atoms if listed else None


def parse_cpu_list(text: str) -> set[int] | None:
    """A kernel CPU list (``0-3,8,10-11``) as its CPUs; None if it is not one."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        first, _, last = part.partition("-")
        if not first.isdigit() or not (last or first).isdigit() or int(last or first) < int(first):
            return None
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def processor_core_groups(records: bytes) -> int:
    """The sum of GroupCount over the RelationProcessorCore records of a
    SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX buffer (common.cpp:131-139): each record is Relationship
    (DWORD), Size (DWORD), then PROCESSOR_RELATIONSHIP: Flags, EfficiencyClass, Reserved[20] (bytes),
    GroupCount (WORD at offset 30)."""
    total = offset = 0
    while offset + 8 <= len(records):
        relationship, size = struct.unpack_from("<II", records, offset)
        if relationship == RELATION_PROCESSOR_CORE and offset + 32 <= len(records):
            total += struct.unpack_from("<H", records, offset + 30)[0]
        if size <= 0:
            break  # a malformed record: the walk would never end
        offset += size
    return total


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None


def _can_pin(cpu: int) -> bool:
    """Whether a thread can be pinned to ``cpu`` (``pin_cpu()``, common.cpp:160-165), tried on a thread of
    its own so that no other thread's affinity changes."""
    ok: list[bool] = []

    def attempt() -> None:
        try:
            os.sched_setaffinity(0, {cpu})  # 0: the calling thread
            ok.append(True)
        except (OSError, ValueError, AttributeError):
            ok.append(False)

    thread = threading.Thread(target=attempt, name="pin-probe", daemon=True)
    thread.start()
    thread.join()
    return bool(ok and ok[0])


def _sysctl(name: str) -> int | None:
    """``sysctlbyname`` for a 32-bit integer (macOS); None if it fails."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        value, size = ctypes.c_int32(0), ctypes.c_size_t(4)
        if libc.sysctlbyname(name.encode(), ctypes.byref(value), ctypes.byref(size), None, ctypes.c_size_t(0)) == 0:
            return int(value.value)
    except (OSError, AttributeError):
        pass
    return None


def _logical_processor_records() -> bytes | None:
    """GetLogicalProcessorInformationEx(RelationProcessorCore)'s buffer (Windows); None if it fails."""
    if sys.platform != "win32":
        return None
    import ctypes

    try:
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        size = ctypes.c_uint32(0)
        if not kernel32.GetLogicalProcessorInformationEx(RELATION_PROCESSOR_CORE, None, ctypes.byref(size)):
            if ctypes.get_last_error() != ERROR_INSUFFICIENT_BUFFER:
                return None
        buffer = ctypes.create_string_buffer(size.value)
        if not kernel32.GetLogicalProcessorInformationEx(RELATION_PROCESSOR_CORE, buffer, ctypes.byref(size)):
            return None
        return buffer.raw[:size.value]
    except (OSError, AttributeError):
        return None
