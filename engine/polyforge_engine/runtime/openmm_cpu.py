"""How the engine runs OpenMM on CPUs: on every CPU the job was given.

The job's CPUs: POLYFORGE_ENGINE_THREADS (the runner's setting; POLYFORGE_OPENMM_THREADS, its
former name, is read too), else SLURM_CPUS_PER_TASK (a Slurm job's allocation), else the CPUs this
process may run on. OpenMM's CPU platform with one thread repeats a seed's trajectory bit for bit;
with several it does not, even with DeterministicForces (measured on OpenMM 8.6: the forces of
one structure differ between two 2-thread contexts in the last bits), so a run on several threads
repeats its seed statistically, not bit for bit. POLYFORGE_ENGINE_THREADS=1 gives bit-for-bit
runs at the cost of the other cores (issue 27)."""

from __future__ import annotations

import os

THREADS_ENV = "POLYFORGE_ENGINE_THREADS"
_THREAD_SETTINGS = (THREADS_ENV, "POLYFORGE_OPENMM_THREADS", "SLURM_CPUS_PER_TASK")


def engine_threads() -> int:
    """CPU threads for this job (module docstring)."""
    for name in _THREAD_SETTINGS:
        raw = os.environ.get(name, "").strip()
        if raw.isdigit() and int(raw) > 0:
            return int(raw)
    return len(os.sched_getaffinity(0))


def cpu_properties() -> dict[str, str]:
    """OpenMM CPU platform settings for simulating."""
    return {"Threads": str(engine_threads()), "DeterministicForces": "true"}
