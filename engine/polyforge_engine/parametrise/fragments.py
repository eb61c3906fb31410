"""Capped fragments for per-unit charging (ARCHITECTURE §6).

A polymer's residues are its units. The fragment of a unit is the unit itself ("central" atoms)
plus the whole neighbouring units bonded to it ("environment"), with a hydrogen cap on every bond
that leaves the fragment. Two units whose fragments are the same labelled graph get the same
charges, so the number of quantum-chemistry runs grows with the number of distinct unit
environments, not with the chain length."""

from __future__ import annotations

from dataclasses import dataclass

from rdkit import Chem

# Atom map numbers that label a fragment atom's role in the cache key.
_CENTRAL, _ENVIRONMENT, _CAP = 0, 1, 2

# Molecules up to this size are charged in one piece; fragments would not save anything.
WHOLE_MOLECULE_MAX_ATOMS = 120


@dataclass(frozen=True)
class Fragment:
    mol: Chem.Mol  # explicit hydrogens, sanitised, no stereo, no conformer
    parent_index: list[int]  # fragment atom -> parent atom index, -1 for a cap hydrogen
    central: list[bool]  # fragment atom belongs to the unit being charged
    key: str  # labelled canonical SMILES: equal keys mean interchangeable fragments
    canonical_rank: list[int]  # fragment atom -> position in the key's canonical atom order
    symmetry_class: list[int]  # equal values: atoms the labelled graph cannot tell apart
    net_charge: int


def residue_groups(mol: Chem.Mol) -> list[list[int]]:
    """Atom indices per residue, residues in order of first appearance. Without residue
    information the molecule is one group."""
    groups: dict[tuple[str, int, str, str], list[int]] = {}
    for atom in mol.GetAtoms():
        info = atom.GetPDBResidueInfo()
        key = (info.GetChainId(), info.GetResidueNumber(), info.GetResidueName(), info.GetInsertionCode()) if info else ("", 0, "", "")
        groups.setdefault(key, []).append(atom.GetIdx())
    return list(groups.values())


def unit_fragments(mol: Chem.Mol, whole_molecule_max_atoms: int = WHOLE_MOLECULE_MAX_ATOMS) -> list[Fragment]:
    """One fragment per residue of `mol` (explicit hydrogens), or the whole molecule when it is
    small or has a single residue. Every parent atom is central in exactly one fragment."""
    groups = residue_groups(mol)
    if len(groups) == 1 or mol.GetNumAtoms() <= whole_molecule_max_atoms:
        every_atom = list(range(mol.GetNumAtoms()))
        return [_make_fragment(mol, every_atom, set(every_atom))]
    kekule = Chem.Mol(mol)
    Chem.Kekulize(kekule, clearAromaticFlags=True)
    group_of = [0] * mol.GetNumAtoms()
    for number, group in enumerate(groups):
        for index in group:
            group_of[index] = number
    return [_make_fragment(kekule, group, _fragment_atoms(kekule, group, groups, group_of)) for group in groups]


def _fragment_atoms(mol: Chem.Mol, central: list[int], groups: list[list[int]], group_of: list[int]) -> set[int]:
    """Central unit plus its bonded neighbour units; grown further while a bond leaving the
    fragment could not be capped by a hydrogen (a double bond or a ring bond)."""
    members = set(central)
    for index in central:
        for neighbour in mol.GetAtomWithIdx(index).GetNeighbors():
            members.update(groups[group_of[neighbour.GetIdx()]])
    while True:
        uncappable = {group_of[other] for _, other, bond in _leaving_bonds(mol, members) if bond.GetBondType() != Chem.BondType.SINGLE or bond.IsInRing()}
        if not uncappable:
            return members
        for number in uncappable:
            members.update(groups[number])


def _leaving_bonds(mol: Chem.Mol, members: set[int]) -> list[tuple[int, int, Chem.Bond]]:
    """(atom inside, atom outside, bond) for every bond that crosses the fragment's border."""
    crossing = []
    for inside in members:
        for bond in mol.GetAtomWithIdx(inside).GetBonds():
            other = bond.GetOtherAtomIdx(inside)
            if other not in members:
                crossing.append((inside, other, bond))
    return crossing


def _make_fragment(mol: Chem.Mol, central: list[int], members: set[int]) -> Fragment:
    central_set = set(central)
    ordered = sorted(members)
    fragment = Chem.RWMol()
    position: dict[int, int] = {}
    for index in ordered:
        source = mol.GetAtomWithIdx(index)
        atom = Chem.Atom(source.GetAtomicNum())
        atom.SetFormalCharge(source.GetFormalCharge())
        atom.SetIsAromatic(source.GetIsAromatic())
        atom.SetNoImplicit(True)
        atom.SetAtomMapNum(_CENTRAL if index in central_set else _ENVIRONMENT)
        position[index] = fragment.AddAtom(atom)
    parent_index = list(ordered)
    inner_bonds = {bond.GetIdx(): bond for index in ordered for bond in mol.GetAtomWithIdx(index).GetBonds()}
    for bond in inner_bonds.values():
        begin, end = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
        if begin in position and end in position:
            fragment.AddBond(position[begin], position[end], bond.GetBondType())
    for inside, _, _ in sorted(_leaving_bonds(mol, members), key=lambda crossing: crossing[:2]):
        cap = Chem.Atom(1)
        cap.SetNoImplicit(True)
        cap.SetAtomMapNum(_CAP)
        cap_index = fragment.AddAtom(cap)
        fragment.AddBond(position[inside], cap_index, Chem.BondType.SINGLE)
        parent_index.append(-1)
    Chem.SanitizeMol(fragment)
    key = Chem.MolToSmiles(fragment, isomericSmiles=False)
    ranks = list(Chem.CanonicalRankAtoms(fragment, breakTies=True))
    symmetry = list(Chem.CanonicalRankAtoms(fragment, breakTies=False))
    for atom in fragment.GetAtoms():
        atom.SetAtomMapNum(0)
    net_charge = sum(atom.GetFormalCharge() for atom in fragment.GetAtoms())
    central_flags = [index >= 0 and index in central_set for index in parent_index]
    return Fragment(fragment.GetMol(), parent_index, central_flags, key, ranks, symmetry, net_charge)
