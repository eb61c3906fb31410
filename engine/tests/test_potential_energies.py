"""The topology generate-potential writes gives one potential energy in OpenMM, GROMACS and Amber
(within 0.1 %), each program reading its own file on its own: OpenMM the prmtop
(AmberPrmtopFile), GROMACS the .top/.itp through grompp and `mdrun -rerun`, Amber's sander (from
AmberTools in the engine's environment) the prmtop again. Checked on an uploaded mixture in a
periodic box (ethanol, TIP3P water, Na+ and Cl-) and on a drawn SMILES; a triclinic cell is refused
with a message that says so (the topology's cell is rectangular)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import openmm
import pytest
from openmm import app, unit
from test_structures_potential import generate
from test_structures_validate import run_engine

GMX = shutil.which("gmx")
SANDER = Path(sys.executable).parent / "sander"
needs_programs = pytest.mark.skipif(
    (GMX is None or not SANDER.is_file()) and not os.environ.get("CI"),
    reason="needs Debian's gromacs (make gromacs) and AmberTools' sander",
)
EWALD_TOLERANCE = 1e-6  # all three programs' PME made tight, so what differs is the force field's reading
CUTOFF_A = 10.0


def boxed(source: Path, target: Path, side_nm: float, tilt_nm: float = 0.0) -> None:
    """The molecules of a .gro placed one per grid point in a cube of `side_nm` (a box as a user
    uploads it); with `tilt_nm` the cell's c vector leans along x (a triclinic .gro box line)."""
    lines = source.read_text().splitlines()
    residues: dict[str, list[str]] = {}
    for line in lines[2 : 2 + int(lines[1])]:
        residues.setdefault(line[:5], []).append(line)
    per_side = int(np.ceil(len(residues) ** (1 / 3)))
    rows = []
    for number, members in enumerate(residues.values()):
        xyz = np.array([[float(row[20 + 8 * k : 28 + 8 * k]) for k in range(3)] for row in members])
        point = (np.array(np.unravel_index(number, (per_side,) * 3)) + 0.5) * side_nm / per_side
        rows += [row[:20] + "".join(f"{v:8.3f}" for v in p) for row, p in zip(members, xyz - xyz.mean(axis=0) + point, strict=True)]
    box = f"{side_nm:10.5f}" * 3 + (f"{0:10.5f}" * 4 + f"{tilt_nm:10.5f}" + f"{0:10.5f}" if tilt_nm else "")
    target.write_text("\n".join(["uploaded box", f"{len(rows):5d}", *rows, box]) + "\n")


def openmm_energy(topology: Path) -> float:
    prmtop = app.AmberPrmtopFile(str(topology / "system.prmtop"))
    gro = app.GromacsGroFile(str(topology / "system.gro"))
    system = prmtop.createSystem(
        nonbondedMethod=app.PME, nonbondedCutoff=CUTOFF_A / 10 * unit.nanometer, constraints=app.HBonds,
        ewaldErrorTolerance=EWALD_TOLERANCE,
    )  # fmt: skip
    system.setDefaultPeriodicBoxVectors(*gro.getPeriodicBoxVectors())
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPositions(gro.positions)
    return context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)


def gromacs_energy(topology: Path, workdir: Path) -> float:
    """The shipped minimisation settings as a zero-step rerun of system.gro, PME made tight."""
    mdp = (workdir / "minimization.mdp").read_text()
    mdp = re.sub(r"^integrator\s*=.*$", "integrator = md", mdp, flags=re.M)
    mdp = re.sub(r"^nsteps\s*=.*$", "nsteps = 0", mdp, flags=re.M)
    mdp = re.sub(r"^ewald-rtol\s*=.*$", f"ewald-rtol = {EWALD_TOLERANCE}", mdp, flags=re.M)
    (workdir / "rerun.mdp").write_text(mdp + "fourierspacing = 0.06\npme-order = 6\n")
    env = {"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin", "HOME": str(workdir)}
    for args, stdin in (
        (["grompp", "-f", str(workdir / "rerun.mdp"), "-c", "system.gro", "-p", "system.top", "-o", str(workdir / "rerun.tpr"),
          "-po", str(workdir / "rerun_out.mdp"), "-maxwarn", "0"], None),
        (["mdrun", "-s", str(workdir / "rerun.tpr"), "-rerun", "system.gro", "-deffnm", str(workdir / "rerun"), "-nt", "1"], None),
        (["energy", "-f", str(workdir / "rerun.edr"), "-o", str(workdir / "potential.xvg")], "Potential\n\n"),
    ):  # fmt: skip
        run = subprocess.run([GMX or "gmx", "-quiet", *args], cwd=topology, input=stdin, capture_output=True, text=True, env=env)
        assert run.returncode == 0, run.stderr[-2000:]
    rows = [line for line in (workdir / "potential.xvg").read_text().splitlines() if not line.startswith(("#", "@"))]
    return float(np.loadtxt(rows).reshape(-1)[1])


def sander_energy(topology: Path, workdir: Path) -> float:
    """sander's energy of the same coordinates (system.gro's, written as an rst7) before its first
    minimisation step: PME with the same cutoff and dispersion correction (pair-list skin 0.5 Å, as
    a lone molecule's box is 21 Å plus its extent and sander wants cutoff + skin within half a side),
    bonds to hydrogen left
    out as the constrained runs of OpenMM and GROMACS leave them out (ntf=2; no SHAKE, so the
    coordinates are not moved)."""
    gro = app.GromacsGroFile(str(topology / "system.gro"))
    xyz = np.array(gro.getPositions(asNumpy=True).value_in_unit(unit.angstrom))
    box = [float(v) * 10 for v in (topology / "system.gro").read_text().splitlines()[-1].split()[:3]]
    numbers = [f"{v:12.7f}" for v in xyz.reshape(-1)]
    body = "\n".join("".join(numbers[i : i + 6]) for i in range(0, len(numbers), 6))
    (workdir / "start.rst7").write_text(
        f"system.gro\n{len(xyz):6d}\n{body}\n" + "".join(f"{v:12.7f}" for v in box) + "".join(f"{90:12.7f}" for _ in range(3)) + "\n"
    )
    (workdir / "energy.in").write_text(
        "single point\n &cntrl\n  imin=1, maxcyc=1, ncyc=1, ntb=1, ntc=1, ntf=2, cut="
        f"{CUTOFF_A}, ntpr=1, ntxo=1,\n /\n &ewald\n  dsum_tol={EWALD_TOLERANCE}, order=6, skinnb=0.5,\n /\n"
    )
    run = subprocess.run(
        [str(SANDER), "-O", "-i", "energy.in", "-p", str(topology / "system.prmtop"), "-c", "start.rst7", "-o", "energy.out",
         "-r", "energy.rst7"],
        cwd=workdir, capture_output=True, text=True, env={"PATH": f"{SANDER.parent}:/usr/bin:/bin", "OMP_NUM_THREADS": "1"},
    )  # fmt: skip
    output = (workdir / "energy.out").read_text() if (workdir / "energy.out").is_file() else ""
    assert run.returncode == 0, run.stderr[-2000:] + output[-2000:]
    first = re.search(r"NSTEP\s+ENERGY\s+RMS\s+GMAX\s+NAME\s+NUMBER\s*\n\s*1\s+(-?\d+\.\d+E[+-]\d+)", output)
    assert first, output[-3000:]
    return float(first.group(1)) * 4.184  # kcal/mol -> kJ/mol


def three_energies(topology: Path, workdir: Path) -> dict[str, float]:
    return {
        "openmm": openmm_energy(topology),
        "gromacs": gromacs_energy(topology, workdir),
        "amber": sander_energy(topology, workdir),
    }


def assert_within_a_thousandth(energies: dict[str, float]) -> None:
    print("potential energies, kJ/mol:", energies)
    reference = energies["openmm"]
    for value in energies.values():
        assert value == pytest.approx(reference, rel=1e-3), energies


@pytest.fixture(scope="module")
def mixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ethanol, water and a Na+/Cl- pair converted from SMILES: the molecules' coordinates."""
    workdir = tmp_path_factory.mktemp("mixture")
    code, events = run_engine("convert-smiles", {"smiles": "CCO.CCO.CCO.O.O.O.O.O.O.O.O.[Na+].[Cl-]"}, workdir)
    assert code == 0, events[-1]
    return workdir / "structure.gro"


@needs_programs
def test_an_uploaded_box_of_ethanol_water_and_ions_has_one_energy_in_three_programs(mixture: Path, tmp_path: Path) -> None:
    boxed(mixture, tmp_path / "upload.gro", 3.2)  # 3.2 nm: sander wants the cutoff plus 2 Å within half a side
    result = generate(tmp_path / "upload.gro", tmp_path / "potential", steps=5)
    assert result["summary"]["molecules"] == 13
    energies = three_energies(tmp_path / "potential" / "topology", tmp_path / "potential")
    assert_within_a_thousandth(energies)
    # the energies are not all zero or all the same constant: the box's waters and ions interact
    assert energies["openmm"] < -100


@needs_programs
def test_a_drawn_smiles_has_one_energy_in_three_programs(tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": "CC(=O)Nc1ccc(O)cc1"}, tmp_path / "drawn")  # paracetamol
    assert code == 0, events[-1]
    generate(tmp_path / "drawn" / "structure.sdf", tmp_path / "potential", steps=5)
    energies = three_energies(tmp_path / "potential" / "topology", tmp_path / "potential")
    assert_within_a_thousandth(energies)


def test_a_triclinic_box_is_refused_with_a_message(mixture: Path, tmp_path: Path) -> None:
    boxed(mixture, tmp_path / "slanted.gro", 3.2, tilt_nm=1.0)
    job = {"structure_file": str(tmp_path / "slanted.gro"), "force_field": "GAFF2", "charge": 0, "minimization_steps": 0}
    code, events = run_engine("generate-potential", job, tmp_path / "potential")
    assert code == 1
    assert events[-1]["code"] == "CELL_NOT_RECTANGULAR"
    assert "The cell is triclinic (32.0 × 32.0 × 33.5 Å" in events[-1]["message"]
    assert "rectangular cells only" in events[-1]["message"]
