"""Silicones: GAFF2 plus the siloxane parameters (parametrise/siloxanes.py).

The expected silicon terms are the published OPLS-AA values (Jorgensen et al., J. Phys. Chem. B
2024, 128, 250, SI oplsaa.par: Si sigma 4.00 Å, epsilon 0.10 kcal/mol; Si-OS 374 kcal/mol/Å² at
1.66 Å; Si-OS-Si 20 kcal/mol/rad² at 145°; Si-CT 240 at 1.87 Å), converted here by hand, not read
from the engine's file. A siloxane's energy is the same in OpenMM, GROMACS and Amber's sander; PDMS
goes through the whole build-system; an element neither GAFF nor the siloxane file types is refused
before building, named."""

from __future__ import annotations

import math
from pathlib import Path

import parmed
import pytest
from conftest import homopolymer_job
from polyforge_engine.events import EngineError
from polyforge_engine.parametrise.assemble import group_copies, parametrise_system
from polyforge_engine.parametrise.charges import FragmentCache, charge_molecule
from polymer_samples import linear_polymer
from rdkit import Chem
from rdkit.Chem import AllChem
from test_params_structures import run_engine
from test_potential_energies import assert_within_a_thousandth, needs_programs, three_energies
from test_structures_potential import generate

PDMS_UNIT = "[*:1][Si](C)(C)O[*:2]"
# Si-H, phenyl on Si, an aminopropyl side group (amodimethicone), Si-O-Si and a silanol end.
SILOXANE_SMILES = "C[Si](C)([H])O[Si](c1ccccc1)(CCCN)O[Si](C)(C)O"
KJ_PER_KCAL = 4.184


def _no_progress(stage: str, percent: float) -> None:
    pass


def embedded(smiles: str) -> Chem.Mol:
    mol = Chem.AddHs(Chem.MolFromSmiles(smiles))
    AllChem.EmbedMolecule(mol, randomSeed=3)
    return mol


@pytest.fixture(scope="module")
def pdms(tmp_path_factory: pytest.TempPathFactory) -> parmed.Structure:
    chain = group_copies([linear_polymer(PDMS_UNIT, 14, "SIL", tail_cap="[H]")])
    parametrised = parametrise_system(chain, "gaff2", tmp_path_factory.mktemp("pdms"), _no_progress, ["PDMS-8"])
    return parmed.load_file(str(parametrised.files.amber_prmtop))


def test_silicon_takes_the_published_lennard_jones_terms(pdms: parmed.Structure) -> None:
    silicon = [atom for atom in pdms.atoms if atom.element == 14]
    assert len(silicon) == 14
    for atom in silicon:
        assert atom.type == "si"
        assert atom.sigma == pytest.approx(4.00, abs=1e-3)  # Å
        assert atom.epsilon == pytest.approx(0.10, abs=1e-4)  # kcal/mol


def test_siloxane_bonds_and_angles_take_the_published_terms(pdms: parmed.Structure) -> None:
    def bond_terms(first: int, second: int) -> set[tuple[float, float]]:
        return {(round(b.type.k, 2), round(b.type.req, 3)) for b in pdms.bonds if {b.atom1.element, b.atom2.element} == {first, second}}

    assert bond_terms(14, 8) == {(374.0, 1.66)}
    assert bond_terms(14, 6) == {(240.0, 1.87)}
    backbone = {(round(a.type.k, 2), round(a.type.theteq, 2)) for a in pdms.angles if (a.atom1.element, a.atom2.element, a.atom3.element) == (14, 8, 14)}
    assert backbone == {(20.0, 145.0)}


def test_silicon_charges_are_am1bcc_per_unit(pdms: parmed.Structure) -> None:
    """Antechamber's bond charge corrections have silicon: the siloxane's Si is strongly positive,
    O negative, the chain neutral, and the inner units alike."""
    silicon = [atom.charge for atom in pdms.atoms if atom.element == 14]
    oxygen = [atom.charge for atom in pdms.atoms if atom.element == 8 and all(n.element == 14 for n in atom.bond_partners)]
    assert sum(atom.charge for atom in pdms.atoms) == pytest.approx(0, abs=1e-6)
    assert min(silicon) > 0.5 and max(oxygen) < -0.5
    inner = silicon[2:-2]
    assert max(inner) - min(inner) < 1e-6


@needs_programs
def test_a_siloxane_has_one_energy_in_three_programs(tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": SILOXANE_SMILES}, tmp_path / "drawn")
    assert code == 0, events[-1]
    generate(tmp_path / "drawn" / "structure.sdf", tmp_path / "potential", steps=5)
    energies = three_energies(tmp_path / "potential" / "topology", tmp_path / "potential")
    assert_within_a_thousandth(energies)


def test_the_siloxane_torsion_term_is_the_published_one(tmp_path: Path) -> None:
    """Hexamethyldisiloxane's H-C-Si-O torsions: OPLS V3 = 0.18 kcal/mol, Amber's V3/2 per torsion."""
    grouped = group_copies([embedded("C[Si](C)(C)O[Si](C)(C)C")])
    parametrised = parametrise_system(grouped, "gaff2", tmp_path, _no_progress, ["MM"])
    structure = parmed.load_file(str(parametrised.files.amber_prmtop))
    terms = {
        (round(term.phi_k, 3), term.per)
        for dihedral in structure.dihedrals
        if [dihedral.atom1.element, dihedral.atom2.element, dihedral.atom3.element, dihedral.atom4.element] in ([1, 6, 14, 8], [8, 14, 6, 1])
        for term in (dihedral.type if isinstance(dihedral.type, list) else [dihedral.type])
    }
    assert terms == {(round(0.18 / 2, 3), 3)}
    assert math.isclose(0.18 / 2 * KJ_PER_KCAL, 0.3766, abs_tol=1e-4)


def test_pdms_builds_and_parametrises_through_build_system(tmp_path: Path) -> None:
    code, events = run_engine("build-system", homopolymer_job(PDMS_UNIT, 10, 3, density=0.3), tmp_path)
    assert code == 0, events[-1]
    summary = events[-1]["summary"]
    assert {"si", "os", "c3"} <= set(summary["charges"]["molecules"][0]["atom_types"])
    assert "si " in (tmp_path / "topology" / "molecules.itp").read_text()


def test_a_silicon_environment_the_parameters_lack_is_refused_by_name(tmp_path: Path) -> None:
    grouped = group_copies([embedded("C[Si](C)(C)N[Si](C)(C)C")])  # a silazane: Si-N is not in the source
    with pytest.raises(EngineError) as error:
        parametrise_system(grouped, "gaff2", tmp_path, _no_progress, ["HMDS"])
    assert error.value.code == "PARAMETERS_MISSING"
    assert "have no bond n7-si" in error.value.message


def test_an_element_gaff_lacks_is_refused_before_building(tmp_path: Path) -> None:
    code, events = run_engine("build-system", homopolymer_job("[*:1][Ge](C)(C)O[*:2]", 10, 3, density=0.3), tmp_path)
    assert code == 1
    assert [event["event"] for event in events] == ["error"]  # no progress: nothing was built
    assert events[-1]["code"] == "UNSUPPORTED_ELEMENT"
    assert events[-1]["message"] == "GAFF has no atom types for Ge (atom 2 of the repeating unit of building block Unit)."


def test_an_element_gaff_lacks_is_named_with_its_atom_when_charging(tmp_path: Path) -> None:
    germane = Chem.AddHs(Chem.MolFromSmiles("C[Ge](C)(C)C"))
    with pytest.raises(EngineError) as error:
        charge_molecule(germane, FragmentCache("gaff2", tmp_path), "tetramethylgermane")
    assert error.value.code == "UNSUPPORTED_ELEMENT"
    assert error.value.message == "GAFF has no atom types for Ge (atom 2 (Ge) of tetramethylgermane)."
