"""The CPUs a job really has, and how mdrun should use them: not the machine's core count, but the
smallest of what the scheduler and the kernel give the process.

- POLYFORGE_ENGINE_THREADS (the runner's setting) wins when set: the operator knows best.
- Slurm: SLURM_CPUS_PER_TASK, else this node's entry of SLURM_JOB_CPUS_PER_NODE ("4", "2(x3),1").
- The CPU affinity (os.sched_getaffinity: a cpuset from Slurm, taskset or a container).
- The cgroup's CPU quota (v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`), rounded down
  to whole CPUs (at least one): threads beyond the quota are throttled every period, which stalls
  mdrun's threads at each step's barrier.

Threads are pinned to cores only when the job holds a whole node from Slurm (every online CPU is
its own): that is where pinning pays (mdrun's `-pin auto` does the same on a full node). On a
quota, a partial cpuset or a shared workstation, pinning ties threads to cores other processes use
too, or fights the scheduler's mask, so they float."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

THREADS_ENV = "POLYFORGE_ENGINE_THREADS"
_OWN_SETTINGS = (THREADS_ENV, "POLYFORGE_OPENMM_THREADS")  # the second: its former name
CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")


@dataclass(frozen=True)
class CpuAllocation:
    threads: int
    pin: bool
    limited_by: str  # what set the thread count, for the report: "cgroup quota 1.5 CPUs", …

    def mdrun_args(self) -> list[str]:
        """mdrun's thread and pinning flags: `-nt` lets mdrun split the threads between ranks and
        OpenMP itself (bench/README.md, "MD speed at the CPUs a job has")."""
        return ["-nt", str(self.threads), "-pin", "on" if self.pin else "off"]


@dataclass(frozen=True)
class JobView:
    """What the allocation is read from; the process's own by default, given ones in tests."""

    environ: Mapping[str, str]
    affinity: frozenset[int]
    online_cpus: int
    cgroup_root: Path = CGROUP_ROOT
    proc_cgroup: Path = PROC_CGROUP

    @classmethod
    def of_this_process(cls) -> JobView:
        return cls(dict(os.environ), frozenset(os.sched_getaffinity(0)), os.cpu_count() or 1)


def job_cpus(view: JobView | None = None) -> CpuAllocation:
    """The threads and pinning for this job (module docstring)."""
    view = view or JobView.of_this_process()
    for name in _OWN_SETTINGS:
        own = _positive_int(view.environ.get(name, ""))
        if own is not None:
            return CpuAllocation(own, False, f"{name}={own}")
    limits: list[tuple[float, str]] = [(len(view.affinity), f"CPU affinity {len(view.affinity)} CPUs")]
    slurm = slurm_cpus(view.environ)
    if slurm is not None:
        limits.append((slurm, f"Slurm allocation {slurm} CPUs"))
    quota = cgroup_quota_cpus(view.cgroup_root, view.proc_cgroup)
    if quota is not None:
        limits.append((quota, f"cgroup quota {quota:g} CPUs"))
    cpus, limited_by = min(limits, key=lambda limit: limit[0])
    threads = max(1, math.floor(cpus))
    whole_node = slurm is not None and threads == view.online_cpus == len(view.affinity)
    return CpuAllocation(threads, whole_node, limited_by)


def slurm_cpus(environ: Mapping[str, str]) -> int | None:
    """The CPUs Slurm gave this task: SLURM_CPUS_PER_TASK, else this node's SLURM_JOB_CPUS_PER_NODE."""
    per_task = _positive_int(environ.get("SLURM_CPUS_PER_TASK", ""))
    if per_task is not None:
        return per_task
    per_node = environ.get("SLURM_JOB_CPUS_PER_NODE", "").strip()
    if not per_node:
        return None
    counts: list[int] = []
    for entry in per_node.split(","):
        match = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", entry.strip())
        if match is None:
            return None
        counts += [int(match.group(1))] * int(match.group(2) or 1)
    node = _positive_int(environ.get("SLURM_NODEID", "")) or 0
    return counts[node] if node < len(counts) and counts[node] > 0 else None


def cgroup_quota_cpus(root: Path, proc_cgroup: Path) -> float | None:
    """The CPU quota of this process's cgroup in CPUs (quota / period; the smallest along the cgroup's
    parents, which limit it too), None when unlimited or unknown."""
    groups = _cgroups(proc_cgroup)
    quotas: list[float | None] = []
    if "" in groups:  # v2: the unified hierarchy
        quotas += [_v2_quota(directory / "cpu.max") for directory in _up_to_root(root, groups[""])]
    for controllers, path in groups.items():
        if "cpu" in controllers.split(","):
            for mount in {root / "cpu", root / "cpu,cpuacct", root / controllers}:
                quotas += [_v1_quota(directory) for directory in _up_to_root(mount, path)]
    found = [quota for quota in quotas if quota is not None]
    return min(found) if found else None


def _cgroups(proc_cgroup: Path) -> dict[str, str]:
    """/proc/self/cgroup as {controllers: path}; v2's line has no controllers ("0::/path")."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return {}
    groups: dict[str, str] = {}
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3:
            groups[parts[1]] = parts[2]
    return groups


def _up_to_root(mount: Path, path: str) -> list[Path]:
    """The cgroup's directory under `mount` and its parents up to the mount. Inside a container the path may name the host's cgroup, so the mount
    itself (the container's own cgroup) is always looked at."""
    parts = [part for part in path.split("/") if part]
    directories = [mount.joinpath(*parts[:depth]) for depth in range(len(parts), 0, -1)]
    return [directory for directory in directories if directory.is_dir()] + [mount]


def _v2_quota(cpu_max: Path) -> float | None:
    try:
        fields = cpu_max.read_text().split()
    except OSError:
        return None
    if len(fields) != 2 or fields[0] == "max":
        return None
    return _ratio(fields[0], fields[1])


def _v1_quota(directory: Path) -> float | None:
    try:
        quota = (directory / "cpu.cfs_quota_us").read_text().strip()
        period = (directory / "cpu.cfs_period_us").read_text().strip()
    except OSError:
        return None
    return _ratio(quota, period)


def _ratio(quota: str, period: str) -> float | None:
    """quota / period for a set quota (v1 writes -1 for none)."""
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None


def _positive_int(raw: str) -> int | None:
    raw = raw.strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else None
