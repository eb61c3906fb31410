"""GROMACS run parameters (.mdp text) for a protocol, as OpenMM runs it: the same non-bonded treatment
(a plain Lennard-Jones cutoff with the dispersion correction, unshifted PME with OpenMM's Ewald
splitting), Langevin dynamics as `sd` with tau-t = 1/friction, the Monte Carlo barostat as C-rescale,
h-bond constraints and the run's seed. The bundle writes them for users to continue with; the engine
runs mdrun on them (gromacs.py, gromacs_minimise.py) with only their output intervals changed."""

from __future__ import annotations

import math
from collections.abc import Mapping

from polyforge_engine.simulate.protocol import CUTOFF_NM, FRICTION_PER_PS, TIMESTEP_FS, Protocol, Stage, gromacs_seed, stage_seed

# OpenMM's PME default: Ewald error tolerance δ gives α = sqrt(-ln 2δ)/rc; GROMACS sets β from
# erfc(β rc) = ewald-rtol, so the same splitting needs ewald-rtol = erfc(sqrt(-ln 2δ)).
OPENMM_EWALD_TOLERANCE = 5e-4
GROMACS_EWALD_RTOL = math.erfc(math.sqrt(-math.log(2 * OPENMM_EWALD_TOLERANCE)))
# Isothermal compressibility GROMACS's barostat is scaled with (bar⁻¹): of the order of organic
# liquids and polymer melts; it sets how fast the box answers, not where it ends.
COMPRESSIBILITY_PER_BAR = 4.5e-5
TAU_P_PS = 2.0


def _nonbonded_mdp(protocol: Protocol) -> str:
    """OpenMM's treatment: Lennard-Jones cut plainly at the cutoff (no shift, no switch) with the
    long-range dispersion correction, PME real space cut unshifted with OpenMM's splitting."""
    lines = [
        "cutoff-scheme   = Verlet",
        "coulombtype     = PME",
        "coulomb-modifier = None        ; OpenMM does not shift the real-space potential",
        f"rcoulomb        = {CUTOFF_NM}",
        f"ewald-rtol      = {GROMACS_EWALD_RTOL:.3e}   ; OpenMM's Ewald error tolerance {OPENMM_EWALD_TOLERANCE}",
        "vdwtype         = Cut-off",
        "vdw-modifier    = None         ; OpenMM cuts Lennard-Jones plainly (no shift, no switch)",
        f"rvdw            = {CUTOFF_NM}",
        "DispCorr        = EnerPres     ; OpenMM's long-range dispersion correction",
        "constraints     = h-bonds",
    ]
    if protocol.potential_wall_z:
        lines += [
            "; Walls at z = 0 and z = C (the cell height in system.gro). PolyForge used harmonic walls",
            "; (10000 kJ/mol/nm² beyond the cell) in OpenMM; GROMACS's closest built-in is a 10-4 wall.",
            "pbc             = xy",
            "nwall           = 2",
            "wall-type       = 10-4",
            "wall-atomtype   = hc hc",
            "wall-density    = 10 10",
            "ewald-geometry  = 3dc",
            "wall-ewald-zfac = 3",
        ]
    else:
        lines.append("pbc             = xyz")
    return "\n".join(lines) + "\n"


def minimization_mdp(protocol: Protocol) -> str:
    return (
        "; Minimisation as PolyForge ran it (OpenMM L-BFGS; steepest descent is GROMACS's equivalent)\n"
        "integrator      = steep\n"
        f"nsteps          = {protocol.minimization_steps}\n"
        "emtol           = 10.0\n" + _nonbonded_mdp(protocol)
    )


def dynamics_mdp(protocol: Protocol, stage: Stage, number: int | None = None) -> str:
    """GROMACS parameters of one stage: the whole dynamics, or stage `number` of the preset
    (velocities are drawn only at the first; later stages continue from the previous one). Each
    stage's noise has its own seed (stage_seed)."""
    thermostat = stage.ensemble != "NVE"
    seed = gromacs_seed(stage_seed(protocol.seed, number))
    coupling = (
        "integrator      = sd           ; Langevin dynamics, as OpenMM's LangevinMiddleIntegrator\n"
        "tc-grps         = System\n"
        f"tau-t           = {1 / FRICTION_PER_PS}          ; inverse friction (ps)\n"
        f"ref-t           = {stage.temperature_k:g}\n"
        f"ld-seed         = {seed}        ; the run's seed plus the stage's index: the noise is reproducible\n"
        if thermostat
        else "integrator      = md           ; leap-frog, constant energy (NVE)\ntcoupl          = no\n"
    )
    barostat = (
        "pcoupl          = C-rescale    ; stochastic cell rescaling: the NPT ensemble, as OpenMM's Monte Carlo barostat\n"
        "pcoupltype      = isotropic\n"
        f"tau-p           = {TAU_P_PS}\n"
        f"ref-p           = {stage.pressure_bar:g}\n"
        f"compressibility = {COMPRESSIBILITY_PER_BAR}\n"
        if stage.ensemble == "NPT"
        else "pcoupl          = no\n"
    )
    first = number is None or number == 1
    velocities = (
        f"gen-vel         = yes\ngen-temp        = {protocol.temperature_k:g}\ngen-seed        = {seed}\ncontinuation    = no\n"
        if first
        else "gen-vel         = no\ncontinuation    = yes          ; velocities from the previous stage\n"
    )
    heading = (
        f"; Dynamics as PolyForge ran them: {stage.describe()}, {stage.steps} steps\n"
        if number is None
        else f"; Melt equilibration stage {number} of 21 as PolyForge ran it: {stage.describe()}, {stage.steps} steps\n"
    )
    return (
        heading + coupling + barostat + f"dt              = {TIMESTEP_FS / 1000}\n"
        f"nsteps          = {stage.steps}\n"
        "nstxout-compressed = 1000\n"
        "nstenergy       = 100\n" + velocities + _nonbonded_mdp(protocol)
    )


def with_overrides(mdp: str, overrides: Mapping[str, object]) -> str:
    """`mdp` with the keys of `overrides` set to their values (the other lines as they were)."""
    kept = [line for line in mdp.splitlines() if line.split("=")[0].strip() not in overrides]
    return "\n".join(kept + [f"{key:<15s} = {value}" for key, value in overrides.items()]) + "\n"
