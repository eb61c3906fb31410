"""`generate-potential` (SPEC §3 Potential, §5): GAFF or GAFF2 parameters, AM1-BCC charges for a
given net charge, and a minimised structure, for a structure converted from SMILES (.sdf, bond
orders known) or uploaded (.pdb/.gro: bonds and bond orders perceived from the geometry and the
net charge)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from rdkit import Chem
from rdkit.Chem import rdDetermineBonds

from polyforge_engine import protocol as events
from polyforge_engine.bundle.writer import BundleFile
from polyforge_engine.parametrise.assemble import SystemModel, group_copies
from polyforge_engine.parametrise.errors import INVALID_VALENCE, WRONG_NET_CHARGE
from polyforge_engine.parametrise.force_fields import atom_type_set
from polyforge_engine.pipeline import parametrise_simulate_bundle
from polyforge_engine.protocol import EngineError
from polyforge_engine.runtime.cancellation import install_sigterm_handler
from polyforge_engine.simulate.md import CUTOFF_NM, Protocol
from polyforge_engine.structures.molecules import perceive_bonds
from polyforge_engine.structures.readers import INVALID_STRUCTURE, read_structure
from polyforge_engine.structures.validate_structure import job_file

# SPEC §9 defaults for a generated potential.
DEFAULT_FORCE_FIELD = "GAFF2"
DEFAULT_CHARGE = 0
DEFAULT_MINIMIZATION_STEPS = 5


def whole_number(value: Any, what: str) -> int:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise EngineError("INVALID_INPUT", f"The {what} must be a valid number.") from None
    if not number.is_integer():
        raise EngineError("INVALID_INPUT", f"The {what} must be a whole number.")
    return int(number)


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
    editable.AddConformer(conformer, assignId=True)
    for begin, end in perceive_bonds(atoms).tolist():
        if editable.GetBondBetweenAtoms(begin, end) is None:
            editable.AddBond(begin, end, Chem.BondType.SINGLE)
    mol = editable.GetMol()
    fragments = list(Chem.GetMolFrags(mol, asMols=True, sanitizeFrags=False))
    charges = _fragment_charges(fragments, charge)
    molecules = []
    for number, (fragment, fragment_charge) in enumerate(zip(fragments, charges, strict=True), start=1):
        try:
            rdDetermineBonds.DetermineBondOrders(fragment, charge=fragment_charge)
            Chem.SanitizeMol(fragment)
        except (ValueError, RuntimeError) as exc:
            raise EngineError(
                WRONG_NET_CHARGE if charge else INVALID_VALENCE,
                f"The bonds of molecule {number} do not fit a net charge of {fragment_charge}: check the charge and that every hydrogen is present ({exc}).",
            ) from None
        molecules.append(fragment)
    box = atoms.box_lengths()
    return molecules, np.array(box) if box else None


def _fragment_charges(fragments: list[Chem.Mol], charge: int) -> list[int]:
    """Net charge per molecule: all of it for one molecule, shared equally by identical copies."""
    if len(fragments) == 1:
        return [charge]
    if charge == 0:
        return [0] * len(fragments)
    formulas = {tuple(sorted(atom.GetSymbol() for atom in fragment.GetAtoms())) for fragment in fragments}
    if len(formulas) == 1 and charge % len(fragments) == 0:
        return [charge // len(fragments)] * len(fragments)
    raise EngineError(
        WRONG_NET_CHARGE,
        f"A net charge of {charge} cannot be shared among these {len(fragments)} different molecules; "
        "give each molecule's charge in an .sdf file, or use a neutral system.",
    )


def run_generate_potential(job: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """CLI command: `{"structure_file", "force_field", "charge", "minimization_steps", "system":
    {"name", "sanitized_name"}}` -> bundle, topology and minimised structure."""
    install_sigterm_handler()
    atom_types = atom_type_set(str(job.get("force_field", DEFAULT_FORCE_FIELD)))
    charge = whole_number(job.get("charge", DEFAULT_CHARGE), "charge")
    steps = whole_number(job.get("minimization_steps", DEFAULT_MINIMIZATION_STEPS), "number of minimization steps")
    if steps < 0:
        raise EngineError("INVALID_INPUT", "The number of minimization steps must be at least 0.")
    path = job_file(job, workdir, "structure_file")
    events.progress("reading structure", 0)
    box: np.ndarray | None = None
    if path.suffix.lower() == ".sdf":
        molecules = molecules_from_sdf(path, charge)
    else:
        molecules, box = molecules_from_coordinates(path, charge)
    grouped = group_copies(molecules)
    # One molecule is parametrised in vacuum; a system keeps its cell when PME fits in it.
    periodic = len(molecules) > 1 and box is not None and float(box.min()) >= 20 * CUTOFF_NM
    system = SystemModel(grouped.kinds, grouped.copies, box if periodic else None)
    system_ref = job.get("system") or {}
    title = str(system_ref.get("name") or job.get("name") or "Generated potential")
    sanitized = str(system_ref.get("sanitized_name") or "potential")
    payload = parametrise_simulate_bundle(
        system,
        atom_types,
        Protocol(minimization_steps=steps, dynamics_steps=0, temperature_k=300.0, ensemble="NVT", seed=0),
        workdir,
        title,
        sanitized,
        job,
        [f"molecule {number}" for number in range(1, len(grouped.kinds) + 1)],
        progress_from=5,
        extra_files=[BundleFile("structure.sdf", path)] if path.suffix.lower() == ".sdf" else None,
    )
    files = payload["files"]
    files["topology"] = "topology/system.top"
    files["molecules_itp"] = "topology/molecules.itp"
    files["prmtop"] = "topology/system.prmtop"
    return payload
