"""The results bundle `{sanitized_name}_files.zip` (ARCHITECTURE §6): every file a chemist takes
home, a README that explains each of them and how to continue in GROMACS, Amber or OpenMM, input
files reproducing the protocol for those programs, and report.json."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

from polyforge_engine.simulate.md import CUTOFF_NM, FRICTION_PER_PS, TIMESTEP_FS, Protocol

# What each file in a bundle is; the README lists the ones present, in this order.
FILE_DESCRIPTIONS: dict[str, str] = {
    "job.json": "The input snapshot: exactly what the engine was asked to build and simulate.",
    "report.json": "Summary of the run: charges, energies before and after minimisation, final temperature, the random seed used "
    "and the versions of every tool.",
    "structure.sdf": "The converted structure with its bond orders (MDL SD file).",
    "system.pdb": "The system's structure before minimisation (PDB; atom order matches the topologies).",
    "system.gro": "The same structure in GROMACS format (nm), with the cell.",
    "system.top": "GROMACS topology: force-field defaults, GAFF atom types and the molecule counts; includes molecules.itp.",
    "molecules.itp": "GROMACS molecule types: atoms with charges, bonds, pairs, angles and dihedrals.",
    "system.prmtop": "Amber topology of the whole system (GAFF/GAFF2 parameters, AM1-BCC charges).",
    "system.inpcrd": "Amber coordinates and cell matching system.prmtop.",
    "minimization.mdp": "GROMACS run parameters for the minimisation step of the protocol.",
    "md.mdp": "GROMACS run parameters reproducing the dynamics of the protocol.",
    "md.in": "Amber (sander/pmemd) input reproducing the dynamics of the protocol.",
    "minimized.pdb": "Structure after energy minimisation.",
    "final.pdb": "Structure at the end of the run (after dynamics, or after minimisation if there were no dynamics).",
    "trajectory.dcd": "Trajectory frames of the dynamics (DCD, readable by VMD, MDAnalysis, MDTraj, cpptraj).",
    "energies.csv": "Energies over time: time (ps), potential, kinetic and total energy (kJ/mol), temperature (K), density of the cell (g/cm³).",
    "simulation.log": "What OpenMM did, step by step, with the energies it found.",
}


@dataclass(frozen=True)
class BundleFile:
    name: str  # name inside the zip, a key of FILE_DESCRIPTIONS
    path: Path


def write_bundle(
    workdir: Path,
    sanitized_name: str,
    title: str,
    files: list[BundleFile],
    report: dict[str, object],
    protocol: Protocol,
    periodic: bool,
) -> Path:
    """Write `{sanitized_name}_files.zip` into `workdir` under a temporary name and rename it
    at the end, so a cancelled or failed run never leaves a half-written bundle."""
    extras = _protocol_inputs(workdir, protocol)
    report_path = workdir / "report.json"
    report_path.write_text(json.dumps(report, indent=2, default=str) + "\n")
    entries = [*files, *extras, BundleFile("report.json", report_path)]
    readme = _readme(title, [entry.name for entry in entries], protocol, periodic)
    target = workdir / f"{sanitized_name}_files.zip"
    partial = workdir / f".{target.name}.partial"
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.md", readme)
        for entry in entries:
            archive.write(entry.path, entry.name)
    partial.replace(target)
    return target


def _protocol_inputs(workdir: Path, protocol: Protocol) -> list[BundleFile]:
    written = []
    if protocol.minimization_steps > 0:
        path = workdir / "minimization.mdp"
        path.write_text(minimization_mdp(protocol))
        written.append(BundleFile("minimization.mdp", path))
    if protocol.dynamics_steps > 0:
        for name, text in (("md.mdp", dynamics_mdp(protocol)), ("md.in", amber_input(protocol))):
            path = workdir / name
            path.write_text(text)
            written.append(BundleFile(name, path))
    return written


def _nonbonded_mdp(protocol: Protocol) -> str:
    lines = [
        "cutoff-scheme   = Verlet",
        "coulombtype     = PME",
        f"rcoulomb        = {CUTOFF_NM}",
        f"rvdw            = {CUTOFF_NM}",
        "DispCorr        = EnerPres     ; OpenMM's PME default: long-range dispersion correction",
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


def dynamics_mdp(protocol: Protocol) -> str:
    nvt = protocol.ensemble == "NVT"
    coupling = (
        "integrator      = sd           ; Langevin dynamics, as OpenMM's LangevinMiddleIntegrator\n"
        "tc-grps         = System\n"
        f"tau-t           = {1 / FRICTION_PER_PS}          ; inverse friction (ps)\n"
        f"ref-t           = {protocol.temperature_k}\n"
        if nvt
        else "integrator      = md           ; leap-frog, constant energy (NVE)\ntcoupl          = no\n"
    )
    return (
        f"; Dynamics as PolyForge ran them: {protocol.ensemble}, {protocol.dynamics_steps} steps at {protocol.temperature_k} K\n"
        + coupling
        + f"dt              = {TIMESTEP_FS / 1000}\n"
        f"nsteps          = {protocol.dynamics_steps}\n"
        "nstxout-compressed = 1000\n"
        "nstenergy       = 100\n"
        "pcoupl          = no\n"
        "gen-vel         = yes\n"
        f"gen-temp        = {protocol.temperature_k}\n"
        f"gen-seed        = {protocol.seed}\n" + _nonbonded_mdp(protocol)
    )


def amber_input(protocol: Protocol) -> str:
    thermostat = (
        f"ntt=3, gamma_ln={FRICTION_PER_PS}, temp0={protocol.temperature_k},"
        if protocol.ensemble == "NVT"
        else "ntt=0,"
    )
    return (
        f"PolyForge protocol: {protocol.ensemble} dynamics, {protocol.dynamics_steps} steps\n"
        " &cntrl\n"
        f"  imin=0, irest=0, ntx=1, nstlim={protocol.dynamics_steps}, dt={TIMESTEP_FS / 1000},\n"
        f"  ntc=2, ntf=2, cut={CUTOFF_NM * 10}, ntb=1, ntp=0,\n"
        f"  {thermostat} tempi={protocol.temperature_k}, ig={protocol.seed},\n"
        "  ntpr=100, ntwx=1000,\n"
        " /\n"
    )


def _readme(title: str, names: list[str], protocol: Protocol, periodic: bool) -> str:
    present = set(names) | {"README.md"}
    listed = "\n".join(f"- `{name}` — {FILE_DESCRIPTIONS[name]}" for name in FILE_DESCRIPTIONS if name in present)
    sections = [
        f"# {title}\n",
        "Files produced by PolyForge. Force field: GAFF/GAFF2 atom types from antechamber, AM1-BCC charges "
        "(computed per unit on hydrogen-capped fragments for polymers, then made to sum to the exact net charge), "
        "missing terms from parmchk2, topology assembled by tleap and converted with ParmEd.\n",
        "## Files\n",
        "- `README.md` — this file.",
        listed + "\n",
    ]
    sections.append(
        "## The protocol that was run\n\n"
        + (
            f"OpenMM, PME electrostatics with a {CUTOFF_NM} nm cutoff"
            if periodic
            else "OpenMM, isolated molecules (no cutoff)"
        )
        + ", bonds to hydrogen constrained, "
        f"{TIMESTEP_FS} fs time step, random seed {protocol.seed}. Minimisation: "
        + (f"{protocol.minimization_steps} steps. " if protocol.minimization_steps else "none. ")
        + (
            f"Dynamics: {protocol.dynamics_steps} steps, {protocol.ensemble} "
            + (
                f"(Langevin middle integrator, friction {FRICTION_PER_PS}/ps)"
                if protocol.ensemble == "NVT"
                else "(Verlet, velocities drawn at the temperature)"
            )
            + f" at {protocol.temperature_k} K."
            if protocol.dynamics_steps
            else "Dynamics: none."
        )
        + (
            " Walls keep atoms between z = 0 and the cell's C; the OpenMM box adds a 2 nm vacuum gap above the cell."
            if protocol.potential_wall_z
            else ""
        )
        + "\n"
    )
    start = "final.pdb" if "final.pdb" in present else "system.pdb"
    mdp = next((name for name in ("md.mdp", "minimization.mdp") if name in present), "your_run.mdp")
    nonbonded = "app.PME, nonbondedCutoff=1.0*unit.nanometer" if periodic else "app.NoCutoff"
    sections.append(
        "## Continue in GROMACS\n\n"
        "```\n"
        f"gmx grompp -f {mdp} -c system.gro -p system.top -o run.tpr\n"
        "gmx mdrun -deffnm run\n"
        "```\n"
        f"To start from `{start}` instead, convert it first: `gmx editconf -f {start} -o start.gro` and pass "
        "`-c start.gro` (keep the cell of system.gro).\n\n"
        "## Continue in Amber\n\n"
        + (
            "```\npmemd -O -i md.in -p system.prmtop -c system.inpcrd -o md.out -r md.rst7 -x md.nc\n```\n"
            "(`sander` takes the same arguments.)\n\n"
            if "md.in" in present
            else "`system.prmtop` and `system.inpcrd` are ready for `sander` or `pmemd` with an input file of your own.\n\n"
        )
        + "## Continue in OpenMM\n\n"
        "```python\n"
        "from openmm import app, unit, LangevinMiddleIntegrator\n"
        "prmtop = app.AmberPrmtopFile('system.prmtop')\n"
        f"pdb = app.PDBFile('{start}')\n"
        f"system = prmtop.createSystem(nonbondedMethod={nonbonded}, constraints=app.HBonds)\n"
        f"integrator = LangevinMiddleIntegrator({protocol.temperature_k}*unit.kelvin, {FRICTION_PER_PS}/unit.picosecond, "
        f"{TIMESTEP_FS / 1000}*unit.picoseconds)\n"
        "simulation = app.Simulation(prmtop.topology, system, integrator)\n"
        "simulation.context.setPositions(pdb.positions)\n"
        + (
            "simulation.context.setPeriodicBoxVectors(*app.AmberInpcrdFile('system.inpcrd').boxVectors)\n"
            if periodic
            else ""
        )
        + "simulation.step(1000)\n"
        "```\n"
    )
    return "\n".join(sections)
