"""One RDKit molecule per polymer kind: units joined tail [*:2] to head [*:1] (the markers vanish and
their neighbours bond), caps applied, explicit hydrogens, PDB residue information, then charge and
valence checked by RDKit sanitisation."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from rdkit import Chem
from rdkit.Chem import rdMolDescriptors

from polyforge_engine.construct.arrays import sorted_unique
from polyforge_engine.construct.sequence import PolymerPlan
from polyforge_engine.construct.templates import UnitTemplate
from polyforge_engine.events import EngineError


@dataclass(frozen=True)
class AssembledPolymer:
    plan: PolymerPlan
    mol: Chem.Mol  # explicit hydrogens; every atom has AtomPDBResidueInfo (residue name/number, atom name)
    unit_offsets: np.ndarray  # (units,) index of each unit's first atom in `mol`
    masses: np.ndarray  # (atoms,) amu
    elements: tuple[str, ...]
    atom_names: tuple[str, ...]
    residue_of_atom: np.ndarray  # (atoms,) residue index
    bonds: np.ndarray  # (bonds, 2) atom indices
    close_pairs: np.ndarray  # sorted keys i * atoms + j (i < j) of atom pairs at most three bonds apart
    molecular_weight: float  # amu (average atomic masses)
    formula: str
    net_charge: int
    end_atoms: tuple[int, int] | None  # atoms that carry the head and tail caps of a linear chain

    @property
    def atom_count(self) -> int:
        return len(self.masses)


def pairs_within_three_bonds(bonds: np.ndarray, atom_count: int) -> np.ndarray:
    """Sorted unique keys i*n+j (i<j) of atom pairs one, two or three bonds apart (numpy joins)."""
    if len(bonds) == 0:
        return np.zeros(0, dtype=np.int64)
    directed = np.concatenate([bonds, bonds[:, ::-1]]).astype(np.int64)
    directed = directed[np.argsort(directed[:, 0], kind="stable")]
    start = np.searchsorted(directed[:, 0], np.arange(atom_count + 1))
    degree = np.diff(start)

    def extend(paths: np.ndarray) -> np.ndarray:
        last = paths[:, 1]
        repeats = degree[last]
        origin = np.repeat(paths[:, 0], repeats)
        offsets = np.arange(repeats.sum()) - np.repeat(np.cumsum(repeats) - repeats, repeats)
        neighbour = directed[np.repeat(start[last], repeats) + offsets, 1]
        keep = neighbour != origin
        return np.stack([origin[keep], neighbour[keep]], axis=1)

    two = extend(directed)
    three = extend(two)
    everything = np.concatenate([directed, two, three])
    low = everything.min(axis=1)
    high = everything.max(axis=1)
    return sorted_unique(low * atom_count + high)


def system_bonds(kinds: list[AssembledPolymer], molecule_kinds: list[int], molecule_offsets: np.ndarray) -> np.ndarray:
    """Every bond of a system of molecules (kind of each, first atom of each), (bonds, 2) atom indices."""
    return np.concatenate([kinds[k].bonds + int(start) for start, k in zip(molecule_offsets, molecule_kinds, strict=True)]).astype(np.int64)


def _atom_names(elements: tuple[str, ...], residue_of_atom: np.ndarray) -> tuple[str, ...]:
    """Element plus a running number within the residue (C1, C2, H1…), at most four characters."""
    counters: dict[int, Counter[str]] = {}
    names = []
    for element, residue in zip(elements, residue_of_atom.tolist(), strict=True):
        counter = counters.setdefault(residue, Counter())
        counter[element] += 1
        names.append(f"{element.upper()}{counter[element]}"[:4])
    return tuple(names)


def assemble(plan: PolymerPlan, templates: dict[str, UnitTemplate]) -> AssembledPolymer:
    molecule = Chem.RWMol()
    offsets = []
    for unit in plan.units:
        offsets.append(molecule.GetNumAtoms())
        molecule.InsertMol(templates[unit.smiles].mol)
    for index, unit in enumerate(plan.units):
        if unit.parent < 0:
            continue
        parent = plan.units[unit.parent]
        a = offsets[unit.parent] + templates[parent.smiles].sites[unit.parent_site].anchor
        b = offsets[index] + templates[unit.smiles].sites[unit.own_site].anchor
        molecule.AddBond(a, b, Chem.BondType.SINGLE)
    mol = molecule.GetMol()
    try:
        Chem.SanitizeMol(mol)
    except Exception as exc:  # RDKit raises several types for chemistry problems
        raise EngineError("INVALID_SMILES", f"The units of polymer '{plan.name}' do not assemble into a valid molecule ({exc}).") from exc
    if any(atom.GetNumRadicalElectrons() for atom in mol.GetAtoms()):
        raise EngineError(
            "INVALID_SMILES",
            f"Polymer '{plan.name}' would keep unpaired electrons after assembly: check the units' connection points.",
        )

    unit_sizes = np.array([templates[u.smiles].atom_count for u in plan.units])
    residue_of_atom = np.repeat(np.array([u.residue for u in plan.units]), unit_sizes)
    residue_name_of_atom = np.repeat(np.array([u.residue_name for u in plan.units]), unit_sizes)
    elements = tuple(e for u in plan.units for e in templates[u.smiles].elements)
    names = _atom_names(elements, residue_of_atom)
    for atom, name, residue, residue_name in zip(mol.GetAtoms(), names, residue_of_atom.tolist(), residue_name_of_atom.tolist(), strict=True):
        info = Chem.AtomPDBResidueInfo()
        info.SetName(f"{name:<4}" if len(name) == 4 else f" {name:<3}")
        info.SetResidueName(residue_name)
        info.SetResidueNumber(residue + 1)
        info.SetIsHeteroAtom(False)
        atom.SetMonomerInfo(info)

    bonds = np.array([(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in mol.GetBonds()], dtype=np.int64).reshape(-1, 2)
    end_atoms = None
    if plan.is_linear:
        head_cap, tail_cap = plan.units[1], plan.units[-1]
        first, last = plan.units[head_cap.parent], plan.units[tail_cap.parent]
        end_atoms = (
            offsets[head_cap.parent] + templates[first.smiles].sites[head_cap.parent_site].anchor,
            offsets[tail_cap.parent] + templates[last.smiles].sites[tail_cap.parent_site].anchor,
        )
    masses = np.array([atom.GetMass() for atom in mol.GetAtoms()])
    return AssembledPolymer(
        plan=plan,
        mol=mol,
        unit_offsets=np.array(offsets, dtype=np.int64),
        masses=masses,
        elements=elements,
        atom_names=names,
        residue_of_atom=residue_of_atom,
        bonds=bonds,
        close_pairs=pairs_within_three_bonds(bonds, mol.GetNumAtoms()),
        molecular_weight=float(masses.sum()),  # every hydrogen is explicit
        formula=rdMolDescriptors.CalcMolFormula(mol),
        net_charge=Chem.GetFormalCharge(mol),
        end_atoms=end_atoms,
    )
