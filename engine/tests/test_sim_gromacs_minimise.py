"""Where a job's dynamics run on GROMACS and POLYFORGE_MINIMISE_ENGINE=gromacs, its
minimisation runs on mdrun too (simulate/gromacs_minimise.py; OpenMM's by default), with the OpenMM path's semantics: the steps asked are the steps run
(or fewer, when GROMACS's stated criterion is met, and the log says so), overlapping atoms cannot blow
it up, dense PS and PMMA cells minimise without NaN whatever the seed, and the structure it gives is
the one the bundle and the dynamics start from."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openmm
import parmed
import pytest
from dense_cells import dense_cells
from openmm import app, unit
from polyforge_engine.parametrise.assemble import ParametrisedSystem, TopologyFiles, parametrise_system
from polyforge_engine.runtime.allocation import CpuAllocation
from polyforge_engine.runtime.md_engine import MD_ENGINE_ENV, MINIMISE_ENGINE_ENV, find_gmx, minimises_on_gromacs
from polyforge_engine.runtime.openmm_cpu import cpu_properties
from polyforge_engine.simulate.gromacs_minimise import GromacsRefused, em_mdp, minimise_on_gromacs
from polyforge_engine.simulate.gromacs_run import GromacsInputs, gmx_version
from polyforge_engine.simulate.md import create_system
from polyforge_engine.simulate.minimise import SWITCH_FORCE_KJ_MOL_NM, MinimisationResult
from polyforge_engine.simulate.protocol import Protocol
from polyforge_engine.simulate.run import SimulationReport, run_protocol
from polymer_samples import PE_UNIT, melt

pytestmark = pytest.mark.skipif(find_gmx() is None, reason="GROMACS (gmx) is not installed")


def _quiet(*_: object) -> None:
    pass


@pytest.fixture(scope="module")
def pe_melt(tmp_path_factory: pytest.TempPathFactory) -> ParametrisedSystem:
    return parametrise_system(melt(PE_UNIT, 10, "PE", 8, 3.0), "gaff2", tmp_path_factory.mktemp("pe_melt"), _quiet)


def _run(
    pe_melt: ParametrisedSystem,
    workdir: Path,
    protocol: Protocol,
    engine: str,
    monkeypatch: pytest.MonkeyPatch,
    minimise: str = "gromacs",
    events: list[tuple[object, ...]] | None = None,
) -> SimulationReport:
    monkeypatch.setenv(MD_ENGINE_ENV, engine)
    monkeypatch.setenv(MINIMISE_ENGINE_ENV, minimise)
    workdir.mkdir(parents=True, exist_ok=True)
    files = pe_melt.files
    seen = events if events is not None else []
    report, _ = run_protocol(files.amber_prmtop, files.amber_inpcrd, protocol, workdir, lambda *event: seen.append(event), files.gromacs_top)
    return report


def _energy(files: TopologyFiles, positions_nm: np.ndarray, box_nm: np.ndarray) -> float:
    """OpenMM's potential energy of `positions_nm` with the bonds to hydrogen constrained."""
    system = create_system(app.AmberPrmtopFile(str(files.amber_prmtop)), tuple(box_nm), False)
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("CPU"), cpu_properties())
    context.setPositions(positions_nm)
    context.applyConstraints(1e-5)
    return context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)


def _minimise(files: TopologyFiles, positions_nm: np.ndarray, box_nm: np.ndarray, steps: int, scratch: Path) -> MinimisationResult:
    gmx = find_gmx()
    assert gmx is not None
    inputs = GromacsInputs(gmx, files.gromacs_top, files.gromacs_top.with_suffix(".gro"), CpuAllocation(1, False, "one thread"))
    before = _energy(files, positions_nm, box_nm)
    protocol = Protocol(steps, 100, 300.0, "NVT", 1)
    result, _ = minimise_on_gromacs(inputs, protocol, positions_nm, tuple(box_nm), before, scratch, _quiet, gmx_version(gmx))
    return result


def _inputs(pe_melt: ParametrisedSystem) -> tuple[np.ndarray, np.ndarray]:
    coordinates = app.AmberInpcrdFile(str(pe_melt.files.amber_inpcrd))
    positions = np.asarray(coordinates.getPositions(asNumpy=True).value_in_unit(unit.nanometer)).copy()
    return positions, np.asarray(pe_melt.structure.box[:3]) / 10


def test_a_job_on_gromacs_minimises_on_gromacs_in_the_steps_asked(pe_melt: ParametrisedSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[tuple[object, ...]] = []
    report = _run(pe_melt, tmp_path, Protocol(7, 50, 300.0, "NVT", 1), "gromacs", monkeypatch, events=events)
    # Progress as on the OpenMM path: 'minimisation' from 0 to 100 (grompp included), then dynamics.
    stages = [event[0] for event in events]
    first_dynamics = stages.index("dynamics")
    assert set(stages[:first_dynamics]) == {"minimisation"} and "minimisation" not in stages[first_dynamics:]
    percents = [float(str(event[1])) for event in events[:first_dynamics]]
    assert percents[0] == 0 and percents[-1] == 100 and percents == sorted(percents)
    minimised = report.minimisation
    assert minimised is not None and str(minimised["engine"]).startswith("GROMACS")
    assert (minimised["steps_asked"], minimised["steps_run"], minimised["converged"]) == (7, 7, False)
    assert minimised["steps_run"] == minimised["capped_descent_steps"] + minimised["lbfgs_steps"]
    log = (tmp_path / "simulation.log").read_text()
    assert "minimisation: 7 of 7 steps asked" in log and "on GROMACS" in log
    # cg ran the 7 steps (the grid melt's forces are below steep's switch): mdrun's log says so.
    assert "Polak-Ribiere Conjugate Gradients did not converge to Fmax < 10 in 8 steps" in (tmp_path / "gromacs" / "em_cg.log").read_text()
    after, before = report.potential_energy_after_minimization_kj_mol, report.potential_energy_before_minimization_kj_mol
    assert after is not None and after < before
    assert report.performance is not None and report.performance["minimisation_engine"] == minimised["engine"]
    # The dynamics start from the minimised structure the bundle gets: mdrun's energy at step 0 is
    # OpenMM's of minimized.pdb's positions (constraints applied).
    energies = np.loadtxt(tmp_path / "energies.csv", delimiter=",", skiprows=1, ndmin=2)
    assert energies[0, 1] == pytest.approx(after, rel=1e-3, abs=1.0)
    pdb = app.PDBFile(str(tmp_path / "minimized.pdb"))
    assert report.minimized_positions is not None
    assert np.allclose(pdb.getPositions(asNumpy=True).value_in_unit(unit.angstrom), report.minimized_positions, atol=1e-3)


def test_gromacs_minimisation_stops_at_its_stated_criterion(pe_melt: ParametrisedSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = _run(pe_melt, tmp_path, Protocol(3000, 50, 300.0, "NVT", 1), "gromacs", monkeypatch)
    minimised = report.minimisation
    assert minimised is not None and minimised["converged"] is True
    assert 0 < int(str(minimised["steps_run"])) < 3000
    assert "converged to Fmax < 10" in (tmp_path / "simulation.log").read_text()


def test_other_jobs_keep_minimising_on_openmm(pe_melt: ParametrisedSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    on_openmm = _run(pe_melt, tmp_path / "openmm", Protocol(7, 50, 300.0, "NVT", 1), "openmm", monkeypatch)
    no_dynamics = _run(pe_melt, tmp_path / "none", Protocol(7, 0, 300.0, "NVT", 1), "gromacs", monkeypatch)
    by_default = _run(pe_melt, tmp_path / "default", Protocol(7, 50, 300.0, "NVT", 1), "gromacs", monkeypatch, minimise="")
    for report in (on_openmm, no_dynamics, by_default):
        assert report.minimisation is not None and str(report.minimisation["engine"]).startswith("OpenMM")
    assert not (tmp_path / "none" / "gromacs").exists()
    assert by_default.performance is not None and str(by_default.performance["engine"]).startswith("GROMACS")
    assert not list((tmp_path / "default" / "gromacs").glob("em_*"))


def test_both_paths_reach_comparable_minimised_energies(pe_melt: ParametrisedSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same force field, same steps asked: both minimisers end within a few percent of each other's
    energy drop (each one's energy after is OpenMM's of its structure, constraints applied)."""
    drops = {}
    for engine in ("openmm", "gromacs"):
        report = _run(pe_melt, tmp_path / engine, Protocol(100, 50, 300.0, "NVT", 1), engine, monkeypatch)
        after = report.potential_energy_after_minimization_kj_mol
        assert after is not None
        drops[engine] = report.potential_energy_before_minimization_kj_mol - after
    assert drops["gromacs"] > 0 and drops["openmm"] > 0
    assert drops["gromacs"] == pytest.approx(drops["openmm"], rel=0.25)


def test_the_setting_chooses_the_minimiser() -> None:
    assert minimises_on_gromacs(" GROMACS ") and not minimises_on_gromacs("") and not minimises_on_gromacs("openmm")


def test_the_minimisation_parameters_are_the_bundles_without_constraints() -> None:
    mdp = em_mdp(Protocol(200, 100, 300.0, "NVT", 1), "steep", 200, SWITCH_FORCE_KJ_MOL_NM)
    settings = {line.split("=")[0].strip(): line.split("=")[1].split(";")[0].strip() for line in mdp.splitlines() if "=" in line and not line.startswith(";")}
    assert (settings["integrator"], settings["nsteps"], settings["emtol"], settings["constraints"]) == ("steep", "200", "10000.0", "none")
    assert (settings["coulombtype"], settings["rvdw"], settings["DispCorr"]) == ("PME", "1.0", "EnerPres")
    assert list(settings).count("constraints") == 1


def _overlapped(pe_melt: ParametrisedSystem, closest_nm: float) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """The melt with chains 0-3 moved onto chains 4-7: an atom of each `closest_nm` + 0-0.03 nm from
    one of the other's. Whole chains are moved (grompp refuses bonded atoms further apart than the
    cutoff, which a built cell never has)."""
    positions, box = _inputs(pe_melt)
    per_chain = len(positions) // 8
    rng = np.random.default_rng(3)
    moved = []
    for chain in range(4):
        mover, target = chain * per_chain + 5, (chain + 4) * per_chain + 7
        direction = rng.normal(size=3)
        shift = positions[target] + (closest_nm + 0.01 * chain) * direction / np.linalg.norm(direction) - positions[mover]
        positions[chain * per_chain : (chain + 1) * per_chain] += shift
        moved.append((mover, target))
    return positions, box, moved


def test_overlapping_atoms_cannot_blow_the_gromacs_minimisation_up(pe_melt: ParametrisedSystem, tmp_path: Path) -> None:
    """Atoms of different chains 0.5-0.8 Å apart (forces of 10^6 kJ/mol/nm and more): steep keeps no
    step that raises the energy, so the minimisation ends finite, the overlaps gone."""
    positions, box, moved = _overlapped(pe_melt, 0.05)
    result = _minimise(pe_melt.files, positions, box, 150, tmp_path)
    assert result.largest_force_before_kj_mol_nm > 1e6
    assert result.capped_descent_steps > 0 and result.steps_run == 150 and not result.lbfgs_failed
    assert np.isfinite(result.positions_nm).all()
    energy = _energy(pe_melt.files, result.positions_nm, box)
    assert np.isfinite(energy) and energy < result.energy_before_kj_mol
    for mover, target in moved:
        delta = result.positions_nm[mover] - result.positions_nm[target]
        delta -= box * np.round(delta / box)
        assert np.linalg.norm(delta) > 0.2  # nm: pushed apart to a van der Waals contact
    # Molecules stay whole (mdrun may wrap atoms into the box; the result is made continuous).
    bonds = np.array([(bond[0].index, bond[1].index) for bond in app.AmberPrmtopFile(str(pe_melt.files.amber_prmtop)).topology.bonds()])
    assert np.linalg.norm(result.positions_nm[bonds[:, 0]] - result.positions_nm[bonds[:, 1]], axis=1).max() < 0.2


def test_atoms_gromacs_cannot_take_are_minimised_on_openmm(pe_melt: ParametrisedSystem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Atoms 0.1-0.4 Å apart give forces beyond GROMACS's single precision (mdrun stops: 'the force
    on at least one atom is not finite'): the job's minimisation falls back to OpenMM's capped
    descent, says so, and the dynamics on mdrun start from its finite structure (1,000 steps: 150
    leave bonds too strained for mdrun's first step of dynamics, LINCS fails)."""
    positions, box, _ = _overlapped(pe_melt, 0.01)
    with pytest.raises(GromacsRefused):
        _minimise(pe_melt.files, positions, box, 150, tmp_path / "direct")
    inpcrd = tmp_path / "overlapped.inpcrd"
    rst = parmed.amber.Rst7(natom=len(positions))
    rst.coordinates = positions * 10
    rst.box = [*(box * 10), 90.0, 90.0, 90.0]
    rst.write(str(inpcrd))
    monkeypatch.setenv(MD_ENGINE_ENV, "gromacs")
    monkeypatch.setenv(MINIMISE_ENGINE_ENV, "gromacs")
    workdir = tmp_path / "job"
    workdir.mkdir()
    files = pe_melt.files
    report, written = run_protocol(files.amber_prmtop, inpcrd, Protocol(1000, 50, 300.0, "NVT", 1), workdir, _quiet, files.gromacs_top)
    assert report.minimisation is not None and str(report.minimisation["engine"]).startswith("OpenMM")
    assert report.minimisation["steps_run"] == 1000 or report.minimisation["converged"] is True
    assert "minimisation on OpenMM: mdrun could not" in written.log.read_text()
    assert report.performance is not None and str(report.performance["engine"]).startswith("GROMACS")
    after = report.potential_energy_after_minimization_kj_mol
    assert after is not None and np.isfinite(after) and after < report.potential_energy_before_minimization_kj_mol
    assert np.isfinite(np.loadtxt(written.energies_csv, delimiter=",", skiprows=1, ndmin=2)[:, 1]).all()


def test_dense_polystyrene_and_pmma_cells_minimise_on_gromacs_for_every_seed(tmp_path: Path) -> None:
    for name, seed, files, positions, box in dense_cells():
        result = _minimise(files, positions, box, 100, tmp_path / f"{name}_{seed}")
        # Far from converged in 100 steps: every step asked is run, and no more.
        assert (result.steps_run, result.converged, result.lbfgs_failed) == (100, False, False), (name, seed)
        assert result.largest_force_before_kj_mol_nm > SWITCH_FORCE_KJ_MOL_NM, (name, seed)  # as built: strained
        assert result.capped_descent_steps > 0, (name, seed)
        assert np.isfinite(result.positions_nm).all(), (name, seed)
        energy = _energy(files, result.positions_nm, box)
        assert np.isfinite(energy) and energy < result.energy_before_kj_mol, (name, seed)
