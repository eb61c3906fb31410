"""`validate-topology`: does a GROMACS .top describe its structure file? Checks that every
included file is there, [ defaults ] is given, every molecule in [ molecules ] and every atom type is
defined, and that the atoms match the structure in number and order (names compared as the structure
stores them). Both files are read line by line (a .top of 4000 MB is never held); the names are
compared a block of copies at a time against the structure's compact arrays."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from polyforge_engine.events import EngineError
from polyforge_engine.structures.readers import StructureAtoms, read_structure

INVALID_TOPOLOGY = "INVALID_TOPOLOGY"
MAX_TOPOLOGY_BYTES = 4000 * 1024 * 1024  # SPEC §9: potential file up to 4000 MB


@dataclass
class _MoleculeType:
    atom_names: list[str] = field(default_factory=list)
    atom_types: list[str] = field(default_factory=list)


@dataclass
class Topology:
    atom_types: set[str] = field(default_factory=set)
    molecule_types: dict[str, _MoleculeType] = field(default_factory=dict)
    molecules: list[tuple[str, int]] = field(default_factory=list)
    has_defaults: bool = False


def _invalid(where: str, problem: str) -> EngineError:
    return EngineError(INVALID_TOPOLOGY, f"{where}: {problem}")


def read_topology(path: Path) -> Topology:
    topology = Topology()
    _read_into(path, topology, defines=set(), state={"section": "", "molecule": ""})
    return topology


def _read_into(path: Path, topology: Topology, defines: set[str], state: dict[str, str]) -> None:
    active: list[bool] = []  # one entry per open #ifdef: is its branch being read
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, raw in enumerate(handle, start=1):
            where = f"{path.name} line {number}"
            line = raw.split(";", 1)[0].strip()
            if not line:
                continue
            if line.startswith("#"):
                words = line.split()
                directive = words[0]
                if directive in {"#ifdef", "#ifndef"}:
                    wanted = (len(words) > 1 and words[1] in defines) == (directive == "#ifdef")
                    active.append(wanted and all(active))
                elif directive == "#else":
                    if not active:
                        raise _invalid(where, "#else without #ifdef.")
                    active[-1] = not active[-1] and all(active[:-1])
                elif directive == "#endif":
                    if not active:
                        raise _invalid(where, "#endif without #ifdef.")
                    active.pop()
                elif not all(active):
                    continue
                elif directive == "#define" and len(words) > 1:
                    defines.add(words[1])
                elif directive == "#include":
                    name = shlex.split(line[len("#include") :].strip())[0] if len(words) > 1 else ""
                    included = path.parent / name
                    if not included.is_file():
                        raise _invalid(
                            where,
                            f"the topology includes {name}, which was not provided; upload a self-contained topology.",
                        )
                    _read_into(included, topology, defines, state)
                continue
            if not all(active):
                continue
            if line.startswith("["):
                if not line.endswith("]"):
                    raise _invalid(where, f"the section header {line!r} is not closed with ']'.")
                state["section"] = line[1:-1].strip().lower()
                topology.has_defaults |= state["section"] == "defaults"
                continue
            fields = line.split()
            section = state["section"]
            if section == "atomtypes":
                # name [bonded type] [at.num] mass charge ptype sigma epsilon: the name comes first
                topology.atom_types.add(fields[0])
            elif section == "moleculetype":
                state["molecule"] = fields[0]
                topology.molecule_types[fields[0]] = _MoleculeType()
            elif section == "atoms":
                if len(fields) < 5:
                    raise _invalid(where, "an [ atoms ] line needs at least: number, type, residue number, residue, atom name.")
                molecule = topology.molecule_types.get(state["molecule"])
                if molecule is None:
                    raise _invalid(where, "[ atoms ] appears before any [ moleculetype ].")
                molecule.atom_types.append(fields[1])
                molecule.atom_names.append(fields[4])
            elif section == "molecules":
                if len(fields) < 2 or not fields[1].isdigit():
                    raise _invalid(where, "a [ molecules ] line needs a molecule name and a whole count.")
                topology.molecules.append((fields[0], int(fields[1])))
    if active:
        raise EngineError(INVALID_TOPOLOGY, f"{path.name}: an #ifdef is never closed with #endif; the file may be truncated.")


def validate_topology(topology_path: Path, structure_path: Path) -> dict[str, Any]:
    if not topology_path.is_file():
        raise EngineError(INVALID_TOPOLOGY, f"The topology file {topology_path.name} does not exist.")
    if topology_path.stat().st_size > MAX_TOPOLOGY_BYTES:
        raise EngineError(INVALID_TOPOLOGY, "The file exceeds the maximum size of 4000 MB")
    topology = read_topology(topology_path)
    if not topology.molecules:
        raise EngineError(
            INVALID_TOPOLOGY,
            "The topology has no [ molecules ] section (or it is empty): it does not say what the system contains.",
        )
    if not topology.has_defaults:
        raise EngineError(
            INVALID_TOPOLOGY,
            "The topology has no [ defaults ] section: GROMACS needs it (combination rule, 1-4 scaling) before any "
            "[ atomtypes ]; upload a complete topology, or include the force field that defines it.",
        )
    for name, _ in topology.molecules:
        molecule = topology.molecule_types.get(name)
        if molecule is None:
            raise EngineError(INVALID_TOPOLOGY, f"The molecule {name} listed in [ molecules ] is not defined by any [ moleculetype ].")
        undefined = sorted(set(molecule.atom_types) - topology.atom_types)
        if undefined:
            raise EngineError(
                INVALID_TOPOLOGY,
                f"The atom type(s) {', '.join(undefined[:5])} of molecule {name} are not defined in [ atomtypes ].",
            )
    described = sum(len(topology.molecule_types[name].atom_names) * count for name, count in topology.molecules)
    structure = read_structure(structure_path)
    if described != structure.count:
        raise EngineError(
            INVALID_TOPOLOGY,
            f"The topology describes {described} atoms but the structure has {structure.count}; the molecule counts do not match.",
        )
    _compare_names(topology, structure, 5 if structure_path.suffix.lower() == ".gro" else 4)
    return {
        "atoms": described,
        "molecules": sum(count for _, count in topology.molecules),
        "molecule_types": [name for name, _ in topology.molecules],
    }


def _compare_names(topology: Topology, structure: StructureAtoms, width: int) -> None:
    """Atom names in order, a block of copies at a time (never one list for the whole system):
    names compared as the structure's format keeps them (`width` characters)."""
    ids: dict[str, int] = {}
    found_ids = np.array([ids.setdefault(value[:width], len(ids)) for value in structure.names.values], dtype=np.int64)
    found = found_ids[np.frombuffer(structure.name_of_atom, dtype=np.int32)]
    start = 0
    for name, count in topology.molecules:
        names = topology.molecule_types[name].atom_names
        expected = np.array([ids.get(atom[:width], -1) for atom in names], dtype=np.int64)
        size = len(names)
        block = found[start : start + size * count].reshape(count, size) if size else found[start:start]
        wrong = np.flatnonzero((block != expected).any(axis=1)) if size and count else np.empty(0, dtype=np.int64)
        if len(wrong):
            copy = int(wrong[0])
            column = int(np.flatnonzero(block[copy] != expected)[0])
            index = start + copy * size + column
            actual = structure.names.values[structure.name_of_atom[index]]
            raise EngineError(
                INVALID_TOPOLOGY,
                f"Atom {index + 1} is {actual} in the structure but {names[column]} in the topology (molecule {name}, "
                f"copy {copy + 1}); the atom order does not match.",
            )
        start += size * count
