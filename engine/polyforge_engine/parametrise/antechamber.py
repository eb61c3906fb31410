"""AM1-BCC charges and GAFF atom types for one fragment, from antechamber (sqm inside)."""

from __future__ import annotations

from pathlib import Path

from rdkit import Chem
from rdkit.Chem import AllChem

from polyforge_engine.events import EngineError
from polyforge_engine.parametrise.errors import CHARGING_FAILED
from polyforge_engine.parametrise.force_fields import AtomTypeSet
from polyforge_engine.parametrise.siloxanes import silicon_atom_types
from polyforge_engine.runtime.tools import run_tool

_CONFORMER_SEED = 20251
# sqm scores the MMFF conformer as given (maxcyc=0), as the OpenFF toolkit does: re-optimising in
# AM1 costs far more time and barely moves the charges (bench/README.md, "Simulation and parametrisation settings").
_SQM_KEYWORDS = "qm_theory='AM1', grms_tol=0.0005, scfconv=1.d-10, ndiis_attempts=700, maxcyc=0"


def fragment_conformer(fragment: Chem.Mol, label: str) -> Chem.Mol:
    """A reproducible 3D conformer (ETKDG, then MMFF or UFF) of a fragment with explicit H."""
    mol = Chem.Mol(fragment)
    if AllChem.EmbedMolecule(mol, randomSeed=_CONFORMER_SEED) != 0 and AllChem.EmbedMolecule(mol, randomSeed=_CONFORMER_SEED, useRandomCoords=True) != 0:
        raise EngineError(CHARGING_FAILED, f"No 3D geometry could be built for {label} to compute its charges.")
    if AllChem.MMFFHasAllMoleculeParams(mol):
        AllChem.MMFFOptimizeMolecule(mol, maxIters=1000)
    else:
        AllChem.UFFOptimizeMolecule(mol, maxIters=1000)
    return mol


def am1bcc_types_and_charges(fragment: Chem.Mol, net_charge: int, atom_types: AtomTypeSet, workdir: Path, label: str) -> tuple[list[str], list[float]]:
    """Run antechamber on `fragment` (explicit hydrogens) and return per-atom GAFF types and
    AM1-BCC charges, in the fragment's atom order."""
    workdir.mkdir(parents=True, exist_ok=True)
    Chem.MolToMolFile(fragment_conformer(fragment, label), str(workdir / "fragment.mol"), kekulize=True)
    run_tool(
        "antechamber",
        [
            "-i",
            "fragment.mol",
            "-fi",
            "mdl",
            "-o",
            "fragment.mol2",
            "-fo",
            "mol2",
            "-c",
            "bcc",
            "-at",
            atom_types,
            "-nc",
            str(net_charge),
            "-s",
            "0",
            "-pf",
            "y",
            "-ek",
            _SQM_KEYWORDS,
        ],
        workdir,
        CHARGING_FAILED,
        f"AM1-BCC charging of {label} failed",
    )
    types, charges = read_mol2_types_and_charges(workdir / "fragment.mol2")
    if len(types) != fragment.GetNumAtoms():
        raise EngineError(CHARGING_FAILED, f"antechamber returned {len(types)} atoms for {label}, expected {fragment.GetNumAtoms()}.")
    return silicon_atom_types(fragment, types), charges


def read_mol2_types_and_charges(path: Path) -> tuple[list[str], list[float]]:
    types: list[str] = []
    charges: list[float] = []
    in_atoms = False
    for line in path.read_text().splitlines():
        if line.startswith("@<TRIPOS>"):
            in_atoms = line.strip() == "@<TRIPOS>ATOM"
            continue
        fields = line.split()
        if in_atoms and len(fields) >= 9:
            types.append(fields[5])
            charges.append(float(fields[8]))
    return types, charges
