"""`convert-smiles`: a SMILES without connection markers -> a 3D structure (ETKDG, then MMFF) as
PDB, GRO and SD files, with its molecule count and system type (ARCHITECTURE §5)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import parmed
from rdkit import Chem
from rdkit.Chem import AllChem

from polyforge_engine import events
from polyforge_engine.events import EngineError
from polyforge_engine.structures.molecules import hill_formula, system_type

INVALID_SMILES = "INVALID_SMILES"
EMBEDDING_FAILED = "EMBEDDING_FAILED"
SMILES_TOO_LARGE = "SMILES_TOO_LARGE"
UNSUPPORTED_ELEMENT = "UNSUPPORTED_ELEMENT"
# A structure from SMILES is a molecule or a few (a ligand, a solvent mix), not a polymer: polymers
# go through the builder, large systems through a file. Counted with hydrogens.
MAX_ATOMS = 1000  # contracts MAX_DRAWN_SMILES_ATOMS (the server refuses larger before queueing)
# What GAFF/GAFF2 parametrise (generate-potential; silicon through parametrise/siloxanes.py), and the
# monatomic ions it gives Joung-Cheatham parameters (the halides are already in the organic set).
ORGANIC_ELEMENTS = ("H", "C", "N", "O", "F", "Si", "P", "S", "Cl", "Br", "I")
ION_ELEMENTS = ("Li", "Na", "K", "Rb", "Cs")
_SEED = 61453
_GAP = 4.0  # Å between molecules laid side by side
_MARGIN = 10.0  # Å of cell around the molecules


def smiles_molecules(smiles: str) -> list[Chem.Mol]:
    """The molecules of a dot-separated SMILES with explicit hydrogens, residue names per kind."""
    parsed = Chem.MolFromSmiles(smiles.strip()) if smiles and smiles.strip() else None
    if parsed is None:
        raise EngineError(INVALID_SMILES, "Invalid SMILES format")
    if any(atom.GetAtomicNum() == 0 for atom in parsed.GetAtoms()):
        raise EngineError(
            INVALID_SMILES,
            "The SMILES contains connection markers ([*:1], [*:2]); a structure needs a complete molecule.",
        )
    check_size_and_elements(parsed)
    fragments = Chem.GetMolFrags(parsed, asMols=True, sanitizeFrags=True)
    kinds: dict[str, str] = {}
    for fragment in fragments:
        kinds.setdefault(Chem.MolToSmiles(fragment), "")
    generic = [key for key in kinds if residue_name_of(key) is None]
    for key in kinds:
        named = residue_name_of(key)
        kinds[key] = named or ("MOL" if len(generic) == 1 else f"M{generic.index(key) + 1:02d}")
    molecules = []
    for number, fragment in enumerate(fragments, start=1):
        residue = kinds[Chem.MolToSmiles(fragment)]
        with_h = Chem.AddHs(fragment)
        counters: dict[str, int] = {}
        for atom in with_h.GetAtoms():
            counters[atom.GetSymbol()] = counters.get(atom.GetSymbol(), 0) + 1
            name = f"{atom.GetSymbol()}{np.base_repr(counters[atom.GetSymbol()], 36)}"[:4]
            atom.SetMonomerInfo(Chem.AtomPDBResidueInfo(name, residueName=residue, residueNumber=number, isHeteroAtom=True))
        molecules.append(with_h)
    return molecules


def residue_name_of(canonical: str) -> str | None:
    """Residue names that say what a small molecule is: water, and monatomic ions by element."""
    if canonical == "O":
        return "HOH"
    ion = Chem.MolFromSmiles(canonical)
    if ion is not None and ion.GetNumAtoms() == 1 and ion.GetAtomWithIdx(0).GetFormalCharge() != 0:
        return ion.GetAtomWithIdx(0).GetSymbol().upper()
    return None


def check_size_and_elements(parsed: Chem.Mol) -> None:
    atoms = parsed.GetNumAtoms() + sum(atom.GetTotalNumHs() for atom in parsed.GetAtoms())
    if atoms > MAX_ATOMS:
        raise EngineError(
            SMILES_TOO_LARGE,
            f"The SMILES describes {atoms:,} atoms with its hydrogens; a structure from SMILES holds at most "
            f"{MAX_ATOMS:,} (a molecule or a few). Build polymers with the polymer builder, or upload a .pdb or "
            ".gro file of a larger system.",
        )
    unsupported = sorted({atom.GetSymbol() for atom in parsed.GetAtoms()} - set(ORGANIC_ELEMENTS) - set(ION_ELEMENTS))
    if unsupported:
        raise EngineError(
            UNSUPPORTED_ELEMENT,
            f"The SMILES contains {', '.join(unsupported)}, which the force fields here do not cover. Supported: "
            f"{', '.join(ORGANIC_ELEMENTS)}, and {', '.join(ION_ELEMENTS)} as monatomic ions.",
        )
    for atom in parsed.GetAtoms():
        if atom.GetSymbol() in ION_ELEMENTS and atom.GetDegree() > 0:
            raise EngineError(
                UNSUPPORTED_ELEMENT,
                f"{atom.GetSymbol()} is supported only as a monatomic ion ([{atom.GetSymbol()}+]), not bonded to other atoms.",
            )


def embed(mol: Chem.Mol, label: str) -> Chem.Mol:
    params = AllChem.ETKDGv3()
    params.randomSeed = _SEED
    if AllChem.EmbedMolecule(mol, params) != 0:
        params.useRandomCoords = True
        if AllChem.EmbedMolecule(mol, params) != 0:
            raise EngineError(
                EMBEDDING_FAILED,
                f"No 3D structure could be generated for {label}; check its stereochemistry and rings.",
            )
    if AllChem.MMFFHasAllMoleculeParams(mol):
        AllChem.MMFFOptimizeMolecule(mol, maxIters=2000)
    else:
        AllChem.UFFOptimizeMolecule(mol, maxIters=2000)
    return mol


def convert_smiles(smiles: str, workdir: Path) -> dict[str, Any]:
    molecules = smiles_molecules(smiles)
    combined: Chem.Mol | None = None
    offset = 0.0
    for number, mol in enumerate(molecules, start=1):
        events.progress("converting", 100 * (number - 1) / len(molecules))
        embed(mol, f"molecule {number} of the SMILES")
        xyz = mol.GetConformer().GetPositions()
        xyz -= xyz.min(axis=0)
        xyz[:, 0] += offset
        offset = float(xyz[:, 0].max()) + _GAP
        conformer = mol.GetConformer()
        for index, point in enumerate(xyz):
            conformer.SetAtomPosition(index, point.tolist())
        combined = mol if combined is None else Chem.CombineMols(combined, mol)
    assert combined is not None
    xyz = combined.GetConformer().GetPositions() + _MARGIN
    conformer = combined.GetConformer()
    for index, point in enumerate(xyz):
        conformer.SetAtomPosition(index, point.tolist())
    box = xyz.max(axis=0) + _MARGIN
    files = write_structure_files(combined, box, workdir, "structure")
    kinds = smiles_kinds(molecules)
    return {
        "files": {kind: path.name for kind, path in files.items()},
        "atoms": combined.GetNumAtoms(),
        "residues": len(molecules),
        "molecules": len(molecules),
        "kinds": kinds,
        "formula": formula_of(combined),
        "net_charge": Chem.GetFormalCharge(combined),
        "box": [round(float(side), 3) for side in box],
        "type": system_type(len(molecules), len(kinds)),
        "viewer_file": files["pdb"].name,
    }


def formula_of(mol: Chem.Mol) -> str:
    """Hill formula without the charge suffix RDKit appends (the charge is reported apart)."""
    return hill_formula(Counter(atom.GetSymbol() for atom in mol.GetAtoms()))


def smiles_kinds(molecules: list[Chem.Mol]) -> list[dict[str, Any]]:
    """Molecules grouped by canonical SMILES, in order of first appearance (structureSummary.kinds)."""
    kinds: dict[str, dict[str, Any]] = {}
    for mol in molecules:
        key = Chem.MolToSmiles(Chem.RemoveHs(mol))
        if key in kinds:
            kinds[key]["count"] += 1
            continue
        residue = mol.GetAtomWithIdx(0).GetPDBResidueInfo().GetResidueName().strip()
        kinds[key] = {
            "name": residue,
            "count": 1,
            "atoms": mol.GetNumAtoms(),
            "formula": formula_of(mol),
            "charge": Chem.GetFormalCharge(mol),
        }
    return list(kinds.values())


def write_structure_files(mol: Chem.Mol, box: np.ndarray, workdir: Path, stem: str) -> dict[str, Path]:
    """PDB (with CONECT), GRO and SD files, each written under a temporary name then renamed."""
    targets = {"pdb": workdir / f"{stem}.pdb", "gro": workdir / f"{stem}.gro", "sdf": workdir / f"{stem}.sdf"}
    partial = {kind: path.with_name(f".{path.name}.partial") for kind, path in targets.items()}
    structure = parmed.rdkit.load_rdkit(mol)
    structure.box = [*(float(side) for side in box), 90.0, 90.0, 90.0]
    pdb_block = Chem.MolToPDBBlock(mol, flavor=0)
    a, b, c = (float(side) for side in box)
    partial["pdb"].write_text(f"CRYST1{a:9.3f}{b:9.3f}{c:9.3f}  90.00  90.00  90.00 P 1           1\n" + pdb_block)
    parmed.gromacs.GromacsGroFile.write(structure, str(partial["gro"]))
    with Chem.SDWriter(str(partial["sdf"])) as writer:
        writer.write(mol)
    for kind, path in targets.items():
        os.replace(partial[kind], path)
    return targets
