"""llama.cpp's default thread count (``common_cpu_get_num_math()`` and ``common_cpu_get_num_physical_cores()``
in the common/common.cpp that llama-cpp-python vendors), counted on constructed machines: a folder holding
the /sys and /proc files the count reads.  Each expected count is worked out by hand from llama.cpp's C code
for the machine described (its comments say how)."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from app.engine.face import core_count
from app.engine.face.core_count import count_math_cores, count_physical_cores, parse_cpu_list, processor_core_groups


def machine(tmp_path: Path, siblings: list[str | None], *, online: str | None = None,
            pmus: dict[str, str] | None = None) -> Path:
    """A root folder: cpuN/topology/thread_siblings for each mask given (None: a CPU without the file),
    the online list (default: every CPU given), and the perf PMUs ``{"cpu_core": "0-11", ...}`` a hybrid
    part has, each listing its CPUs (a PMU given as "" has no list)."""
    cpu_dir = tmp_path / "sys/devices/system/cpu"
    for n, mask in enumerate(siblings):
        (cpu_dir / f"cpu{n}").mkdir(parents=True)
        if mask is not None:
            (cpu_dir / f"cpu{n}/topology").mkdir()
            (cpu_dir / f"cpu{n}/topology/thread_siblings").write_text(mask)
    cpu_dir.mkdir(parents=True, exist_ok=True)
    (cpu_dir / "online").write_text((online if online is not None else f"0-{len(siblings) - 1}") + "\n")
    for pmu, cpus in (pmus or {}).items():
        (tmp_path / "sys/devices" / pmu).mkdir(parents=True)
        if cpus:
            (tmp_path / "sys/devices" / pmu / "cpus").write_text(cpus + "\n")
    return tmp_path


def masks(*cores: tuple[int, ...]) -> list[str]:
    """Each CPU's thread_siblings mask (hex, as the kernel writes it) for cores given as their CPUs."""
    by_cpu = {cpu: f"{sum(1 << c for c in core):08x}\n" for core in cores for cpu in core}
    return [by_cpu[cpu] for cpu in range(len(by_cpu))]


def linux_x86(root: Path, **kwargs) -> int:
    return count_math_cores(root, system="linux", machine="x86_64", **kwargs)


def test_hyperthreads_numbered_side_by_side_count_once(tmp_path):
    root = machine(tmp_path, masks((0, 1), (2, 3), (4, 5), (6, 7)))
    assert linux_x86(root) == 4 == count_physical_cores(root, system="linux")


def test_hyperthreads_numbered_half_apart_count_once(tmp_path):
    root = machine(tmp_path, masks((0, 4), (1, 5), (2, 6), (3, 7)))
    assert linux_x86(root) == 4


def test_without_hyperthreads_every_cpu_is_a_core(tmp_path):
    assert linux_x86(machine(tmp_path, masks((0,), (1,), (2,)))) == 3


def test_the_count_stops_at_the_first_cpu_without_its_file(tmp_path):
    """llama.cpp reads cpu0, cpu1, ... until one cannot be opened (an offline CPU has no topology)."""
    root = machine(tmp_path, [*masks((0,), (1,)), None, "00000008\n"], online="0-1,3")
    assert linux_x86(root) == 2


@pytest.mark.parametrize("online, expected", [("0-7", 4), ("0-2", 3), ("0-3", 4), ("0-4", 2), ("0-11", 6)])
def test_without_any_sibling_list_half_the_online_cpus_above_four(tmp_path, online, expected):
    """hardware_concurrency() (the online CPUs): up to 4 as they are, more halved (common.cpp:144-145)."""
    root = tmp_path / "bare"
    (root / "sys/devices/system/cpu").mkdir(parents=True)
    (root / "sys/devices/system/cpu/online").write_text(online + "\n")
    assert count_physical_cores(root, system="linux") == expected


def test_empty_sibling_files_are_no_lines(tmp_path):
    """std::getline finds no line in an empty file: nothing is counted, so the fallback answers."""
    root = machine(tmp_path, ["", "", "", "", "", "", "", "", "", ""])
    assert linux_x86(root) == 5


# A hybrid Intel part of 6 performance cores with hyperthreads (CPUs 0-11, each core's two side by side)
# and 8 efficiency cores (CPUs 12-19): 14 physical cores, 6 for math.
HYBRID = masks((0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11), *((cpu,) for cpu in range(12, 20)))


ALDER_LAKE = {"cpu_core": "0-11", "cpu_atom": "12-19"}


def test_a_hybrid_cpu_counts_its_performance_cores_only(tmp_path):
    root = machine(tmp_path, HYBRID, pmus=ALDER_LAKE)
    assert count_physical_cores(root, system="linux") == 14
    assert linux_x86(root, can_pin=lambda cpu: True) == 6


def test_a_hybrid_cpu_without_hyperthreads_counts_every_other_performance_core(tmp_path):
    """llama.cpp takes the CPU after a performance core for its hyperthread: 8 single-thread performance
    cores (0-7) and 16 efficiency cores count 4, as llama-cli's default is on such a part."""
    root = machine(tmp_path, masks(*((cpu,) for cpu in range(24))), pmus={"cpu_core": "0-7", "cpu_atom": "8-23"})
    assert linux_x86(root, can_pin=lambda cpu: True) == 4


def test_the_low_power_efficiency_cores_are_atom_cores_too(tmp_path):
    """Meteor Lake: 6 performance cores with hyperthreads, 8 efficiency cores and 2 low-power ones."""
    root = machine(tmp_path, HYBRID + masks(*((cpu,) for cpu in range(22)))[20:],
                   pmus={**ALDER_LAKE, "cpu_lowpower": "20-21"})
    assert count_physical_cores(root, system="linux") == 16
    assert linux_x86(root, can_pin=lambda cpu: True) == 6


def test_a_hybrid_cpu_that_cannot_be_pinned_to_counts_its_physical_cores(tmp_path):
    root = machine(tmp_path, HYBRID, pmus=ALDER_LAKE)
    assert linux_x86(root, can_pin=lambda cpu: cpu != 4) == 14


@pytest.mark.parametrize("pmus", [{"cpu_core": "0-11"}, {"cpu_core": "0-11", "cpu_atom": ""},
                                  {"cpu_core": "0-11", "cpu_atom": "12-x"}])
def test_a_hybrid_cpu_whose_efficiency_cores_are_not_listed_counts_its_physical_cores(tmp_path, pmus):
    root = machine(tmp_path, HYBRID, pmus=pmus)
    assert linux_x86(root, can_pin=lambda cpu: True) == 14


def test_a_cpu_of_one_core_type_is_not_hybrid(tmp_path):
    """A part of one core type has one perf PMU, ``/sys/devices/cpu``: its CPUs are never pinned to."""
    root = machine(tmp_path, HYBRID, pmus={"cpu": ""})

    def never(cpu: int) -> bool:
        raise AssertionError("pinned on a CPU that is not hybrid")

    assert linux_x86(root, can_pin=never) == 14


def test_the_hybrid_rule_is_x86_only(tmp_path):
    root = machine(tmp_path, HYBRID, pmus=ALDER_LAKE)
    assert count_math_cores(root, system="linux", machine="aarch64", can_pin=lambda cpu: True) == 14


def test_powerpc_counts_two_threads_per_core_at_most(tmp_path):
    smt8 = masks(*(tuple(range(8 * core, 8 * core + 8)) for core in range(4)))
    assert count_math_cores(machine(tmp_path / "smt8", smt8), system="linux", machine="ppc64le") == 8
    single = masks((0,), (1,), (2,))
    assert count_math_cores(machine(tmp_path / "smt1", single), system="linux", machine="ppc64le") == 3


def test_macos_asks_for_the_performance_cores_first():
    values = {"hw.perflevel0.physicalcpu": 8, "hw.physicalcpu": 12}
    assert count_physical_cores(system="darwin", sysctl=values.get) == 8
    assert count_physical_cores(system="darwin", sysctl={"hw.physicalcpu": 12}.get) == 12


def test_macos_without_either_count_halves_the_cpus(monkeypatch):
    monkeypatch.setattr(core_count.os, "cpu_count", lambda: 10)
    assert count_physical_cores(system="darwin", sysctl=lambda name: None) == 5


def core_record(groups: int = 1, relationship: int = 0) -> bytes:
    """One SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX record as Windows lays it out: Relationship, Size, then
    PROCESSOR_RELATIONSHIP's Flags, EfficiencyClass, Reserved[20], GroupCount and a GROUP_AFFINITY per group
    (KAFFINITY Mask, WORD Group, WORD Reserved[3])."""
    body = struct.pack("<BB20xH", 1, 0, groups) + b"".join(struct.pack("<QH6x", 0b11, 0) for _ in range(groups))
    return struct.pack("<II", relationship, 8 + len(body)) + body


def test_windows_counts_each_core_records_groups():
    assert processor_core_groups(core_record() * 6) == 6
    assert processor_core_groups(core_record(2) + core_record() + core_record(relationship=2)) == 3
    assert processor_core_groups(b"") == 0
    assert processor_core_groups(struct.pack("<II", 0, 0) + bytes(24)) == 0  # a record of size 0 ends the walk


def test_windows_uses_the_records_else_halves_the_cpus(monkeypatch):
    assert count_physical_cores(system="win32", windows_records=lambda: core_record() * 6) == 6
    monkeypatch.setattr(core_count.os, "cpu_count", lambda: 16)
    assert count_physical_cores(system="win32", windows_records=lambda: None) == 8


@pytest.mark.parametrize("text, cpus", [
    ("0-3,8,10-11\n", {0, 1, 2, 3, 8, 10, 11}), ("5\n", {5}), ("\n", set()), ("0-x", None), ("3-1", None),
])
def test_kernel_cpu_lists(text, cpus):
    assert parse_cpu_list(text) == cpus


@pytest.mark.skipif(not hasattr(core_count.os, "sched_setaffinity"), reason="no thread affinity here")
def test_pinning_is_tried_on_a_thread_of_its_own():
    allowed = core_count.os.sched_getaffinity(0)
    assert core_count._can_pin(min(allowed)) and not core_count._can_pin(1 << 20)
    assert core_count.os.sched_getaffinity(0) == allowed  # this thread's affinity is as it was
