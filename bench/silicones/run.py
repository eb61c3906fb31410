"""Silicones against experiment: liquid densities of PDMS and D5 after NPT, two routes.

- `product`: a PDMS melt through the engine's whole `build-system` (build, GAFF2 + siloxane
  parameters, minimisation, the product's NPT protocol); density from its report.json.
- `independent`: the same parameters (the engine's system.prmtop) run by this script's own OpenMM
  NPT, none of the engine's simulate/ code: Langevin 298.15 K, Monte Carlo barostat 1 bar, PME,
  10 Å cutoff with the long-range dispersion correction, 2 fs with bonds to H constrained. For PDMS
  the engine's built and minimised melt; for D5 a cubic lattice of randomly turned molecules
  parametrised by the engine's parametrise_system.

Usage (niced, one thread):
  POLYFORGE_ENGINE_THREADS=1 nice -n 10 .venv/bin/python bench/silicones/run.py product --units 30 --chains 6 --ps 300 --out /tmp/si/product
  POLYFORGE_ENGINE_THREADS=1 nice -n 10 .venv/bin/python bench/silicones/run.py independent-pdms --units 30 --chains 6 --ps 300 --out /tmp/si/pdms
  POLYFORGE_ENGINE_THREADS=1 nice -n 10 .venv/bin/python bench/silicones/run.py independent-d5 --molecules 40 --ps 200 --out /tmp/si/d5
  ... independent-liquid --smiles 'C[Si](C)(C)O[Si](C)(C)C' --molecules 64 --ps 200 --out /tmp/si/mm   # any liquid
  ... summarise --out /tmp/si/pdms     # the statistics of a run stopped early, from its density.csv
Each writes result.json in --out. Figures and sources: bench/README.md, "Silicones"."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
PDMS_UNIT = "[*:1][Si](C)(C)O[*:2]"
# Trimethylsiloxy ends, as in the silicone fluids whose densities are compared: the head cap is a
# methyl on the last unit's silicon, the tail cap a trimethylsilyl on the first unit's oxygen.
PDMS_HEAD, PDMS_TAIL = "[*:2]C", "[*:1][Si](C)(C)C"
D5_SMILES = "C[Si]1(C)O[Si](C)(C)O[Si](C)(C)O[Si](C)(C)O[Si](C)(C)O1"
AMU_PER_A3_TO_G_CM3 = 1.66053906660
# A diagnostic, not the product's charges: COMPASS's bond increments (charge moved to the first
# element of each bonded pair, e): Si-O from Sun & Rigby, Spectrochim. Acta A 1997, 53, 1301;
# Si-C, Si-H and C-H from COMPASS (Sun, J. Phys. Chem. B 1998, 102, 7338), as moltemplate's
# compass_published.frc lists them.
COMPASS_INCREMENTS = {(14, 8): 0.2225, (14, 6): 0.135, (14, 1): 0.126, (1, 6): 0.053}


def pdms_job(units: int, chains: int, density: float, steps: int, equilibration: str) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "engine" / "tests"))
    from conftest import job, linear_block, polymer, segment

    block = linear_block("PDMS", PDMS_UNIT, PDMS_HEAD, PDMS_TAIL)
    seg = segment("linear_block", [(block, units)])
    built = job([block], [seg], [(polymer(f"PDMS-{units}", [seg]), chains)], density=density, seed=11)
    built["simulation_protocol"].update(
        minimization_steps=2000,
        dynamics=steps > 0,
        dynamics_steps=steps or None,
        temperature=298.15 if steps else None,
        ensemble="NPT" if steps else None,
        pressure=1.0 if steps else None,
        equilibration=equilibration,
    )
    return built


def run_build_system(job: dict[str, Any], out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "job.json").write_text(json.dumps(job))
    with (out / "engine.log").open("w") as log:
        code = subprocess.call(
            [str(PYTHON), "-m", "polyforge_engine", "build-system", "--input", str(out / "job.json"), "--workdir", str(out)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    if code != 0:
        raise SystemExit(f"build-system failed: {(out / 'engine.log').read_text()[-2000:]}")
    return json.loads((out / "report.json").read_text())


def liquid_lattice(smiles: str, molecules: int, density: float, out: Path) -> Path:
    """Molecules on a cubic lattice at `density`, each turned at random, parametrised by the engine."""
    from polyforge_engine.parametrise.assemble import MoleculeCopy, SystemModel, group_copies, parametrise_system
    from rdkit import Chem
    from rdkit.Chem import AllChem, Descriptors
    from scipy.spatial.transform import Rotation

    mol = Chem.AddHs(Chem.MolFromSmiles(smiles))
    AllChem.EmbedMolecule(mol, randomSeed=5)
    AllChem.MMFFOptimizeMolecule(mol)
    kind = group_copies([mol])
    xyz = kind.kinds[0].GetConformer().GetPositions()
    xyz -= xyz.mean(axis=0)
    side = (molecules * Descriptors.MolWt(mol) * AMU_PER_A3_TO_G_CM3 / density) ** (1 / 3)  # Å
    per_side = int(np.ceil(molecules ** (1 / 3)))
    spacing = side / per_side
    rotations = Rotation.random(molecules, random_state=3)
    copies = [
        MoleculeCopy(0, rotations[number].apply(xyz) + (np.array(np.unravel_index(number, (per_side,) * 3)) + 0.5) * spacing) for number in range(molecules)
    ]
    system = SystemModel(kind.kinds, copies, np.array([side] * 3))
    parametrise_system(system, "gaff2", out / "topology", lambda *_: None, ["liquid"], f"{smiles} liquid")
    return out / "topology"


def with_bond_increment_charges(prmtop: Path, increments: dict[tuple[int, int], float]) -> Path:
    """A copy of `prmtop` whose charges are sums of bond increments (every other term kept)."""
    import parmed

    structure = parmed.load_file(str(prmtop))
    for atom in structure.atoms:
        atom.charge = 0.0
    for bond in structure.bonds:
        pair = (bond.atom1.element, bond.atom2.element)
        if pair in increments:
            bond.atom1.charge += increments[pair]
            bond.atom2.charge -= increments[pair]
        elif pair[::-1] in increments:
            bond.atom2.charge += increments[pair[::-1]]
            bond.atom1.charge -= increments[pair[::-1]]
    assert abs(sum(atom.charge for atom in structure.atoms)) < 1e-6
    target = prmtop.with_name("system_increments.prmtop")
    structure.save(str(target), overwrite=True)
    return target


def restart_file(prmtop: Path, pdb: Path, out: Path) -> Path:
    """An Amber restart of a PDB's coordinates and cell for `prmtop`'s atoms."""
    import parmed

    structure = parmed.load_file(str(prmtop))
    final = parmed.load_file(str(pdb))
    structure.coordinates, structure.box = final.coordinates, final.box
    target = out / "start.rst7"
    structure.save(str(target), format="rst7", overwrite=True)
    return target


def openmm_npt(prmtop: Path, inpcrd: Path, picoseconds: float, out: Path, temperature_k: float = 298.15) -> dict[str, Any]:
    """Minimise, then NPT; the density every ps, averaged over the second half (standard error from
    five blocks)."""
    import openmm
    from openmm import app, unit

    amber = app.AmberPrmtopFile(str(prmtop))
    coordinates = app.AmberInpcrdFile(str(inpcrd))
    system = amber.createSystem(nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer, constraints=app.HBonds)
    nonbonded = next(force for force in system.getForces() if isinstance(force, openmm.NonbondedForce))
    assert nonbonded.getUseDispersionCorrection()
    system.addForce(openmm.MonteCarloBarostat(1.0 * unit.bar, temperature_k * unit.kelvin, 25))
    integrator = openmm.LangevinMiddleIntegrator(temperature_k * unit.kelvin, 1.0 / unit.picosecond, 2.0 * unit.femtosecond)
    integrator.setRandomNumberSeed(17)
    platform = openmm.Platform.getPlatformByName("CPU")
    simulation = app.Simulation(amber.topology, system, integrator, platform, {"Threads": "1"})
    simulation.context.setPositions(coordinates.positions)
    simulation.context.setPeriodicBoxVectors(*coordinates.boxVectors)
    simulation.minimizeEnergy(maxIterations=2000)
    simulation.context.setVelocitiesToTemperature(temperature_k * unit.kelvin, 23)
    mass = sum(system.getParticleMass(i).value_in_unit(unit.dalton) for i in range(system.getNumParticles()))
    densities = []
    started = time.monotonic()
    with (out / "density.csv").open("w") as table:
        table.write("time_ps,density_g_cm3\n")
        for picosecond in range(1, int(picoseconds) + 1):
            simulation.step(500)
            box = simulation.context.getState().getPeriodicBoxVectors(asNumpy=True).value_in_unit(unit.angstrom)
            density = mass / float(np.linalg.det(box)) * AMU_PER_A3_TO_G_CM3
            densities.append(density)
            table.write(f"{picosecond},{density:.5f}\n")
            table.flush()
    final = simulation.context.getState(getPositions=True, enforcePeriodicBox=False)
    with (out / "final.pdb").open("w") as handle:
        app.PDBFile.writeFile(simulation.topology, final.getPositions(), handle)
    return {
        **density_statistics(densities),
        "atoms": system.getNumParticles(),
        "wall_s": round(time.monotonic() - started, 1),
        "openmm": openmm.__version__,
    }


def density_statistics(densities: list[float]) -> dict[str, Any]:
    """Mean over the second half of a run sampled every ps, its standard error from five blocks,
    and the drift between the second half's first and last fifths."""
    second_half = np.array(densities[len(densities) // 2 :])
    blocks = np.array([block.mean() for block in np.array_split(second_half, 5)])
    return {
        "density_g_cm3": round(float(second_half.mean()), 4),
        "standard_error": round(float(blocks.std(ddof=1) / np.sqrt(len(blocks))), 4),
        "drift_over_second_half": round(float(blocks[-1] - blocks[0]), 4),
        "picoseconds": len(densities),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("route", choices=["product", "independent-pdms", "independent-d5", "independent-liquid", "independent-from", "summarise"])
    parser.add_argument("--start", type=Path, help="independent-from: a product run's directory; its topology and final structure")
    parser.add_argument("--smiles", default=D5_SMILES, help="independent-liquid: the molecule")
    parser.add_argument("--units", type=int, default=30)
    parser.add_argument("--chains", type=int, default=6)
    parser.add_argument("--molecules", type=int, default=40)
    parser.add_argument("--ps", type=float, default=300)
    parser.add_argument("--equilibration", default="melt_21_step", choices=["none", "melt_21_step"])
    parser.add_argument("--charges", default="am1bcc", choices=["am1bcc", "compass-increments"], help="compass-increments: a diagnostic")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.route == "product":
        report = run_build_system(pdms_job(args.units, args.chains, 0.9, int(args.ps * 500), args.equilibration), args.out)
        result = {"route": "product", "properties": report.get("properties"), "performance": report.get("performance"), "platform": report.get("platform")}
    elif args.route == "independent-pdms":
        report = run_build_system(pdms_job(args.units, args.chains, 0.9, 0, "none"), args.out / "built")
        topology = args.out / "built" / "topology"
        result = {
            "route": "independent-pdms",
            "units": args.units,
            "chains": args.chains,
            **openmm_npt(topology / "system.prmtop", topology / "system.inpcrd", args.ps, args.out),
        }
    elif args.route == "independent-from":  # the product's topology and final structure, the script's NPT
        start = restart_file(args.start / "topology" / "system.prmtop", args.start / "simulation" / "final.pdb", args.out)
        result = {"route": args.route, "start": str(args.start), **openmm_npt(args.start / "topology" / "system.prmtop", start, args.ps, args.out)}
    elif args.route == "summarise":  # a run stopped early: its density.csv so far
        table = np.loadtxt(args.out / "density.csv", delimiter=",", skiprows=1)
        result = {"route": "summarised from density.csv", **density_statistics(list(table[:, 1]))}
    else:
        topology = liquid_lattice(args.smiles, args.molecules, 0.6, args.out)
        prmtop = topology / "system.prmtop"
        if args.charges != "am1bcc":
            prmtop = with_bond_increment_charges(prmtop, COMPASS_INCREMENTS)
        run = openmm_npt(prmtop, topology / "system.inpcrd", args.ps, args.out)
        result = {"route": args.route, "smiles": args.smiles, "molecules": args.molecules, "charges": args.charges, **run}
    (args.out / "result.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
