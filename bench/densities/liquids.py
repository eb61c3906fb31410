"""NPT densities of a small-molecule liquid (or an oligomer melt) on the engine's own path against a
plain OpenMM setup, on one start and one topology.

The liquid: `--molecules` copies of one unit (`--unit`, markers [*:1] and [*:2], capped with H and
`--tail-cap`) parametrised by the engine (GAFF2, AM1-BCC), on a lattice, minimised and squeezed by a
plain OpenMM NPT at 3000 bar, then 5 ps at 1 bar: the start of every route. Routes (`--routes`):
- `plain`: AmberPrmtopFile.createSystem (PME, 10 Å, its default long-range dispersion correction,
  bonds to H constrained), Langevin 1/ps, Monte Carlo barostat 1 bar every 25 steps; no engine code.
- `openmm`, `gromacs`: the engine's run_protocol (NPT, 1 bar, no minimisation) with
  POLYFORGE_MD_ENGINE set to the route.
- `gromacs-nodispcorr`: as `gromacs` with mdrun's DispCorr switched off: what losing the
  dispersion correction costs.
Density: the mean of the second half of the run. Figures: bench/README.md, "NPT densities".

  POLYFORGE_ENGINE_THREADS=1 .venv/bin/python bench/densities/liquids.py --unit '[*:1]CC(c1ccccc1)[*:2]' \
      --molecules 125 --box-nm 4.0 --ps 40 --out /tmp/dens/ethylbenzene
  ... --unit '[*:1]C(C)(C)C(=O)O[*:2]' --tail-cap C --molecules 125 --ps 40 --routes gromacs --out /tmp/dens/mib
  ... --unit '[*:1]CC(c1ccccc1)[*:2]' --units 10 --molecules 8 --box-nm 5.0 --temperature 500 --out /tmp/dens/ps10
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
AMU_PER_A3_TO_G_CM3 = 1.66053906660


def parametrised_lattice(unit: str, units: int, tail_cap: str, molecules: int, box_nm: float, out: Path) -> Path:
    """The engine's topology of the lattice; returns its directory."""
    sys.path.insert(0, str(ROOT / "engine" / "tests"))
    from polyforge_engine.parametrise.assemble import SystemModel, group_copies, parametrise_system
    from polymer_samples import linear_polymer, packed_copies

    copies, box = packed_copies(linear_polymer(unit, units, "LIQ", tail_cap=tail_cap), molecules, box_nm)
    grouped = group_copies(copies)
    parametrise_system(SystemModel(grouped.kinds, grouped.copies, box), "gaff2", out / "params", lambda *_: None)
    return out / "params"


def plain_simulation(params: Path, temperature_k: float, pressure_bar: float, barostat_every: int, seed: int) -> tuple[Any, float]:
    import openmm
    from openmm import app, unit

    topology, coordinates = app.AmberPrmtopFile(str(params / "system.prmtop")), app.AmberInpcrdFile(str(params / "system.inpcrd"))
    system = topology.createSystem(nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer, constraints=app.HBonds)
    system.setDefaultPeriodicBoxVectors(*coordinates.boxVectors)
    system.addForce(openmm.MonteCarloBarostat(pressure_bar * unit.bar, temperature_k * unit.kelvin, barostat_every))
    integrator = openmm.LangevinMiddleIntegrator(temperature_k * unit.kelvin, 1 / unit.picosecond, 2 * unit.femtosecond)
    integrator.setRandomNumberSeed(seed)
    simulation = app.Simulation(topology.topology, system, integrator, openmm.Platform.getPlatformByName("CPU"), {"Threads": "1"})
    simulation.context.setPositions(coordinates.positions)
    simulation.context.setVelocitiesToTemperature(temperature_k * unit.kelvin, seed)
    mass = sum(system.getParticleMass(i).value_in_unit(unit.dalton) for i in range(system.getNumParticles()))
    return simulation, mass


def density(simulation: Any, mass: float) -> float:
    from openmm import unit

    return mass * AMU_PER_A3_TO_G_CM3 / simulation.context.getState().getPeriodicBoxVolume().value_in_unit(unit.angstrom**3)


def squeezed_start(params: Path, temperature_k: float, out: Path) -> Path:
    """The lattice squeezed at 3000 bar (10 ps), then 5 ps at 1 bar: start.inpcrd beside the topology."""
    import openmm
    import parmed
    from openmm import unit

    simulation, mass = plain_simulation(params, temperature_k, 3000.0, 10, 3)
    simulation.minimizeEnergy(maxIterations=500)
    simulation.step(5000)
    simulation.context.setParameter(openmm.MonteCarloBarostat.Pressure(), 1.0)
    simulation.step(2500)
    print(f"start: {density(simulation, mass):.4f} g/cm³", flush=True)
    state = simulation.context.getState(getPositions=True)
    structure = parmed.load_file(str(params / "system.prmtop"), str(params / "system.inpcrd"))
    structure.coordinates = state.getPositions(asNumpy=True).value_in_unit(unit.angstrom)
    structure.box = [*np.diag(state.getPeriodicBoxVectors(asNumpy=True).value_in_unit(unit.angstrom)), 90.0, 90.0, 90.0]
    start = out / "start.inpcrd"
    structure.save(str(start), format="rst7", overwrite=True)
    return start


def plain_route(params: Path, start: Path, temperature_k: float, steps: int) -> list[float]:
    from openmm import app

    simulation, mass = plain_simulation(params, temperature_k, 1.0, 25, 11)
    coordinates = app.AmberInpcrdFile(str(start))
    simulation.context.setPeriodicBoxVectors(*coordinates.boxVectors)
    simulation.context.setPositions(coordinates.positions)
    values = []
    for _ in range(steps // 200):
        simulation.step(200)
        values.append(density(simulation, mass))
    return values


def engine_route(params: Path, start: Path, temperature_k: float, steps: int, route: str, out: Path) -> list[float]:
    import polyforge_engine.simulate.mdp as mdp
    from polyforge_engine.simulate.protocol import Protocol
    from polyforge_engine.simulate.run import run_protocol

    os.environ["POLYFORGE_MD_ENGINE"] = route.split("-")[0]
    original = mdp._nonbonded_mdp
    if route == "gromacs-nodispcorr":
        mdp._nonbonded_mdp = lambda protocol: original(protocol).replace("DispCorr        = EnerPres", "DispCorr        = no")
    try:
        workdir = out / route
        workdir.mkdir(parents=True, exist_ok=True)
        protocol = Protocol(0, steps, temperature_k, "NPT", seed=7)
        _, files = run_protocol(params / "system.prmtop", start, protocol, workdir, lambda *_: None, gromacs_top=params / "system.top")
    finally:
        mdp._nonbonded_mdp = original
    return list(np.loadtxt(files.energies_csv, delimiter=",", skiprows=1)[1:, 5])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--unit", required=True)
    parser.add_argument("--units", type=int, default=1)
    parser.add_argument("--tail-cap", default="[H]")
    parser.add_argument("--molecules", type=int, default=125)
    parser.add_argument("--box-nm", type=float, default=4.0)
    parser.add_argument("--temperature", type=float, default=298.0)
    parser.add_argument("--ps", type=float, default=40.0)
    parser.add_argument("--routes", default="plain,openmm,gromacs")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    params = parametrised_lattice(args.unit, args.units, args.tail_cap, args.molecules, args.box_nm, args.out)
    start = squeezed_start(params, args.temperature, args.out)
    steps = int(args.ps * 500)
    results = {}
    for route in args.routes.split(","):
        values = (
            plain_route(params, start, args.temperature, steps) if route == "plain" else engine_route(params, start, args.temperature, steps, route, args.out)
        )
        half = np.array(values[len(values) // 2 :])
        results[route] = {"mean_second_half": round(float(half.mean()), 4), "sd": round(float(half.std()), 4), "samples": len(half)}
        print(route, results[route], flush=True)
    (args.out / "result.json").write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "routes": results}, indent=2))


if __name__ == "__main__":
    main()
