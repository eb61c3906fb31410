"""Per-unit fragment charging of whole molecules, exact to the molecule's integer net charge."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rdkit import Chem

from polyforge_engine.events import EngineError
from polyforge_engine.parametrise.antechamber import am1bcc_types_and_charges
from polyforge_engine.parametrise.errors import INVALID_VALENCE, UNSUPPORTED_ELEMENT
from polyforge_engine.parametrise.force_fields import AtomTypeSet
from polyforge_engine.parametrise.fragments import WHOLE_MOLECULE_MAX_ATOMS, Fragment, unit_fragments
from polyforge_engine.runtime.cancellation import raise_if_cancelled

# Elements GAFF and GAFF2 have atom types for, and silicon through the siloxane parameters.
GAFF_ELEMENTS = frozenset({"H", "C", "N", "O", "F", "P", "S", "Cl", "Br", "I"})
PARAMETRISED_ELEMENTS = GAFF_ELEMENTS | {"Si"}


@dataclass
class _ChargedFragment:
    types_by_rank: list[str]
    charges_by_rank: np.ndarray


@dataclass
class FragmentCache:
    """Charged fragments by key, shared by every molecule of a run."""

    atom_types: AtomTypeSet
    workdir: Path
    entries: dict[str, _ChargedFragment] = field(default_factory=dict)
    antechamber_runs: int = 0
    fragments_seen: int = 0

    def charge(self, fragment: Fragment, label: str) -> _ChargedFragment:
        self.fragments_seen += 1
        entry = self.entries.get(fragment.key)
        if entry is None:
            raise_if_cancelled()
            self.antechamber_runs += 1
            types, charges = am1bcc_types_and_charges(
                fragment.mol,
                fragment.net_charge,
                self.atom_types,
                self.workdir / f"fragment_{self.antechamber_runs:04d}",
                label,
            )
            entry = _rank_ordered(fragment, types, _central_neutralised(fragment, _symmetrised(fragment, np.array(charges))))
            self.entries[fragment.key] = entry
        return entry


@dataclass(frozen=True)
class ChargedMolecule:
    atom_types: list[str]
    charges: np.ndarray  # elementary charges, summing to net_charge
    net_charge: int


def charge_molecule(
    mol: Chem.Mol,
    cache: FragmentCache,
    label: str,
    on_fragment: Callable[[int, int], None] | None = None,
    whole_molecule_max_atoms: int = WHOLE_MOLECULE_MAX_ATOMS,
) -> ChargedMolecule:
    """GAFF types and AM1-BCC charges for every atom of `mol` (explicit hydrogens, residues =
    units), from one antechamber run per distinct unit environment. `on_fragment(done, total)`
    reports progress."""
    check_gaff_chemistry(mol, label)
    net_charge = Chem.GetFormalCharge(mol)
    atom_types: list[str] = [""] * mol.GetNumAtoms()
    charges = np.zeros(mol.GetNumAtoms())
    fragments = unit_fragments(mol, whole_molecule_max_atoms)
    for done, fragment in enumerate(fragments, start=1):
        entry = cache.charge(fragment, f"a unit of {label}" if len(fragments) > 1 else label)
        for position, parent in enumerate(fragment.parent_index):
            if fragment.central[position]:
                rank = fragment.canonical_rank[position]
                atom_types[parent] = entry.types_by_rank[rank]
                charges[parent] = entry.charges_by_rank[rank]
        if on_fragment:
            on_fragment(done, len(fragments))
    # Units are neutralised one by one; what float rounding leaves is spread over every atom.
    charges -= (charges.sum() - net_charge) / len(charges)
    return ChargedMolecule(atom_types, charges, net_charge)


def check_gaff_chemistry(mol: Chem.Mol, label: str) -> None:
    for atom in mol.GetAtoms():
        where = _atom_label(atom)
        if atom.GetSymbol() not in PARAMETRISED_ELEMENTS:
            raise EngineError(UNSUPPORTED_ELEMENT, f"GAFF has no atom types for {atom.GetSymbol()} ({where} of {label}).")
        if atom.GetNumRadicalElectrons():
            raise EngineError(INVALID_VALENCE, f"{where} of {label} has an unpaired electron: its valence is incomplete.")


def check_unit_elements(smiles: str, where: str) -> None:
    """Refuse, before anything is built, a unit with an element the force field has no types for
    (a SMILES RDKit cannot read is the builder's to report)."""
    unit = Chem.MolFromSmiles(smiles, sanitize=False)
    for atom in unit.GetAtoms() if unit is not None else ():
        if atom.GetAtomicNum() > 0 and atom.GetSymbol() not in PARAMETRISED_ELEMENTS:
            raise EngineError(UNSUPPORTED_ELEMENT, f"GAFF has no atom types for {atom.GetSymbol()} (atom {atom.GetIdx() + 1} of {where}).")


def _atom_label(atom: Chem.Atom) -> str:
    info = atom.GetPDBResidueInfo()
    if info:
        return f"atom {info.GetName().strip()} of residue {info.GetResidueName()} {info.GetResidueNumber()}"
    return f"atom {atom.GetIdx() + 1} ({atom.GetSymbol()})"


def _symmetrised(fragment: Fragment, charges: np.ndarray) -> np.ndarray:
    """Equal charges for atoms the graph cannot tell apart (the conformer can break symmetry)."""
    classes = np.array(fragment.symmetry_class)
    averaged = charges.copy()
    for value in np.unique(classes):
        members = classes == value
        averaged[members] = charges[members].mean()
    return averaged


def _central_neutralised(fragment: Fragment, charges: np.ndarray) -> np.ndarray:
    """Make the unit's own atoms sum to the unit's formal charge, so units stay interchangeable."""
    central = np.array(fragment.central)
    target = sum(atom.GetFormalCharge() for atom, inside in zip(fragment.mol.GetAtoms(), central, strict=True) if inside)
    corrected = charges.copy()
    corrected[central] -= (charges[central].sum() - target) / central.sum()
    return corrected


def _rank_ordered(fragment: Fragment, types: list[str], charges: np.ndarray) -> _ChargedFragment:
    types_by_rank = [""] * len(types)
    charges_by_rank = np.zeros(len(types))
    for position, rank in enumerate(fragment.canonical_rank):
        types_by_rank[rank] = types[position]
        charges_by_rank[rank] = charges[position]
    return _ChargedFragment(types_by_rank, charges_by_rank)
