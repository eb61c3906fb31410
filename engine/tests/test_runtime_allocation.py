"""The threads and pinning of a job come from what it really has: the runner's setting, else the
smallest of Slurm's allocation, its CPU affinity and its cgroup's CPU quota (v2 and v1), never the
machine's core count. Every allocation here is given (files and environment written for the test),
not the machine's."""

from __future__ import annotations

from pathlib import Path

import pytest
from polyforge_engine.runtime.allocation import THREADS_ENV, CpuAllocation, JobView, cgroup_quota_cpus, job_cpus, slurm_cpus
from polyforge_engine.simulate.gromacs_run import GromacsInputs, mdrun_resources

EIGHT = frozenset(range(8))


def _v2(root: Path, path: str, limits: dict[str, str]) -> Path:
    """A cgroup v2 tree under `root` with `cpu.max` written where `limits` says; /proc/self/cgroup naming `path`."""
    for directory, cpu_max in limits.items():
        (root / directory).mkdir(parents=True, exist_ok=True)
        (root / directory / "cpu.max").write_text(cpu_max + "\n")
    (root / path.strip("/")).mkdir(parents=True, exist_ok=True)
    proc = root / "proc_self_cgroup"
    proc.write_text(f"0::{path}\n")
    return proc


def _view(tmp_path: Path, environ: dict[str, str] | None = None, affinity: frozenset[int] = EIGHT, online: int = 8, proc: Path | None = None) -> JobView:
    return JobView(environ or {}, affinity, online, tmp_path, proc or tmp_path / "no_proc_cgroup")


def test_without_limits_the_job_has_the_cpus_it_may_run_on(tmp_path: Path) -> None:
    assert job_cpus(_view(tmp_path)) == CpuAllocation(8, False, "CPU affinity 8 CPUs")
    # A cpuset (taskset, a container) of 3 of the machine's 8 CPUs: 3, not os.cpu_count().
    assert job_cpus(_view(tmp_path, affinity=frozenset({2, 5, 6}))).threads == 3


def test_a_cgroup_v2_quota_rounds_down_to_whole_cpus(tmp_path: Path) -> None:
    proc = _v2(tmp_path, "/system.slice/job.scope", {"system.slice/job.scope": "250000 100000"})
    assert cgroup_quota_cpus(tmp_path, proc) == pytest.approx(2.5)
    assert job_cpus(_view(tmp_path, proc=proc)) == CpuAllocation(2, False, "cgroup quota 2.5 CPUs")
    # Half a CPU is still one thread.
    (tmp_path / "system.slice/job.scope/cpu.max").write_text("50000 100000\n")
    assert job_cpus(_view(tmp_path, proc=proc)).threads == 1


def test_a_parent_cgroup_quota_limits_its_children(tmp_path: Path) -> None:
    proc = _v2(tmp_path, "/user.slice/session/job", {"user.slice": "300000 100000", "user.slice/session/job": "max 100000"})
    assert cgroup_quota_cpus(tmp_path, proc) == pytest.approx(3.0)
    assert job_cpus(_view(tmp_path, proc=proc)).threads == 3


def test_no_quota_written_as_max_leaves_the_affinity(tmp_path: Path) -> None:
    proc = _v2(tmp_path, "/job", {"job": "max 100000"})
    assert cgroup_quota_cpus(tmp_path, proc) is None
    assert job_cpus(_view(tmp_path, affinity=frozenset({0, 1}), proc=proc)).threads == 2


def test_a_cgroup_v1_cfs_quota_counts(tmp_path: Path) -> None:
    group = tmp_path / "cpu,cpuacct" / "slurm" / "job_7"
    group.mkdir(parents=True)
    (group / "cpu.cfs_quota_us").write_text("400000\n")
    (group / "cpu.cfs_period_us").write_text("100000\n")
    proc = tmp_path / "proc_self_cgroup"
    proc.write_text("5:memory:/slurm/job_7\n4:cpu,cpuacct:/slurm/job_7\n0::/\n")
    assert job_cpus(_view(tmp_path, proc=proc)) == CpuAllocation(4, False, "cgroup quota 4 CPUs")
    (group / "cpu.cfs_quota_us").write_text("-1\n")  # v1's "no quota"
    assert cgroup_quota_cpus(tmp_path, proc) is None


def test_slurm_cpus_per_task_then_this_nodes_share_of_the_job(tmp_path: Path) -> None:
    assert slurm_cpus({"SLURM_CPUS_PER_TASK": "6", "SLURM_JOB_CPUS_PER_NODE": "16"}) == 6
    assert slurm_cpus({"SLURM_JOB_CPUS_PER_NODE": "2(x3),1", "SLURM_NODEID": "3"}) == 1
    assert slurm_cpus({"SLURM_JOB_CPUS_PER_NODE": "2(x3),1", "SLURM_NODEID": "1"}) == 2
    assert slurm_cpus({"SLURM_JOB_CPUS_PER_NODE": "4"}) == 4
    assert slurm_cpus({"SLURM_JOB_CPUS_PER_NODE": "garbled"}) is None and slurm_cpus({}) is None
    assert job_cpus(_view(tmp_path, {"SLURM_CPUS_PER_TASK": "4"})) == CpuAllocation(4, False, "Slurm allocation 4 CPUs")


def test_the_smallest_limit_wins(tmp_path: Path) -> None:
    proc = _v2(tmp_path, "/job", {"job": "300000 100000"})
    # Slurm says 6, the affinity 4, the quota 3: 3 threads.
    assert job_cpus(_view(tmp_path, {"SLURM_CPUS_PER_TASK": "6"}, frozenset(range(4)), proc=proc)).threads == 3
    # Slurm says 2 of the 4 CPUs the process may run on: 2.
    assert job_cpus(_view(tmp_path, {"SLURM_CPUS_PER_TASK": "2"}, frozenset(range(4)))).threads == 2


def test_the_runners_setting_overrides_the_allocation(tmp_path: Path) -> None:
    proc = _v2(tmp_path, "/job", {"job": "100000 100000"})
    assert job_cpus(_view(tmp_path, {THREADS_ENV: "6", "SLURM_CPUS_PER_TASK": "2"}, proc=proc)) == CpuAllocation(6, False, f"{THREADS_ENV}=6")
    assert job_cpus(_view(tmp_path, {THREADS_ENV: "none"}, proc=proc)).threads == 1  # not a count: the allocation decides


def test_threads_are_pinned_only_on_a_whole_node_from_slurm(tmp_path: Path) -> None:
    whole = job_cpus(_view(tmp_path, {"SLURM_JOB_CPUS_PER_NODE": "8"}))
    assert whole.pin and whole.mdrun_args() == ["-nt", "8", "-pin", "on"]
    assert not job_cpus(_view(tmp_path, {"SLURM_CPUS_PER_TASK": "4"}, frozenset(range(4)))).pin  # part of a node
    assert not job_cpus(_view(tmp_path)).pin  # a workstation others share
    proc = _v2(tmp_path, "/job", {"job": "400000 100000"})
    assert not job_cpus(_view(tmp_path, {"SLURM_JOB_CPUS_PER_NODE": "8"}, proc=proc)).pin  # a quota below the node


def test_mdrun_gets_reprod_on_one_rank_only_when_asked() -> None:
    cpus = CpuAllocation(2, False, "CPU affinity 2 CPUs")
    fast = GromacsInputs("gmx", Path("system.top"), Path("system.gro"), cpus)
    assert mdrun_resources(fast) == ["-nt", "2", "-pin", "off"]
    reproducible = GromacsInputs("gmx", Path("system.top"), Path("system.gro"), cpus, reprod=True)
    assert mdrun_resources(reproducible) == ["-reprod", "-ntmpi", "1", "-ntomp", "2", "-pin", "off"]
