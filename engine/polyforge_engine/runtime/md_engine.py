"""Which program integrates a job's dynamics: OpenMM, or GROMACS's `gmx mdrun`.

POLYFORGE_MD_ENGINE (the runner's setting, read from the engine's environment as
POLYFORGE_ENGINE_THREADS is; a Slurm job inherits the submitting environment) says `auto` (the
default), `openmm` or `gromacs`. `auto` takes GROMACS on the CPU when `gmx` is on the PATH and
OpenMM has no usable GPU platform (CUDA, OpenCL), since there mdrun is the faster (bench/README.md,
"MD speed: the engine's OpenMM against `gmx mdrun` on the same bundle"); OpenMM otherwise. That is
the start: a run long enough to repay it then measures both on its own system and keeps the faster
(simulate/engine_probe.py). Minimisation runs on OpenMM (simulate/minimise.py) unless
POLYFORGE_MINIMISE_ENGINE=gromacs asks for mdrun where the dynamics run there
(simulate/gromacs_minimise.py): faster for the steps asked, but it ends far higher in energy after
them (bench/README.md), so it is not the default.
Protocols GROMACS cannot run as OpenMM does stay on OpenMM whatever the setting, with the reason:
isolated molecules (mdrun's Verlet scheme needs a periodic cell), the harmonic z walls (GROMACS has
10-4 walls only) and the 21-stage melt equilibration (kept on OpenMM: its stages change the
barostat's pressure and temperature within one context)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from polyforge_engine.runtime.openmm_platform import GPU_PLATFORMS, probe_platform

MD_ENGINE_ENV = "POLYFORGE_MD_ENGINE"
MINIMISE_ENGINE_ENV = "POLYFORGE_MINIMISE_ENGINE"  # openmm (default) | gromacs
GMX_ENV = "POLYFORGE_GMX"  # the gmx binary (default: `gmx` on the PATH)
MdEngine = Literal["openmm", "gromacs"]
CHOICES = ("auto", "openmm", "gromacs")


@dataclass(frozen=True)
class MdEngineChoice:
    engine: MdEngine
    gmx: str | None  # the gmx binary when the engine is GROMACS
    requested: str
    note: str | None  # why not the engine asked for (None when it is, or when auto chose)


def find_gmx() -> str | None:
    """The gmx binary: POLYFORGE_GMX, else `gmx` on the PATH."""
    return shutil.which(os.environ.get(GMX_ENV, "").strip() or "gmx")


def gpu_available(probe: Callable[[str], str | None] = probe_platform) -> bool:
    """Whether OpenMM can make a context on a GPU platform here."""
    return any(probe(name) is None for name in GPU_PLATFORMS)


def gromacs_refusal(periodic: bool, walls: bool, staged: bool) -> str | None:
    """Why this protocol stays on OpenMM (module docstring), or None when GROMACS can run it."""
    if not periodic:
        return "isolated molecules (no cell) run on OpenMM"
    if walls:
        return "the z walls are OpenMM's harmonic walls; the run stays on OpenMM"
    if staged:
        return "the melt equilibration's stages run on OpenMM"
    return None


def choose_md_engine(
    refusal: str | None,
    requested: str | None = None,
    gmx: Callable[[], str | None] = find_gmx,
    gpu: Callable[[], bool] = gpu_available,
) -> MdEngineChoice:
    """The dynamics engine for a protocol (`refusal`: gromacs_refusal's answer for it)."""
    raw = (requested if requested is not None else os.environ.get(MD_ENGINE_ENV, "")).strip().lower() or "auto"
    if raw not in CHOICES:
        return MdEngineChoice("openmm", None, raw, f"{MD_ENGINE_ENV}={raw} is not one of {', '.join(CHOICES)}; ran on OpenMM")
    if raw == "openmm":
        return MdEngineChoice("openmm", None, raw, None)
    binary = gmx()
    if raw == "gromacs":
        if binary is None:
            return MdEngineChoice("openmm", None, raw, "asked for GROMACS, but gmx was not found; ran on OpenMM")
        if refusal is not None:
            return MdEngineChoice("openmm", None, raw, f"asked for GROMACS: {refusal}")
        return MdEngineChoice("gromacs", binary, raw, None)
    if binary is None or refusal is not None or gpu():
        return MdEngineChoice("openmm", None, raw, None)
    return MdEngineChoice("gromacs", binary, raw, None)


def minimises_on_gromacs(requested: str | None = None) -> bool:
    """Whether a job whose dynamics run on GROMACS minimises on mdrun too (POLYFORGE_MINIMISE_ENGINE=gromacs)."""
    raw = requested if requested is not None else os.environ.get(MINIMISE_ENGINE_ENV, "")
    return raw.strip().lower() == "gromacs"
