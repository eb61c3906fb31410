"""How the engine runs OpenMM on CPUs: on every CPU the job was given.

The job's CPUs: POLYFORGE_ENGINE_THREADS (the runner's setting), else the smallest of Slurm's
allocation, the CPUs this process may run on and its cgroup's CPU quota (runtime/allocation.py).
OpenMM's CPU platform with one thread repeats a seed's trajectory bit for bit; with several it does
not, even with DeterministicForces (the forces of one structure differ between two 2-thread contexts
in the last bits), so a run on several threads repeats its seed statistically,
not bit for bit. POLYFORGE_ENGINE_THREADS=1 gives bit-for-bit runs at the cost of the other cores.

The builder's compiled relaxation (construct/_relax.c) runs on the same threads through OpenMP, whose
threads sleep when idle (`sleeping_openmp_threads`): spinning, as libgomp does by default, they made
a dense build twice as slow as one thread whenever another process held a core (bench/README.md)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from polyforge_engine.runtime.allocation import job_cpus


def engine_threads() -> int:
    """CPU threads for this job (module docstring)."""
    return job_cpus().threads


def cpu_properties() -> dict[str, str]:
    """OpenMM CPU platform settings for simulating."""
    return {"Threads": str(engine_threads()), "DeterministicForces": "true"}


@contextlib.contextmanager
def sleeping_openmp_threads() -> Iterator[None]:
    """Load OpenMP code inside this block and its idle threads sleep instead of spinning. libgomp reads
    OMP_WAIT_POLICY once, when it is loaded; the setting is taken back afterwards, so that the tools the
    engine runs (GROMACS's mdrun) keep their own. A policy the user set is left as it is."""
    chosen = "OMP_WAIT_POLICY" in os.environ
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        yield
    finally:
        if not chosen:
            os.environ.pop("OMP_WAIT_POLICY", None)
