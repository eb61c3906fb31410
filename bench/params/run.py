"""Benchmarks of the engine's parametrisation and simulation (bench/README.md, section
"Parametrisation and simulation").

1. AM1-BCC charging of PE-n (n = 10, 50, 200, 1000): PolyForge's per-unit fragments against one
   whole-molecule antechamber run (the peer), same sqm settings, the peer capped at 30 minutes.
2. OpenMM CPU speed (ns/day) for ~10 k and ~100 k atom PE melts, with the default single thread
   (bit-for-bit reproducible) and with two threads.

Run from the repository root:  .venv/bin/python bench/params/run.py  (results: bench/params/out/).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import openmm
import parmed
from openmm import app, unit
from rdkit import Chem

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "engine"))
sys.path.insert(0, str(REPO / "engine" / "tests"))

from polyforge_engine.parametrise.antechamber import _SQM_KEYWORDS  # noqa: E402
from polyforge_engine.parametrise.assemble import MoleculeCopy, SystemModel, group_copies, parametrise_system  # noqa: E402
from polyforge_engine.parametrise.charges import FragmentCache, charge_molecule  # noqa: E402
from polyforge_engine.versions import find_tool, tool_versions  # noqa: E402
from polymer_samples import PE_UNIT, linear_polymer, melt  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
PEER_CAP_SECONDS = 30 * 60
CHAIN_LENGTHS = (10, 50, 200, 1000)


def pe_chain(units: int) -> Chem.Mol:
    """PE-n with one residue per unit. Up to 200 units the chain gets an ETKDG conformer (the
    peer's sqm needs real geometry); beyond, atoms are simply spaced along x (RDKit's 2D layout
    of a 6,000-atom chain takes ~10 minutes), which the fragment path does not use: it builds
    its own fragment conformers."""
    if units <= 200:
        return group_copies([linear_polymer(PE_UNIT, units, "PE")]).kinds[0]
    chain = Chem.AddHs(Chem.MolFromSmiles("C" * (2 * units)))
    for atom in chain.GetAtoms():
        owner = atom if atom.GetAtomicNum() == 6 else atom.GetNeighbors()[0]
        atom.SetMonomerInfo(Chem.AtomPDBResidueInfo("X", residueName="PE", residueNumber=owner.GetIdx() // 2 + 1))
    conformer = Chem.Conformer(chain.GetNumAtoms())
    for index in range(chain.GetNumAtoms()):
        conformer.SetAtomPosition(index, (float(index), 0.0, 0.0))
    chain.AddConformer(conformer)
    return group_copies([chain]).kinds[0]


def fragment_charging(chain: Chem.Mol, workdir: Path) -> dict[str, float]:
    """Charging alone (what the peer does), then the whole parametrisation of the chain as the
    engine runs it: charging, parmchk2, tleap, GROMACS and Amber export."""
    cache = FragmentCache("gaff2", workdir / "charging")
    start = time.perf_counter()
    charged = charge_molecule(chain, cache, "PE", whole_molecule_max_atoms=0)
    charging_seconds = time.perf_counter() - start
    system = SystemModel([chain], [MoleculeCopy(0, chain.GetConformer().GetPositions())], None)
    start = time.perf_counter()
    parametrise_system(system, "gaff2", workdir / "full", lambda stage, percent: None)
    return {
        "seconds": charging_seconds,
        "antechamber_runs": cache.antechamber_runs,
        "total_charge": float(charged.charges.sum()),
        "full_parametrisation_seconds": time.perf_counter() - start,
    }


def whole_molecule_peer(chain: Chem.Mol, workdir: Path) -> dict[str, float | str]:
    workdir.mkdir(parents=True, exist_ok=True)
    Chem.MolToPDBFile(chain, str(workdir / "chain.pdb"))  # MDL files stop at 999 atoms
    command = [
        str(find_tool("antechamber")), "-i", "chain.pdb", "-fi", "pdb", "-o", "chain.mol2", "-fo", "mol2",
        "-c", "bcc", "-at", "gaff2", "-nc", "0", "-s", "0", "-pf", "y", "-ek", _SQM_KEYWORDS,
    ]  # fmt: skip
    start = time.perf_counter()
    try:
        subprocess.run(
            command,
            cwd=workdir,
            capture_output=True,
            timeout=PEER_CAP_SECONDS,
            check=True,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
    except subprocess.TimeoutExpired:
        return {"seconds": float("nan"), "status": f"did not finish within {PEER_CAP_SECONDS // 60} min"}
    except subprocess.CalledProcessError as exc:
        return {"seconds": time.perf_counter() - start, "status": f"failed: {exc.stderr.decode()[-200:]}"}
    return {"seconds": time.perf_counter() - start, "status": "ok"}


def charging_benchmark(scratch: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    peer_timed_out = False
    for units in CHAIN_LENGTHS:
        chain = pe_chain(units)
        row: dict[str, object] = {"chain": f"PE-{units}", "atoms": chain.GetNumAtoms()}
        row["fragments"] = fragment_charging(chain, scratch / f"fragments_{units}")
        if peer_timed_out:
            row["whole_molecule"] = {
                "seconds": float("nan"),
                "status": "skipped: a shorter chain already exceeded the cap",
            }
        else:
            row["whole_molecule"] = whole_molecule_peer(chain, scratch / f"whole_{units}")
            peer_timed_out = str(row["whole_molecule"]["status"]).startswith("did not finish")
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def tiled_melt(base: parmed.Structure, replicas: tuple[int, int, int]) -> parmed.Structure:
    """`base` (a periodic cell) repeated on a grid of replicas, box enlarged to match."""
    nx, ny, nz = replicas
    count = nx * ny * nz
    tiled = base * count
    a, b, c = base.box[:3]
    offsets = np.array([[i * a, j * b, k * c] for i in range(nx) for j in range(ny) for k in range(nz)])
    xyz = np.asarray(base.coordinates)
    tiled.coordinates = np.concatenate([xyz + offset for offset in offsets])
    tiled.box = [nx * a, ny * b, nz * c, 90.0, 90.0, 90.0]
    return tiled


def ns_per_day(structure: parmed.Structure, threads: str, steps: int) -> float:
    system = structure.createSystem(nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer, constraints=app.HBonds)
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 5 / unit.picosecond, 2 * unit.femtoseconds)
    platform = openmm.Platform.getPlatformByName("CPU")
    simulation = app.Simulation(structure.topology, system, integrator, platform, {"Threads": threads})
    simulation.context.setPositions(structure.positions)
    simulation.context.setPeriodicBoxVectors(*structure.box_vectors)
    simulation.minimizeEnergy(maxIterations=200)
    simulation.context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
    simulation.step(20)  # warm-up: neighbour lists, FFT plans
    start = time.perf_counter()
    simulation.step(steps)
    elapsed = time.perf_counter() - start
    return steps * 2e-6 / elapsed * 86400  # 2 fs steps -> ns, per day


def md_benchmark(scratch: Path) -> list[dict[str, object]]:
    base_system = melt(PE_UNIT, 10, "PE", 8, 3.0)
    base = parametrise_system(base_system, "gaff2", scratch / "md_base", lambda stage, percent: None).structure
    rows: list[dict[str, object]] = []
    for label, replicas, steps in (("10k", (3, 3, 2), 500), ("100k", (6, 6, 5), 50)):
        structure = tiled_melt(base, replicas)
        mass = sum(atom.mass for atom in structure.atoms)
        density = mass * 1.66053906660 / float(np.prod(structure.box[:3]))
        row: dict[str, object] = {
            "system": f"PE-10 melt, {label}",
            "atoms": len(structure.atoms),
            "density_g_cm3": round(density, 3),
        }
        for threads in ("1", "2"):
            row[f"ns_per_day_{threads}_thread"] = round(ns_per_day(structure, threads, steps), 3)
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def main() -> None:
    """`run.py` runs both parts; `run.py md` or `run.py charging` one of them. Each part writes
    bench/params/out/<part>.json."""
    parts = {"md": md_benchmark, "charging": charging_benchmark}
    chosen = sys.argv[1:] or list(parts)
    OUT.mkdir(parents=True, exist_ok=True)
    for part in chosen:
        with tempfile.TemporaryDirectory() as scratch_name:
            rows = parts[part](Path(scratch_name))
        (OUT / f"{part}.json").write_text(json.dumps({"tool_versions": tool_versions(), "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
