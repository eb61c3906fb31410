"""Small 3D test systems for the parametrisation and simulation tests: linear homopolymers with
one residue per unit (as the builder makes them), and copies of them packed on a grid in a box."""

from __future__ import annotations

from collections import Counter

import numpy as np
from polyforge_engine.parametrise.assemble import SystemModel, group_copies
from rdkit import Chem
from rdkit.Chem import AllChem

PE_UNIT = "[*:1]CC[*:2]"
PS_UNIT = "[*:1]CC(c1ccccc1)[*:2]"
ALA_UNIT = "[*:1]NC(C)C(=O)[*:2]"


def linear_polymer(unit_smiles: str, units: int, residue_name: str, seed: int = 7, tail_cap: str = "[H]") -> Chem.Mol:
    """Chain of `units` copies of a unit with markers [*:1] (head) and [*:2] (tail), a hydrogen
    head cap and `tail_cap` (an atom SMILES), one residue per unit, explicit hydrogens, one
    ETKDG conformer."""
    pieces = []
    for number in range(1, units + 1):
        unit = Chem.MolFromSmiles(unit_smiles)
        for atom in unit.GetAtoms():
            if atom.GetAtomicNum() == 0:
                # head dummy pairs with the previous unit's tail; labels must be unique per bond
                atom.SetAtomMapNum(number if atom.GetAtomMapNum() == 1 else number + 1)
            else:
                atom.SetIntProp("unit", number)
        pieces.append(unit)
    head_cap = Chem.MolFromSmiles("[H][*:1]", sanitize=False)
    tail = Chem.MolFromSmiles(f"{tail_cap}[*:{units + 1}]", sanitize=False)
    for cap, number in ((head_cap, 1), (tail, units)):
        cap.GetAtomWithIdx(0).SetIntProp("unit", number)
    combined = pieces[0]
    for piece in [*pieces[1:], head_cap, tail]:
        combined = Chem.CombineMols(combined, piece)
    chain = Chem.molzip(combined)
    Chem.SanitizeMol(chain)
    chain = Chem.AddHs(chain)
    for atom in chain.GetAtoms():
        # added hydrogens belong to the unit of the atom they sit on
        owner = atom if atom.HasProp("unit") else atom.GetNeighbors()[0]
        atom.SetMonomerInfo(Chem.AtomPDBResidueInfo("X", residueName=residue_name, residueNumber=owner.GetIntProp("unit")))
    _name_atoms(chain)
    params = AllChem.ETKDGv3()
    params.randomSeed = seed
    params.useRandomCoords = True  # long chains embed reliably only from random coordinates
    if AllChem.EmbedMolecule(chain, params) != 0:
        raise RuntimeError("test chain could not be embedded")
    AllChem.MMFFOptimizeMolecule(chain, maxIters=500)
    return chain


def _name_atoms(mol: Chem.Mol) -> None:
    per_residue: dict[int, Counter[str]] = {}
    for atom in mol.GetAtoms():
        info = atom.GetPDBResidueInfo()
        counts = per_residue.setdefault(info.GetResidueNumber(), Counter())
        counts[atom.GetSymbol()] += 1
        info.SetName(f"{atom.GetSymbol()}{counts[atom.GetSymbol()]}".ljust(4)[:4])
        info.SetIsHeteroAtom(False)


def packed_copies(mol: Chem.Mol, copies: int, box_nm: float, seed: int = 3) -> tuple[list[Chem.Mol], np.ndarray]:
    """`copies` randomly rotated copies of `mol` on a cubic grid filling a box of side `box_nm`
    (returned in Å as [A, B, C]). Fails if the copies cannot be separated."""
    rng = np.random.default_rng(seed)
    per_side = int(np.ceil(copies ** (1 / 3)))
    spacing = box_nm * 10 / per_side
    result = []
    for index in range(copies):
        copy = Chem.Mol(mol)
        xyz = copy.GetConformer().GetPositions()
        xyz -= xyz.mean(axis=0)
        rotation, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        xyz = xyz @ rotation.T
        cell = np.array([index % per_side, (index // per_side) % per_side, index // per_side**2])
        xyz += (cell + 0.5) * spacing
        conformer = copy.GetConformer()
        for atom_index, point in enumerate(xyz):
            conformer.SetAtomPosition(atom_index, point.tolist())
        result.append(copy)
    return result, np.array([box_nm * 10] * 3)


def melt(unit_smiles: str, units: int, residue_name: str, copies: int, box_nm: float, tail_cap: str = "[H]") -> SystemModel:
    """A small melt as parametrise_system takes it: `copies` chains on a grid in a cubic box."""
    chain = linear_polymer(unit_smiles, units, residue_name, tail_cap=tail_cap)
    molecules, box = packed_copies(chain, copies, box_nm)
    grouped = group_copies(molecules)
    return SystemModel(grouped.kinds, grouped.copies, box)
