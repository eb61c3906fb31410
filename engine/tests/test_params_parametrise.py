"""Parametrisation with the real AmberTools: PE-10, PS-5 and tri-alanine melts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openmm
import parmed
import pytest
from openmm import app, unit
from polyforge_engine.events import EngineError
from polyforge_engine.parametrise.assemble import (
    ParametrisedSystem,
    SystemModel,
    group_copies,
    parametrise_system,
    type_representatives,
    write_mol2,
)
from polyforge_engine.parametrise.charges import FragmentCache, charge_molecule
from polyforge_engine.parametrise.force_fields import atom_type_set
from polyforge_engine.runtime.tools import run_tool
from polyforge_engine.versions import find_tool
from polymer_samples import ALA_UNIT, PE_UNIT, PS_UNIT, linear_polymer, melt
from rdkit import Chem

MELTS = {
    "PE-10": (PE_UNIT, 10, "PE", 4, 2.5, "[H]"),
    "PS-5": (PS_UNIT, 5, "STY", 4, 3.0, "[H]"),
    "Ala-3": (ALA_UNIT, 3, "ALA", 3, 2.5, "O"),
}


def _no_progress(stage: str, percent: float) -> None:
    pass


@pytest.fixture(scope="module", params=sorted(MELTS))
def parametrised(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[SystemModel, ParametrisedSystem]:
    unit_smiles, units, residue, copies, box_nm, tail_cap = MELTS[request.param]
    system = melt(unit_smiles, units, residue, copies, box_nm, tail_cap)
    result = parametrise_system(system, "gaff2", tmp_path_factory.mktemp(request.param), _no_progress)
    return system, result


def test_total_charge_is_the_integer_net_charge_in_both_formats(
    parametrised: tuple[SystemModel, ParametrisedSystem],
) -> None:
    _, result = parametrised
    amber = parmed.load_file(str(result.files.amber_prmtop))
    gromacs = parmed.load_file(str(result.files.gromacs_top), xyz=str(result.files.gromacs_gro))
    for structure in (amber, gromacs):
        total = sum(atom.charge for atom in structure.atoms)
        assert abs(total - round(total)) < 1e-4
        assert round(total) == 0
    assert result.charges_summary["total_charge"] == pytest.approx(0, abs=1e-6)


def _energy(structure: parmed.Structure, positions: np.ndarray, box: np.ndarray) -> float:
    system = structure.createSystem(nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer, constraints=None)
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("CPU"))
    context.setPeriodicBoxVectors(*(openmm.Vec3(*row) for row in np.diag(box / 10)))
    context.setPositions(positions / 10)
    return context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)


def test_gromacs_files_give_the_same_energy_as_amber_files(
    parametrised: tuple[SystemModel, ParametrisedSystem],
) -> None:
    system, result = parametrised
    amber = parmed.load_file(str(result.files.amber_prmtop), xyz=str(result.files.amber_inpcrd))
    gromacs = parmed.load_file(str(result.files.gromacs_top), xyz=str(result.files.gromacs_gro))
    assert len(gromacs.atoms) == len(amber.atoms)
    assert [atom.type for atom in gromacs.atoms] == [atom.type for atom in amber.atoms]
    positions = np.asarray(amber.coordinates)  # the .gro rounds to 0.01 Å; compare force fields, not rounding
    amber_energy = _energy(amber, positions, system.box)
    gromacs_energy = _energy(gromacs, positions, system.box)
    assert abs(gromacs_energy - amber_energy) <= 1e-3 * abs(amber_energy)


def _gaff2_atom_types() -> set[str]:
    """Atom types declared in the MASS section (from line 2 to the first blank line) of gaff2.dat."""
    tleap = find_tool("tleap")
    assert tleap is not None
    lines = (Path(tleap).resolve().parent.parent / "dat" / "leap" / "parm" / "gaff2.dat").read_text().splitlines()
    types = set()
    for line in lines[1:]:
        if not line.strip():
            break
        types.add(line.split()[0])
    return types


def test_atom_types_are_gaff2_types(parametrised: tuple[SystemModel, ParametrisedSystem]) -> None:
    _, result = parametrised
    types = {atom.type for atom in result.structure.atoms}
    assert types <= _gaff2_atom_types()
    assert {"c3", "hc"} <= types


def test_fragment_charges_match_whole_molecule_charges(tmp_path: Path) -> None:
    chain = group_copies([linear_polymer(PS_UNIT, 5, "STY")]).kinds[0]
    whole = charge_molecule(chain, FragmentCache("gaff2", tmp_path / "whole"), "PS-5")
    by_unit_cache = FragmentCache("gaff2", tmp_path / "units")
    by_unit = charge_molecule(chain, by_unit_cache, "PS-5", whole_molecule_max_atoms=0)
    assert by_unit_cache.antechamber_runs == 5  # 5 units, each with a different neighbourhood
    assert by_unit.atom_types == whole.atom_types
    assert np.abs(by_unit.charges - whole.charges).max() < 0.05
    assert by_unit.charges.sum() == pytest.approx(0, abs=1e-9)


def test_fragment_cost_grows_with_distinct_units_not_chain_length(tmp_path: Path) -> None:
    cache = FragmentCache("gaff2", tmp_path)
    for units in (10, 30):
        chain = group_copies([linear_polymer(PE_UNIT, units, "PE")]).kinds[0]
        charged = charge_molecule(chain, cache, f"PE-{units}", whole_molecule_max_atoms=0)
        assert charged.charges.sum() == pytest.approx(0, abs=1e-9)
    # head, middle and tail environments, charged once and reused by the longer chain
    assert cache.antechamber_runs == 3
    assert cache.fragments_seen == 40


def test_charged_molecule_keeps_its_integer_charge(tmp_path: Path) -> None:
    acetate = Chem.AddHs(Chem.MolFromSmiles("CC(=O)[O-]"))
    charged = charge_molecule(acetate, FragmentCache("gaff", tmp_path), "acetate")
    assert charged.net_charge == -1
    assert charged.charges.sum() == pytest.approx(-1, abs=1e-9)


@pytest.mark.parametrize("name", ["glycam_06j", "glycam06j", "extended_glycam_06j", "extended glycam06j"])
def test_glycam_is_refused_with_a_clear_code(name: str) -> None:
    with pytest.raises(EngineError) as error:
        atom_type_set(name)
    assert error.value.code == "FORCE_FIELD_NOT_SUPPORTED"
    assert "not supported yet" in error.value.message


def test_broken_valence_is_refused(tmp_path: Path) -> None:
    methyl = Chem.AddHs(Chem.MolFromSmiles("[CH3]"))
    with pytest.raises(EngineError) as error:
        charge_molecule(methyl, FragmentCache("gaff2", tmp_path), "methyl radical")
    assert error.value.code == "INVALID_VALENCE"


@pytest.mark.parametrize(("unit_smiles", "units", "residue", "tail_cap"), [(ALA_UNIT, 4, "ALA", "O"), (PS_UNIT, 6, "STY", "[H]")])
def test_parmchk2_on_type_representatives_equals_parmchk2_on_the_whole_chain(unit_smiles: str, units: int, residue: str, tail_cap: str, tmp_path: Path) -> None:
    chain = group_copies([linear_polymer(unit_smiles, units, residue, tail_cap=tail_cap)]).kinds[0]
    charged = charge_molecule(chain, FragmentCache("gaff2", tmp_path / "fragments"), residue)
    representatives = type_representatives(chain, charged.atom_types)
    assert len(representatives) < chain.GetNumAtoms()
    write_mol2(chain, charged, tmp_path / "whole.mol2")
    write_mol2(chain, charged, tmp_path / "representatives.mol2", representatives)
    for name in ("whole", "representatives"):
        run_tool("parmchk2", ["-i", f"{name}.mol2", "-f", "mol2", "-o", f"{name}.frcmod", "-s", "2"], tmp_path, "X", name)
    whole = (tmp_path / "whole.frcmod").read_text().splitlines()
    assert len(whole) > 5
    assert not any(line.startswith(("  n8", "  ns")) for line in whole)  # GAFF2 types are known to gaff2.dat
    assert set((tmp_path / "representatives.frcmod").read_text().splitlines()) == set(whole)
