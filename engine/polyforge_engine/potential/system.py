"""The system a potential is generated for (`generate-potential`, SPEC §3 Potential, §5): the
molecules of a structure converted from SMILES (.sdf, bond orders known) or uploaded (.pdb/.gro),
grouped into kinds, in their cell. For an upload, bonds come from CONECT records or distances (through the cell), molecules
wrapped into the cell are made whole, and each molecule's bond orders and formal charge are perceived
from its bonds (with the charge its file declares, else the one its bonds fit) once per distinct
molecule; the sum must be the net charge the user gave. Identical molecules share one
parametrisation. The topology's cell is the file's when it holds several molecules (refused when a
side is not longer than twice the cutoff plus a margin, which grompp needs), else the molecules are
centred in a box padded by twice the cutoff. Water gets TIP3P and monatomic ions the Joung-Cheatham
parameters for it (parametrise/assemble.py), not GAFF; every other kind GAFF or GAFF2 with AM1-BCC
charges."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
from rdkit import Chem
from rdkit.Chem import rdDetermineBonds
from rdkit.Chem.rdMolDescriptors import CalcMolFormula

from polyforge_engine.events import EngineError
from polyforge_engine.parametrise.assemble import MoleculeCopy, SystemModel, group_copies
from polyforge_engine.parametrise.errors import INVALID_VALENCE, WRONG_NET_CHARGE
from polyforge_engine.simulate.protocol import CELL_TOO_SMALL, CUTOFF_NM
from polyforge_engine.structures.molecules import ION_CHARGES, hill_formula, perceive_bonds, usable_cell, whole_molecules
from polyforge_engine.structures.readers import INVALID_STRUCTURE, read_structure

CELL_NOT_RECTANGULAR = "CELL_NOT_RECTANGULAR"
BOX_MARGIN_A = 1.0  # Å beyond twice the cutoff: grompp wants the cutoff shorter than half a side


def read_system(path: Path, charge: int) -> SystemModel:
    """The molecules of `path` (.sdf, else .pdb/.gro) carrying the net `charge`, grouped into kinds,
    in the topology's cell."""
    box: np.ndarray | None = None
    if path.suffix.lower() == ".sdf":
        molecules = molecules_from_sdf(path, charge)
    else:
        molecules, box = molecules_from_coordinates(path, charge)
    return simulation_box(group_copies(molecules), box)


def molecules_from_sdf(path: Path, charge: int) -> list[Chem.Mol]:
    supplier = Chem.SDMolSupplier(str(path), removeHs=False)
    molecules: list[Chem.Mol] = []
    for number, mol in enumerate(supplier, start=1):
        if mol is None:
            raise EngineError(
                INVALID_STRUCTURE,
                f"Record {number} of {path.name} is not a valid molecule (broken valence or garbled).",
            )
        molecules += list(Chem.GetMolFrags(mol, asMols=True))
    if not molecules:
        raise EngineError(INVALID_STRUCTURE, f"{path.name} contains no molecule.")
    found = sum(Chem.GetFormalCharge(mol) for mol in molecules)
    if found != charge:
        raise EngineError(WRONG_NET_CHARGE, f"The structure carries a net charge of {found}, but {charge} was requested.")
    return molecules


def molecules_from_coordinates(path: Path, charge: int) -> tuple[list[Chem.Mol], np.ndarray | None]:
    """Atoms of a .pdb/.gro file as molecules with bonds and bond orders perceived from the
    geometry (CONECT records when present) and the net charge."""
    atoms = read_structure(path)
    symbols = atoms.element_symbols()
    if "H" not in symbols:
        raise EngineError(INVALID_STRUCTURE, "The structure has no hydrogen atoms; GAFF needs every hydrogen present.")
    editable = Chem.RWMol()
    conformer = Chem.Conformer(atoms.count)
    xyz_all = atoms.xyz().astype(float)
    names, residue_names = atoms.names.values, atoms.residue_names.values
    for index, element in enumerate(symbols):
        name = names[atoms.name_of_atom[index]]
        residue_index = atoms.residue_of_atom[index]
        residue = residue_names[atoms.name_of_residue[residue_index]]
        try:
            atom = Chem.Atom(element)
        except RuntimeError:
            raise EngineError(INVALID_STRUCTURE, f"Atom {index + 1} ({name}) has an unknown element {element!r}.") from None
        atom.SetMonomerInfo(Chem.AtomPDBResidueInfo(name[:4], residueName=residue[:3] or "MOL", residueNumber=residue_index + 1))
        editable.AddAtom(atom)
        conformer.SetAtomPosition(index, xyz_all[index].tolist())
    bonds = perceive_bonds(atoms)
    cell = usable_cell(atoms.cell, atoms.xyz())
    for index, point in enumerate(whole_molecules(xyz_all, bonds, cell).tolist()):
        conformer.SetAtomPosition(index, point)
    editable.AddConformer(conformer, assignId=True)
    for begin, end in bonds.tolist():
        if editable.GetBondBetweenAtoms(begin, end) is None:
            editable.AddBond(begin, end, Chem.BondType.SINGLE)
    mol = editable.GetMol()
    mapping: list[tuple[int, ...]] = []
    fragments = list(Chem.GetMolFrags(mol, asMols=True, sanitizeFrags=False, fragsMolAtomMapping=mapping))
    declared = np.frombuffer(atoms.charges, dtype=np.int8) if len(atoms.charges) else None
    molecules = []
    perceived: dict[tuple, Chem.Mol] = {}  # copies with the same atoms and bonds in the same order
    for number, (fragment, members) in enumerate(zip(fragments, mapping, strict=True), start=1):
        given = declared[list(members)] if declared is not None else np.array([-128])
        known = int(given[given != -128].astype(int).sum()) if (given != -128).any() else None
        signature = _graph_signature(fragment, known)
        if signature in perceived:
            molecules.append(_with_bond_orders_of(perceived[signature], fragment))
            continue
        perceived[signature] = perceive_bond_orders(fragment, known, number)
        molecules.append(perceived[signature])
    molecules = [_oxygen_first(molecule) for molecule in molecules]
    found = sum(Chem.GetFormalCharge(molecule) for molecule in molecules)
    if found != charge:
        raise EngineError(WRONG_NET_CHARGE, _charge_mismatch(molecules, found, charge))
    box = atoms.box_lengths()
    if box and len(molecules) > 1 and atoms.cell is not None:
        refuse_triclinic(atoms.cell)
    return molecules, np.array(box) if box else None


def refuse_triclinic(cell: np.ndarray) -> None:
    """The topology's cell is rectangular (the GROMACS .gro, the prmtop's box and OpenMM's
    vectors are written from three side lengths), so a slanted cell is refused rather than
    squared off, which would change which atoms are neighbours across its faces."""
    off_diagonal = np.abs(cell - np.diag(np.diag(cell))).max()
    if off_diagonal > 1e-4:  # Å: a .gro's triclinic fields written as zeros read back exact
        a, b, c = (float(np.linalg.norm(row)) for row in cell)
        raise EngineError(
            CELL_NOT_RECTANGULAR,
            f"The cell is triclinic ({a:.1f} × {b:.1f} × {c:.1f} Å, vectors not at right angles): potentials are "
            "generated for rectangular cells only. Upload the system in a rectangular cell.",
        )


# Charges tried, in order, for a molecule whose file says none: with every hydrogen present the
# bond orders fit one of them (ethanol only 0, acetate only -1).
_CHARGES_TO_TRY = (0, -1, 1, -2, 2, -3, 3)


def perceive_bond_orders(fragment: Chem.Mol, charge: int | None, number: int) -> Chem.Mol:
    """Bond orders and formal charges of a molecule from its connectivity: with the charge its file
    declares, a monatomic ion's usual charge, or the first charge its bonds can fit."""
    if fragment.GetNumAtoms() == 1:  # a monatomic ion: nothing to perceive
        ion = Chem.RWMol(fragment)
        atom = ion.GetAtomWithIdx(0)
        atom.SetFormalCharge(charge if charge is not None else ION_CHARGES.get(atom.GetSymbol(), 0))
        atom.SetNoImplicit(True)
        Chem.SanitizeMol(ion)
        return ion.GetMol()
    tried = (charge,) if charge is not None else _CHARGES_TO_TRY
    for candidate in tried:
        attempt = Chem.Mol(fragment)
        try:
            rdDetermineBonds.DetermineBondOrders(attempt, charge=candidate)
            Chem.SanitizeMol(attempt)
        except (ValueError, RuntimeError):
            continue
        return attempt
    formula = hill_formula(Counter(atom.GetSymbol() for atom in fragment.GetAtoms()))
    raise EngineError(
        INVALID_VALENCE,
        f"Molecule {number} ({formula}) has bonds that fit no formal charge"
        + (f" (its file declares {charge:+d})" if charge is not None else f" from {min(tried)} to +{max(tried)}")
        + ": check that every hydrogen is present and that no atoms overlap.",
    )


def _charge_mismatch(molecules: list[Chem.Mol], found: int, requested: int) -> str:
    charged: dict[str, list[int]] = {}
    for molecule in molecules:
        if Chem.GetFormalCharge(molecule):
            entry = charged.setdefault(CalcMolFormula(molecule), [Chem.GetFormalCharge(molecule), 0])
            entry[1] += 1
    parts = ", ".join(f"{count} × {formula}" for formula, (_, count) in charged.items())
    return (
        f"The structure carries a net charge of {_signed(found)}"
        + (f" ({parts})" if parts else " (every molecule neutral)")
        + f", but {_signed(requested)} was requested. Set the net charge to {_signed(found)}, or upload the"
        " structure with the protons your molecules should carry."
    )


def _signed(number: int) -> str:
    return f"{number:+d}" if number else "0"


def _oxygen_first(molecule: Chem.Mol) -> Chem.Mol:
    """Water with its atoms in the order O, H, H, as the TIP3P model lists them."""
    symbols = [atom.GetSymbol() for atom in molecule.GetAtoms()]
    if sorted(symbols) != ["H", "H", "O"] or symbols[0] == "O":
        return molecule
    oxygen = symbols.index("O")
    return Chem.RenumberAtoms(molecule, [oxygen] + [index for index in range(3) if index != oxygen])


def _graph_signature(fragment: Chem.Mol, charge: int | None) -> tuple:
    atoms = tuple(atom.GetAtomicNum() for atom in fragment.GetAtoms())
    bonds = tuple(sorted((bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()) for bond in fragment.GetBonds()))
    return charge, atoms, bonds


def _with_bond_orders_of(template: Chem.Mol, fragment: Chem.Mol) -> Chem.Mol:
    """A copy of `template` (bond orders, formal charges perceived once) at `fragment`'s positions:
    a box of 5,000 identical molecules costs one bond-order perception, not 5,000."""
    copy = Chem.Mol(template)
    conformer = copy.GetConformer()
    for index, point in enumerate(fragment.GetConformer().GetPositions().tolist()):
        conformer.SetAtomPosition(index, point)
    for atom, source in zip(copy.GetAtoms(), fragment.GetAtoms(), strict=True):
        atom.SetMonomerInfo(source.GetPDBResidueInfo())
    return copy


def kind_labels(kinds: list[Chem.Mol]) -> list[str]:
    """Names that say what each kind is: its residue name when it has one residue (HOH, NA, a
    ligand's code), else its formula counted from its atoms (the charge is reported apart);
    repeated names get a number."""
    labels: list[str] = []
    for mol in kinds:
        residues = {atom.GetPDBResidueInfo().GetResidueName().strip() for atom in mol.GetAtoms() if atom.GetPDBResidueInfo()}
        generic = not residues or len(residues) > 1 or residues & {"MOL", "UNL", "LIG", ""}
        label = hill_formula(Counter(atom.GetSymbol() for atom in Chem.AddHs(mol).GetAtoms())) if generic else residues.pop()
        labels.append(label if label not in labels else f"{label}_{len(labels) + 1}")
    return labels


def simulation_box(system: SystemModel, file_box: np.ndarray | None) -> SystemModel:
    """The cell of the topology: the file's when it holds several molecules (each side must
    exceed twice the cutoff, which GROMACS's grompp and OpenMM's PME require), else the molecules
    centred in a box padded by twice the cutoff plus a margin, so the GROMACS files run as they are."""
    least = 2 * CUTOFF_NM * 10 + BOX_MARGIN_A
    if file_box is not None and len(system.copies) > 1:
        if float(file_box.min()) < least:
            a, b, c = (float(side) for side in file_box)
            raise EngineError(
                CELL_TOO_SMALL,
                f"The cell ({a:.1f} × {b:.1f} × {c:.1f} Å) is too small for the 10 Å cutoff: GROMACS and OpenMM "
                f"need every side longer than {least:.0f} Å. Upload the system in a larger cell.",
            )
        return SystemModel(system.kinds, system.copies, file_box)
    everything = np.concatenate([copy.coordinates for copy in system.copies])
    low, high = everything.min(axis=0), everything.max(axis=0)
    box = np.maximum(high - low + 2 * CUTOFF_NM * 10 + BOX_MARGIN_A, least)
    shift = box / 2 - (low + high) / 2
    copies = [MoleculeCopy(copy.kind, copy.coordinates + shift) for copy in system.copies]
    return SystemModel(system.kinds, copies, box)
