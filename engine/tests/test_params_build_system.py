"""`build-system` end to end through the CLI: build-structure -> parametrise -> minimise -> dynamics
-> bundle, on a small PE-10 job."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from conftest import ETHYLENE, homopolymer_job
from rdkit import Chem
from test_params_structures import run_engine


def _pe_job(**protocol: Any) -> dict[str, Any]:
    job = homopolymer_job(ETHYLENE, 10, 4, density=0.1)
    job["simulation_protocol"].update({"dynamics": True, "dynamics_steps": 200, "temperature": 300, "ensemble": "NVT", **protocol})
    return job


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    workdir = tmp_path_factory.mktemp("build_system")
    code, events = run_engine("build-system", _pe_job(random_seed=-1), workdir)
    assert code == 0, events[-1]
    return workdir, events


def test_progress_names_every_stage_with_rising_percent(built: tuple[Path, list[dict[str, Any]]]) -> None:
    _, events = built
    progress = [event for event in events if event["event"] == "progress"]
    stages = [event["stage"] for event in progress]
    for stage in ("packing", "parametrising", "minimisation", "dynamics", "bundling"):
        assert stage in stages
    percents = [event["percent"] for event in progress]
    assert percents == sorted(percents)
    assert percents[-1] == 100


def test_result_names_the_bundle_and_the_drawn_seed(built: tuple[Path, list[dict[str, Any]]]) -> None:
    workdir, events = built
    result = events[-1]
    assert result["event"] == "result"
    assert result["files"] == {
        "bundle": "test_system_files.zip",
        "built_structure": "topology/system.pdb",
        "minimized_structure": "simulation/minimized.pdb",
        "final_structure": "simulation/final.pdb",
        "energies": "simulation/energies.csv",
        "report": "report.json",
    }
    for relative in result["files"].values():
        assert (workdir / relative).is_file()
    assert isinstance(result["seed"], int) and result["seed"] >= 0
    assert result["summary"]["protocol"]["seed"] == result["seed"]
    assert (workdir / "test_system_files.zip").is_file()
    assert not list(workdir.glob("*.partial"))


@pytest.mark.parametrize("relative", ["build/system.pdb", "topology/system.pdb", "simulation/minimized.pdb", "simulation/final.pdb"])
def test_pdb_files_carry_a_chain_per_molecule_and_every_bond(built: tuple[Path, list[dict[str, Any]]], relative: str) -> None:
    """Read back by RDKit from CONECT alone (no bonds guessed from distances): four PE-10 chains,
    C20H42 each, so 62 atoms and 61 bonds per molecule, each molecule one chain of its own."""
    workdir, _ = built
    mol = Chem.MolFromPDBFile(str(workdir / relative), removeHs=False, sanitize=False, proximityBonding=False)
    assert mol is not None and mol.GetNumAtoms() == 4 * 62
    assert mol.GetNumBonds() == 4 * 61
    molecules = Chem.GetMolFrags(mol)
    assert sorted(len(atoms) for atoms in molecules) == [62] * 4
    chains = [{mol.GetAtomWithIdx(atom).GetPDBResidueInfo().GetChainId() for atom in atoms} for atoms in molecules]
    assert all(len(ids) == 1 and ids != {" "} and ids != {""} for ids in chains)
    assert len(set().union(*chains)) == 4
    for bond in mol.GetBonds():
        pair = sorted(bond.GetBeginAtom().GetSymbol() + bond.GetEndAtom().GetSymbol())
        assert pair in (["C", "C"], ["C", "H"])


def test_report_says_how_the_dynamics_ran_on_the_engine_that_ran_them(built: tuple[Path, list[dict[str, Any]]]) -> None:
    """The NVT stage's integrator and thermostat are those of the engine the run records, in the
    README's words (the web page shows the report's)."""
    workdir, _ = built
    report = json.loads((workdir / "report.json").read_text())
    [stage] = report["dynamics_stages"]
    engine = report["performance"]["engine"]
    expected = "GROMACS sd (Langevin) integrator" if engine.startswith("GROMACS") else "Langevin middle integrator"
    assert stage["method"].startswith(expected)
    with zipfile.ZipFile(workdir / "test_system_files.zip") as archive:
        assert stage["method"] in archive.read("README.md").decode()


def test_bundle_holds_every_file_and_a_readme_explaining_them(built: tuple[Path, list[dict[str, Any]]]) -> None:
    workdir, _ = built
    with zipfile.ZipFile(workdir / "test_system_files.zip") as archive:
        names = set(archive.namelist())
        readme = archive.read("README.md").decode()
        report = json.loads(archive.read("report.json"))
        mdp = archive.read("md.mdp").decode()
        snapshot = json.loads(archive.read("job.json"))
    expected = {
        "README.md",
        "job.json",
        "report.json",
        "system.pdb",
        "system.gro",
        "system.top",
        "molecules.itp",
        "system.prmtop",
        "system.inpcrd",
        "minimized.pdb",
        "minimized.gro",
        "minimized.rst7",
        "final.pdb",
        "trajectory.dcd",
        "energies.csv",
        "simulation.log",
        "minimization.mdp",
        "md.mdp",
        "md.in",
        "system.data",
        "md.lammps",
    }
    assert expected <= names
    for name in names - {"README.md"}:
        assert f"`{name}`" in readme
    for program in ("GROMACS", "Amber", "LAMMPS", "OpenMM"):
        assert f"Continue in {program}" in readme
    assert snapshot["system"]["sanitized_name"] == "test_system"
    assert report["seed"] == report["protocol"]["seed"]
    assert abs(report["charges"]["total_charge"]) < 1e-4
    assert report["energies"]["potential_after_minimization_kj_mol"] < report["energies"]["potential_before_minimization_kj_mol"]
    assert report["final_temperature_k"] > 0
    assert report["tool_versions"]["ambertools"] and report["tool_versions"]["openmm"]
    # The time each stage took, the engine, platform and speed (the detail page shows them).
    performance = report["performance"]
    assert all(performance[stage] >= 0 for stage in ("build_s", "parametrisation_s", "minimisation_s", "dynamics_s"))
    assert performance["engine"] and performance["platform"] and performance["ns_per_day"] > 0
    assert "integrator      = sd" in mdp and "nsteps          = 200" in mdp and f"gen-seed        = {report['seed']}" in mdp


def test_recorded_seed_reproduces_the_run(tmp_path: Path) -> None:
    """A drawn seed, recorded, repeats the run to the bit when the job asks for bit-reproducible
    dynamics (mdrun's default tunes PME and balances load by the clock, so only -reprod repeats)."""
    code, events = run_engine("build-system", _pe_job(random_seed=-1, bit_reproducible=True), tmp_path / "first")
    assert code == 0, events[-1]
    code, again = run_engine("build-system", _pe_job(random_seed=events[-1]["seed"], bit_reproducible=True), tmp_path / "again")
    assert code == 0, again[-1]
    first = (tmp_path / "first" / "simulation" / "energies.csv").read_text()
    assert (tmp_path / "again" / "simulation" / "energies.csv").read_text() == first


def test_walls_run_with_a_vacuum_gap(tmp_path: Path) -> None:
    job = _pe_job()
    job["system_setup"].update(cell_dimension_selector="cell_sides", cell_sides=[25.0, 25.0, 25.0], density=None, potential_wall_z=True)
    code, events = run_engine("build-system", job, tmp_path)
    assert code == 0, events[-1]
    with zipfile.ZipFile(tmp_path / "test_system_files.zip") as archive:
        assert "nwall           = 2" in archive.read("md.mdp").decode()
        assert "vacuum gap" in archive.read("README.md").decode()


def test_glycam_polymer_is_refused_before_building(tmp_path: Path) -> None:
    job = _pe_job()
    job["polymers"][0]["force_field"] = "glycam_06j"
    code, events = run_engine("build-system", job, tmp_path)
    assert code == 1
    assert events == [
        {
            "event": "error",
            "code": "FORCE_FIELD_NOT_SUPPORTED",
            "message": "The force field glycam_06j (GLYCAM) is not supported yet; choose GAFF or GAFF2.",
        }
    ]
