"""convert-smiles through the CLI: the structure summary validate-structure gives for the same
files, kinds of a multi-fragment SMILES, charges, and the limits (size, elements)."""

from __future__ import annotations

from pathlib import Path

import pytest
from polyforge_engine.structures.convert_smiles import MAX_ATOMS
from polyforge_engine.structures.validate_structure import validate_structure
from rdkit import Chem
from rdkit.Chem.rdMolDescriptors import CalcMolFormula
from test_structures_validate import run_engine

SUMMARY_FIELDS = {"atoms", "residues", "molecules", "kinds", "formula", "net_charge", "box", "type", "viewer_file"}


def test_aspirin_summary_matches_its_files(tmp_path: Path) -> None:
    smiles = "CC(=O)Oc1ccccc1C(=O)O"
    code, events = run_engine("convert-smiles", {"smiles": smiles}, tmp_path)
    assert code == 0, events[-1]
    result = events[-1]
    assert SUMMARY_FIELDS | {"files"} <= set(result)
    expected = CalcMolFormula(Chem.AddHs(Chem.MolFromSmiles(smiles)))
    assert result["formula"] == expected == "C9H8O4"
    assert result["kinds"] == [{"name": "MOL", "count": 1, "atoms": 21, "formula": "C9H8O4", "charge": 0}]
    assert (result["type"], result["net_charge"], result["viewer_file"]) == ("molecule", 0, "structure.pdb")
    for name in ("structure.pdb", "structure.gro"):  # the files read back to the same summary
        again = validate_structure(tmp_path / name)
        assert (again["atoms"], again["molecules"], again["formula"], again["type"]) == (21, 1, "C9H8O4", "molecule")


def test_two_fragments_are_two_kinds_of_a_mixed_system(tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": "CC.O"}, tmp_path)
    assert code == 0, events[-1]
    result = events[-1]
    assert result["molecules"] == 2 and result["type"] == "mixed"
    assert [(kind["formula"], kind["count"]) for kind in result["kinds"]] == [("C2H6", 1), ("H2O", 1)]
    assert result["kinds"][1]["name"] == "HOH"
    assert result["formula"] == "C2H8O"


def test_charged_molecules_report_their_net_charge(tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": "C[N+](C)(C)C.[Cl-].CC(=O)[O-]"}, tmp_path)
    assert code == 0, events[-1]
    result = events[-1]
    assert result["net_charge"] == -1
    charges = {kind["formula"]: kind["charge"] for kind in result["kinds"]}
    assert charges == {"C4H12N": 1, "Cl": -1, "C2H3O2": -1}
    assert {kind["name"] for kind in result["kinds"]} >= {"CL"}
    # the uploaded PDB of the same structure keeps the charges in its charge columns
    again = validate_structure(tmp_path / "structure.pdb")
    assert again["net_charge"] == -1


def test_copies_of_one_molecule_are_a_system(tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": "CCO.OCC.C(O)C"}, tmp_path)
    assert code == 0, events[-1]
    assert events[-1]["type"] == "system" and events[-1]["kinds"][0]["count"] == 3


def test_ten_thousand_atoms_are_refused_with_the_limit(tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": "C" * 3334}, tmp_path)
    assert code == 1
    assert events[-1]["code"] == "SMILES_TOO_LARGE"
    assert "10,004 atoms" in events[-1]["message"] and f"at most {MAX_ATOMS:,}" in events[-1]["message"]
    assert not (tmp_path / "structure.pdb").exists()


@pytest.mark.parametrize(
    ("smiles", "named"),
    [("C[Ge](C)(C)C", "Ge"), ("OB(O)O.[Se]", "B, Se"), ("C[Na]", "Na is supported only as a monatomic ion")],
)
def test_unsupported_elements_are_named(tmp_path: Path, smiles: str, named: str) -> None:
    code, events = run_engine("convert-smiles", {"smiles": smiles}, tmp_path)
    assert code == 1
    assert events[-1]["code"] == "UNSUPPORTED_ELEMENT"
    assert named in events[-1]["message"]


def test_ions_are_supported_as_monatomic_ions(tmp_path: Path) -> None:
    code, events = run_engine("convert-smiles", {"smiles": "[Na+].[Cl-]"}, tmp_path)
    assert code == 0, events[-1]
    assert {kind["name"]: kind["charge"] for kind in events[-1]["kinds"]} == {"NA": 1, "CL": -1}
    assert events[-1]["net_charge"] == 0
