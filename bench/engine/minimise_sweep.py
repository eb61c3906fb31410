"""Minimisation over many seeds of dense cells (issue 27): the engine's two-stage minimiser
(simulate/minimise.py) against OpenMM's own minimiser on the constrained system, as the engine ran
it before, on the same built and parametrised cells, one after the other.

For each seed: build the cell (build_structure), parametrise it (GAFF2), then minimise the same
start both ways with the steps asked; record for each: failure (an exception such as 'Particle
coordinate is NaN', or a non-finite energy), iterations actually run (OpenMM's minimiser restarts its
count each time it tightens its restraints), the energy after (constraints applied), wall time.

Run from the repository root (the default is the cell of the report, 10 × PS-60 at 0.8 g/cm³):
    .venv/bin/python bench/engine/minimise_sweep.py --unit PS --length 60 --copies 10 --seeds 1-20
    .venv/bin/python bench/engine/minimise_sweep.py --unit PMMA --length 30 --copies 4 --seeds 1-30
Results: bench/engine/out/minimise_sweep_<cell>.json (one line per seed, written as it goes).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import openmm
from openmm import app, unit

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "engine"))
sys.path.insert(0, str(REPO / "engine" / "tests"))

from conftest import STYRENE, homopolymer_job  # noqa: E402
from polyforge_engine.construct.structure import build_structure  # noqa: E402
from polyforge_engine.job import parse_build_job  # noqa: E402
from polyforge_engine.parametrise.assemble import SystemModel, group_copies, parametrise_system  # noqa: E402
from polyforge_engine.runtime.openmm_cpu import cpu_properties  # noqa: E402
from polyforge_engine.simulate.md import create_system  # noqa: E402
from polyforge_engine.simulate.minimise import minimise  # noqa: E402

UNITS = {"PS": STYRENE, "PMMA": "[*:1]CC([*:2])(C)C(=O)OC", "PE": "[*:1]CC[*:2]"}
OUT = Path(__file__).resolve().parent / "out"


def _energy(system: openmm.System, positions_nm, box) -> float:
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("CPU"), cpu_properties())
    context.setPeriodicBoxVectors(*box)
    context.setPositions(positions_nm)
    context.applyConstraints(1e-5)
    return context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)


def openmm_minimiser(prmtop: Path, inpcrd: Path, steps: int) -> dict[str, object]:
    topology, coordinates = app.AmberPrmtopFile(str(prmtop)), app.AmberInpcrdFile(str(inpcrd))
    box = coordinates.boxVectors.value_in_unit(unit.nanometer)
    system = create_system(topology, (box[0][0], box[1][1], box[2][2]), False)
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("CPU"), cpu_properties())
    context.setPeriodicBoxVectors(*system.getDefaultPeriodicBoxVectors())
    context.setPositions(coordinates.positions)

    class Count(openmm.MinimizationReporter):
        iterations = 0

        def report(self, iteration, x, grad, args):
            self.iterations += 1
            return False

    counter = Count()
    started = time.monotonic()
    try:
        openmm.LocalEnergyMinimizer.minimize(context, 10, steps, counter)
        energy = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
        failure = None if math.isfinite(energy) else "non-finite energy"
    except openmm.OpenMMException as error:
        energy, failure = None, str(error).splitlines()[0]
    return {"failed": failure, "iterations": counter.iterations, "energy_kj_mol": energy, "wall_s": round(time.monotonic() - started, 2)}


def engine_minimiser(prmtop: Path, inpcrd: Path, steps: int) -> dict[str, object]:
    topology, coordinates = app.AmberPrmtopFile(str(prmtop)), app.AmberInpcrdFile(str(inpcrd))
    box = coordinates.boxVectors.value_in_unit(unit.nanometer)
    system = create_system(topology, (box[0][0], box[1][1], box[2][2]), False)
    started = time.monotonic()
    try:
        result = minimise(
            system,
            np.asarray(coordinates.getPositions(asNumpy=True).value_in_unit(unit.nanometer)),
            system.getDefaultPeriodicBoxVectors(),
            steps,
            openmm.Platform.getPlatformByName("CPU"),
            cpu_properties(),
            lambda *_: None,
        )
    except Exception as error:  # what a user would have seen as a failed job
        return {"failed": str(error).splitlines()[0], "wall_s": round(time.monotonic() - started, 2)}
    wall = time.monotonic() - started
    energy = _energy(system, result.positions_nm, system.getDefaultPeriodicBoxVectors())
    return {
        "failed": None if math.isfinite(energy) else "non-finite energy",
        "iterations": result.steps_run,
        "capped_descent_steps": result.capped_descent_steps,
        "lbfgs_steps": result.lbfgs_steps,
        "lbfgs_failed": result.lbfgs_failed,
        "energy_kj_mol": energy,
        "wall_s": round(wall, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--unit", choices=sorted(UNITS), default="PS")
    parser.add_argument("--length", type=int, default=60)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--density", type=float, default=0.8)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seeds", default="1-10", help="a range a-b or a comma list")
    args = parser.parse_args()
    seeds = (
        list(range(int(args.seeds.split("-")[0]), int(args.seeds.split("-")[1]) + 1)) if "-" in args.seeds else [int(seed) for seed in args.seeds.split(",")]
    )
    cell = f"{args.unit}-{args.length}x{args.copies}_d{args.density}"
    OUT.mkdir(parents=True, exist_ok=True)
    results = OUT / f"minimise_sweep_{cell}.json"
    work = OUT / "minimise_sweep" / cell
    for seed in seeds:
        where = work / f"seed_{seed}"
        job = homopolymer_job(UNITS[args.unit], args.length, args.copies, density=args.density, seed=seed)
        built = build_structure(parse_build_job(job), where / "build", lambda *_: None)
        grouped = group_copies([built.molecule(index) for index in range(len(built.molecule_kinds))])
        system = SystemModel(grouped.kinds, grouped.copies, np.asarray(built.box, dtype=float))
        files = parametrise_system(system, "gaff2", where / "topology", lambda *_: None).files
        row = {
            "cell": cell,
            "seed": seed,
            "atoms": sum(len(copy.coordinates) for copy in grouped.copies),
            "steps_asked": args.steps,
            "openmm_minimiser": openmm_minimiser(files.amber_prmtop, files.amber_inpcrd, args.steps),
            "engine_minimiser": engine_minimiser(files.amber_prmtop, files.amber_inpcrd, args.steps),
        }
        print(json.dumps(row), flush=True)
        with results.open("a") as handle:
            handle.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
