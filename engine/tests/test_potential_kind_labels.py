"""Names of the kinds of a structure a potential is generated for: a molecule without a residue name
of its own is named by its formula, counted from its atoms."""

from __future__ import annotations

import pytest
from polyforge_engine.potential.system import kind_labels
from rdkit import Chem


def molecule(smiles: str, residue: str | None) -> Chem.Mol:
    mol = Chem.AddHs(Chem.MolFromSmiles(smiles))
    if residue is not None:
        for atom in mol.GetAtoms():
            atom.SetMonomerInfo(Chem.AtomPDBResidueInfo(atom.GetSymbol(), residueName=residue))
    return mol


@pytest.mark.parametrize(
    ("smiles", "residue", "formula"),
    [
        ("CC(C)Cc1ccc(cc1)C(C)C(=O)O", "UNL", "C13H18O2"),  # ibuprofen
        ("OCC(O)CO", None, "C3H8O3"),  # glycerol
        ("CC(=O)[O-]", "MOL", "C2H3O2"),  # acetate: the charge is not part of the name
        ("O=C=O", "LIG", "CO2"),
    ],
)
def test_a_molecule_without_its_own_residue_name_is_named_by_its_formula(smiles: str, residue: str | None, formula: str) -> None:
    assert kind_labels([molecule(smiles, residue)]) == [formula]


def test_residue_names_and_repeats() -> None:
    water, glycerol = molecule("O", "HOH"), molecule("OCC(O)CO", None)
    assert kind_labels([water, glycerol, molecule("OCC(O)CO", "")]) == ["HOH", "C3H8O3", "C3H8O3_3"]
