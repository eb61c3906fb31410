"""How the engine runs OpenMM: the CPU platform, reproducibly unless asked otherwise."""

from __future__ import annotations

import os


def cpu_properties() -> dict[str, str]:
    """OpenMM CPU platform settings for building (compression) and simulating. One thread by default:
    with several threads the energy sums (and so the minimiser's path) vary from run to run, and the
    same seed must give the same structure and trajectory. POLYFORGE_OPENMM_THREADS trades that
    reproducibility for speed."""
    return {"Threads": os.environ.get("POLYFORGE_OPENMM_THREADS", "1"), "DeterministicForces": "true"}
