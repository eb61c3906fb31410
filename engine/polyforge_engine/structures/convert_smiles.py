"""`convert-smiles`: a SMILES without connection markers -> a 3D structure (ETKDG, then MMFF) as
PDB, GRO and SD files, with its molecule count and system type (ARCHITECTURE §5)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import parmed
from rdkit import Chem
from rdkit.Chem import AllChem

from polyforge_engine import protocol
from polyforge_engine.protocol import EngineError

INVALID_SMILES = "INVALID_SMILES"
EMBEDDING_FAILED = "EMBEDDING_FAILED"
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
    fragments = Chem.GetMolFrags(parsed, asMols=True, sanitizeFrags=True)
    kinds: dict[str, str] = {}
    for fragment in fragments:
        kinds.setdefault(Chem.MolToSmiles(fragment), "")
    for number, key in enumerate(kinds, start=1):
        kinds[key] = "MOL" if len(kinds) == 1 else f"M{number:02d}"
    molecules = []
    for number, fragment in enumerate(fragments, start=1):
        residue = kinds[Chem.MolToSmiles(fragment)]
        with_h = Chem.AddHs(fragment)
        counters: dict[str, int] = {}
        for atom in with_h.GetAtoms():
            counters[atom.GetSymbol()] = counters.get(atom.GetSymbol(), 0) + 1
            name = f"{atom.GetSymbol()}{np.base_repr(counters[atom.GetSymbol()], 36)}"[:4]
            atom.SetMonomerInfo(
                Chem.AtomPDBResidueInfo(name, residueName=residue, residueNumber=number, isHeteroAtom=True)
            )
        molecules.append(with_h)
    return molecules


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


def system_type_of(molecules: list[Chem.Mol]) -> str:
    if len(molecules) == 1:
        return "molecule"
    return "system" if len({Chem.MolToSmiles(Chem.RemoveHs(mol)) for mol in molecules}) == 1 else "mixed"


def convert_smiles(smiles: str, workdir: Path) -> dict[str, Any]:
    molecules = smiles_molecules(smiles)
    combined: Chem.Mol | None = None
    offset = 0.0
    for number, mol in enumerate(molecules, start=1):
        protocol.progress("converting", 100 * (number - 1) / len(molecules))
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
    return {
        "files": {kind: path.name for kind, path in files.items()},
        "atoms": combined.GetNumAtoms(),
        "molecules": len(molecules),
        "type": system_type_of(molecules),
        "net_charge": Chem.GetFormalCharge(combined),
        "box": [round(float(side), 3) for side in box],
    }


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


def run_convert_smiles(job: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """CLI command: `{"smiles": "..."}` -> structure.pdb/.gro/.sdf, molecule count and type."""
    smiles = job.get("smiles")
    if not isinstance(smiles, str):
        raise EngineError(INVALID_SMILES, "Invalid SMILES format")
    result = convert_smiles(smiles, workdir)
    protocol.progress("converting", 100)
    return result
