"""Sequence expansion and assembly: counts, formulas, residues, junction bonds, no dummy atoms."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from conftest import (
    ETHYLENE,
    ETHYLENE_OXIDE,
    STYRENE,
    aminoacid_block,
    homopolymer_job,
    job,
    linear_block,
    new_id,
    polymer,
    segment,
)
from polyforge_engine.construct.assembly import AssembledPolymer, assemble, pairs_within_three_bonds
from polyforge_engine.construct.sequence import plan_polymers
from polyforge_engine.construct.templates import UnitTemplate, build_template
from polyforge_engine.events import EngineError
from polyforge_engine.job import parse_build_job
from rdkit import Chem
from rdkit.Chem import rdMolDescriptors

TEMPLATES: dict[str, UnitTemplate] = {}


def template(smiles: str, where: str) -> UnitTemplate:
    if smiles not in TEMPLATES:
        TEMPLATES[smiles] = build_template(smiles, where)
    return TEMPLATES[smiles]


def assembled(raw: dict[str, Any], seed: int = 1) -> list[AssembledPolymer]:
    chains = plan_polymers(parse_build_job(raw), template, np.random.default_rng(seed))
    return [assemble(plan, TEMPLATES) for polymer in chains.values() for plan in polymer.plans]


def residue_of(mol: Chem.Mol, atom: int) -> int:
    return mol.GetAtomWithIdx(atom).GetPDBResidueInfo().GetResidueNumber()


def assert_chain_junctions(kind: AssembledPolymer) -> None:
    """Exactly one bond between consecutive residues and none between others."""
    mol = kind.mol
    between = Counter()
    for bond in mol.GetBonds():
        a, b = residue_of(mol, bond.GetBeginAtomIdx()), residue_of(mol, bond.GetEndAtomIdx())
        if a != b:
            between[tuple(sorted((a, b)))] += 1
    residues = len(kind.plan.sequence)
    assert between == Counter({(r, r + 1): 1 for r in range(1, residues)})


@pytest.mark.parametrize(
    ("unit", "formula"),
    [(ETHYLENE, "C100H202"), (STYRENE, "C400H402"), (ETHYLENE_OXIDE, "C100H202O50")],
)
def test_homopolymer_formula_atoms_and_residues(unit: str, formula: str) -> None:
    [kind] = assembled(homopolymer_job(unit, 50, 1))
    assert kind.formula == formula
    assert kind.atom_count == kind.mol.GetNumAtoms() == Chem.AddHs(Chem.MolFromSmiles(Chem.MolToSmiles(kind.mol))).GetNumAtoms()
    assert all(atom.GetAtomicNum() != 0 for atom in kind.mol.GetAtoms())
    assert kind.plan.sequence == ("UNI",) * 50
    assert len({residue_of(kind.mol, a.GetIdx()) for a in kind.mol.GetAtoms()}) == 50
    assert kind.net_charge == 0
    assert kind.molecular_weight == pytest.approx(rdMolDescriptors.CalcExactMolWt(kind.mol), rel=1e-3)
    assert_chain_junctions(kind)


def test_junction_bond_joins_tail_anchor_to_next_head_anchor() -> None:
    [kind] = assembled(homopolymer_job(ETHYLENE_OXIDE, 4, 1))
    # Each unit is C-C-O: the O of one residue bonds to the first C of the next.
    for bond in kind.mol.GetBonds():
        a, b = bond.GetBeginAtom(), bond.GetEndAtom()
        if residue_of(kind.mol, a.GetIdx()) != residue_of(kind.mol, b.GetIdx()):
            assert sorted((a.GetSymbol(), b.GetSymbol())) == ["C", "O"]
    assert Chem.MolToSmiles(Chem.RemoveHs(kind.mol)) == Chem.MolToSmiles(Chem.MolFromSmiles("OCCOCCOCCOCC"))


def test_block_segment_order_and_polymer_segment_occurrences() -> None:
    ethylene, styrene = linear_block("Ethylene", ETHYLENE), linear_block("Styrene", STYRENE)
    seg = segment("linear_block", [(ethylene, 2), (styrene, 1)])
    poly = polymer("EES-x2", [seg])
    poly["segments"][0]["occurrence"] = 2
    [kind] = assembled(job([ethylene, styrene], [seg], [(poly, 1)]))
    assert kind.plan.sequence == ("ETH", "ETH", "STY", "ETH", "ETH", "STY")
    assert kind.formula == "C24H34"  # 4 × C2H4 + 2 × C8H8 + 2 H
    assert_chain_junctions(kind)


def test_random_copolymer_exact_composition_seeded_order() -> None:
    ethylene, styrene = linear_block("Ethylene", ETHYLENE), linear_block("Styrene", STYRENE)
    seg = segment("linear_random", [(ethylene, 3), (styrene, 1)], total=40)
    poly = polymer("random", [seg])
    raw = job([ethylene, styrene], [seg], [(poly, 1)])
    [kind] = assembled(raw, seed=11)
    assert Counter(kind.plan.sequence) == {"ETH": 30, "STY": 10}
    assert kind.formula == "C140H202"  # 30 × C2H4 + 10 × C8H8 + 2 H
    assert_chain_junctions(kind)
    assert assembled(raw, seed=11)[0].plan.sequence == kind.plan.sequence
    others = {assembled(raw, seed=s)[0].plan.sequence for s in (12, 13, 14)}
    assert others - {kind.plan.sequence}


def copy_sequences(raw: dict[str, Any], seed: int) -> list[tuple[str, ...]]:
    """The residue sequence of every copy of the job's single polymer, in setup order."""
    chains = plan_polymers(parse_build_job(raw), template, np.random.default_rng(seed))
    [polymer_chains] = chains.values()
    return [polymer_chains.plans[plan].sequence for plan in polymer_chains.copy_plans]


def test_random_segment_is_drawn_for_every_chain() -> None:
    ethylene, styrene = linear_block("Ethylene", ETHYLENE), linear_block("Styrene", STYRENE)
    seg = segment("linear_random", [(ethylene, 3), (styrene, 1)], total=40)
    poly = polymer("random", [seg])
    raw = job([ethylene, styrene], [seg], [(poly, 4)])
    sequences = copy_sequences(raw, seed=11)
    assert len(sequences) == 4
    for sequence in sequences:
        assert Counter(sequence) == {"ETH": 30, "STY": 10}
    # 40!/(30! 10!) orders: four identical draws would be a bug, not chance.
    assert len(set(sequences)) == 4
    assert copy_sequences(raw, seed=11) == sequences
    assert copy_sequences(raw, seed=12) != sequences


def test_every_use_of_a_random_segment_in_a_chain_is_drawn_anew() -> None:
    ethylene, styrene = linear_block("Ethylene", ETHYLENE), linear_block("Styrene", STYRENE)
    seg = segment("linear_random", [(ethylene, 1), (styrene, 1)], total=20)
    poly = polymer("random", [seg])
    poly["segments"][0]["occurrence"] = 2
    [sequence] = copy_sequences(job([ethylene, styrene], [seg], [(poly, 1)]), seed=4)
    first, second = sequence[:20], sequence[20:]
    assert Counter(first) == Counter(second) == {"ETH": 10, "STY": 10}
    assert first != second


def test_copies_without_random_segments_share_one_plan() -> None:
    raw = homopolymer_job(ETHYLENE, 5, 3)
    chains = plan_polymers(parse_build_job(raw), template, np.random.default_rng(1))
    [polymer_chains] = chains.values()
    assert len(polymer_chains.plans) == 1 and polymer_chains.copy_plans == (0, 0, 0)


def test_residue_names_are_unique_and_never_standard() -> None:
    """Blocks whose names start like a standard residue (MET, PHE, SOL, CYT, ALA, HOH) take other names,
    a real phenylalanine keeps PHE, and no two blocks share a name."""
    named = {
        name: linear_block(name, ETHYLENE)
        for name in ("Methyl methacrylate", "Methacrylic acid", "Phenyl acrylate", "Solketal acrylate", "Cytosine ester", "Alanine-like", "HOH-ol")
    }
    blocks = [*named.values(), aminoacid_block("F")]
    seg = segment("linear_block", [(block, 1) for block in blocks])
    poly = polymer("mixed", [seg])
    [kind] = assembled(job(blocks, [seg], [(poly, 1)]))
    by_block = dict(zip([block["name"] for block in blocks], kind.plan.sequence, strict=True))
    assert by_block["Phe"] == "PHE"
    standard = {"MET", "PHE", "ALA", "SOL", "WAT", "HOH", "CYT", "GUA", "ADE", "URA", "THY", "NA", "CL", "SOD", "CLA", "K"}
    chosen = [by_block[name] for name in named]
    assert not set(chosen) & standard
    assert len(set(by_block.values())) == len(blocks)
    assert all(len(name) == 3 for name in by_block.values())
    assert by_block["Methyl methacrylate"].startswith("ME")


def test_random_segment_total_must_be_a_multiple_of_the_ratios() -> None:
    ethylene, styrene = linear_block("Ethylene", ETHYLENE), linear_block("Styrene", STYRENE)
    seg = segment("linear_random", [(ethylene, 3), (styrene, 1)], total=41)
    with pytest.raises(EngineError) as caught:
        assembled(job([ethylene, styrene], [seg], [(polymer("r", [seg]), 1)]))
    assert caught.value.code == "INVALID_INPUT"


def test_peptide_has_free_amine_and_acid_and_three_letter_residues() -> None:
    letters = "GASKFAG"
    blocks = {letter: aminoacid_block(letter) for letter in set(letters)}
    seg = segment("linear_peptide", [(blocks[letter], 1) for letter in letters], capping_type="synthetic")
    poly = polymer("peptide", [seg])
    [kind] = assembled(job(list(blocks.values()), [seg], [(poly, 1)]))
    expected = Chem.AddHs(Chem.MolFromSequence(letters))
    assert kind.formula == rdMolDescriptors.CalcMolFormula(expected)
    assert Chem.MolToSmiles(Chem.RemoveHs(kind.mol)) == Chem.MolToSmiles(Chem.MolFromSequence(letters))
    assert kind.plan.sequence == ("GLY", "ALA", "SER", "LYS", "PHE", "ALA", "GLY")
    assert_chain_junctions(kind)


def dendrimer_job(kind: str, generation: int, mask: list[int]) -> dict[str, Any]:
    block = {
        "id": new_id(),
        "name": "Amine dendron",
        "type": "dendrimer",
        "data": {
            "central_unit": "C([*:2])([*:2])([*:2])[*:2]",
            "repeating_unit": "[*:1]CCN([*:2])[*:2]",
            "capping_central_unit": "[*:1]C",
            "head_repeating_unit": "[*:2][H]",
            "tail_repeating_unit": "[*:1][H]",
        },
    }
    seg = segment(kind, [(block, 1)], generation_number=generation, mask=mask)
    return job([block], [seg], [(polymer("dendrimer", [seg]), 1)])


def test_generation_two_dendrimer_from_central_unit() -> None:
    [kind] = assembled(dendrimer_job("dendrimer_from_central_unit", 2, [1, 1, 1, 0]))
    # Three grown arms, each 1 + 2 + 4 repeating units (g+1 = 3 shells): 21 + the central unit.
    assert kind.plan.sequence == ("AMC",) + ("AMR",) * 21
    # C + 21 × C2H4N + 24 tail H + one capping methyl (CH3).
    assert kind.formula == "C44H111N21"
    assert all(atom.GetAtomicNum() != 0 for atom in kind.mol.GetAtoms())
    # Every nitrogen carries two branches or two tail hydrogens; the tree has no ring.
    assert kind.mol.GetRingInfo().NumRings() == 0
    assert kind.end_atoms is None


def test_dendrimer_from_repeating_unit_with_mask() -> None:
    [kind] = assembled(dendrimer_job("dendrimer_from_rep_unit", 1, [1, 0]))
    # Root unit (head H on its [*:1]); one grown site -> one shell-1 unit with two tail H;
    # the masked site gets the capping methyl.
    assert kind.plan.sequence == ("AMR", "AMR")
    assert kind.formula == "C5H14N2"


def test_dendrimer_mask_must_match_the_connection_points() -> None:
    with pytest.raises(EngineError) as caught:
        assembled(dendrimer_job("dendrimer_from_central_unit", 1, [1, 1, 1]))
    assert caught.value.code == "INVALID_INPUT"


@pytest.mark.parametrize(
    ("unit", "code"),
    [("[*:1]CC(", "INVALID_SMILES"), ("[*:1]CC", "INVALID_SMILES"), ("[*:1]C(=O)(=O)[*:2]", "INVALID_SMILES"), ("[*:3]CC[*:2]", "INVALID_SMILES")],
)
def test_units_that_do_not_assemble(unit: str, code: str) -> None:
    with pytest.raises(EngineError) as caught:
        assembled(homopolymer_job(unit, 3, 1))
    assert caught.value.code == code
    assert caught.value.message


def test_segment_without_blocks_is_empty() -> None:
    raw = homopolymer_job(ETHYLENE, 3, 1)
    raw["segments"][0]["blocks"] = []
    with pytest.raises(EngineError) as caught:
        assembled(raw)
    assert caught.value.code == "EMPTY_SEGMENT"


def test_pairs_within_three_bonds_of_butane() -> None:
    mol = Chem.AddHs(Chem.MolFromSmiles("CCCC"))
    bonds = np.array([(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in mol.GetBonds()])
    keys = set(pairs_within_three_bonds(bonds, mol.GetNumAtoms()).tolist())
    distances = Chem.GetDistanceMatrix(mol)
    n = mol.GetNumAtoms()
    expected = {i * n + j for i in range(n) for j in range(i + 1, n) if distances[i, j] <= 3}
    assert keys == expected
