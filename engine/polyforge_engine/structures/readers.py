"""Streaming readers for .pdb and .gro files (up to 2000 MB, SPEC §9): one line at a time, atoms
kept as compact arrays, every problem reported with its line number."""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from sys import intern

import numpy as np

from polyforge_engine.protocol import EngineError

INVALID_STRUCTURE = "INVALID_STRUCTURE"
UNSUPPORTED_FILE_TYPE = "UNSUPPORTED_FILE_TYPE"

_HALOGENS = {"CL": "Cl", "BR": "Br"}
_ONE_LETTER_ELEMENTS = set("HCNOSPFIBK")


@dataclass
class StructureAtoms:
    """Atoms of a structure file, in file order, stored compactly: a 2000 MB file holds tens of
    millions of atoms. Repeated names share one string; residues are stored once each."""

    names: list[str] = field(default_factory=list)
    elements: list[str] = field(default_factory=list)
    residue_of_atom: array = field(default_factory=lambda: array("l"))  # index into `residues`
    residues: list[tuple[str, int, str]] = field(default_factory=list)  # chain, number, name
    coordinates: array = field(default_factory=lambda: array("f"))  # x, y, z per atom, Å
    box: tuple[float, float, float] | None = None  # Å
    bonds: list[tuple[int, int]] = field(default_factory=list)  # from CONECT records, atom indices

    def add_atom(self, name: str, element: str, residue: tuple[str, int, str], xyz: tuple[float, float, float]) -> None:
        if not self.residues or self.residues[-1] != residue:
            self.residues.append(residue)
        self.names.append(intern(name))
        self.elements.append(intern(element))
        self.residue_of_atom.append(len(self.residues) - 1)
        self.coordinates.extend(xyz)

    def residue(self, atom: int) -> tuple[str, int, str]:
        return self.residues[self.residue_of_atom[atom]]

    def xyz(self) -> np.ndarray:
        return np.frombuffer(self.coordinates, dtype=np.float32).reshape(-1, 3)


def structure_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in {".pdb", ".gro"}:
        raise EngineError(
            UNSUPPORTED_FILE_TYPE,
            f"The file has an unsupported file type. Accepted: .pdb, .gro (got {suffix or 'no extension'}).",
        )
    return suffix[1:]


def read_structure(path: Path) -> StructureAtoms:
    if not path.is_file():
        raise EngineError(INVALID_STRUCTURE, f"The structure file {path.name} does not exist.")
    reader = read_pdb if structure_format(path) == "pdb" else read_gro
    atoms = reader(path)
    if not atoms.names:
        raise EngineError(INVALID_STRUCTURE, f"The file {path.name} contains no atoms.")
    return atoms


def guess_element(atom_name: str, element_field: str = "") -> str:
    """Element from a PDB element column when present, else from the atom name. Names such as
    CA or NA in biomolecules are carbon and nitrogen, so only chlorine and bromine are read as
    two-letter elements from a name."""
    declared = element_field.strip()
    if declared.isalpha():
        return declared[0].upper() + declared[1:].lower()
    letters = "".join(character for character in atom_name if character.isalpha()).upper()
    if letters[:2] in _HALOGENS:
        return _HALOGENS[letters[:2]]
    return letters[0] if letters and letters[0] in _ONE_LETTER_ELEMENTS else (letters[:1] or "X")


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """Numbered lines, decoded one by one so a binary or corrupt line is reported where it is."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                yield number, raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise EngineError(
                    INVALID_STRUCTURE,
                    f"Line {number}: the file is not text (bytes that are not UTF-8); it may be corrupt or binary.",
                ) from None


def _number(text: str, line: int, what: str, kind: type = float) -> float:
    try:
        return kind(text)
    except ValueError:
        raise EngineError(INVALID_STRUCTURE, f"Line {line}: the {what} {text.strip()!r} is not a number.") from None


def read_pdb(path: Path) -> StructureAtoms:
    atoms = StructureAtoms()
    serial_to_index: dict[int, int] = {}
    for number, line in _lines(path):
        record = line[:6].strip().upper()
        if record in {"ATOM", "HETATM"}:
            if len(line) < 54:
                raise EngineError(
                    INVALID_STRUCTURE,
                    f"Line {number}: the {record} record is cut short ({len(line)} characters; coordinates need 54).",
                )
            x = _number(line[30:38], number, "x coordinate")
            y = _number(line[38:46], number, "y coordinate")
            z = _number(line[46:54], number, "z coordinate")
            name = line[12:16].strip()
            if not name:
                raise EngineError(INVALID_STRUCTURE, f"Line {number}: the atom has no name (columns 13-16).")
            residue_number = int(_number(line[22:26], number, "residue number", int)) if line[22:26].strip() else 0
            serial_text = line[6:11].strip()
            if serial_text.isdigit():
                serial_to_index[int(serial_text)] = len(atoms.names)
            element = guess_element(name, line[76:78] if len(line) >= 78 else "")
            atoms.add_atom(name, element, (line[21:22], residue_number, line[17:20].strip()), (x, y, z))
        elif record == "CRYST1":
            if len(line) < 33:
                raise EngineError(INVALID_STRUCTURE, f"Line {number}: the CRYST1 record is cut short.")
            atoms.box = (
                _number(line[6:15], number, "cell length a"),
                _number(line[15:24], number, "cell length b"),
                _number(line[24:33], number, "cell length c"),
            )
        elif record == "CONECT":
            fields = [line[start : start + 5].strip() for start in range(6, len(line), 5)]
            serials = [int(_number(text, number, "CONECT atom serial", int)) for text in fields if text]
            if serials:
                for partner in serials[1:]:
                    if serials[0] in serial_to_index and partner in serial_to_index:
                        atoms.bonds.append((serial_to_index[serials[0]], serial_to_index[partner]))
                    else:
                        raise EngineError(
                            INVALID_STRUCTURE,
                            f"Line {number}: CONECT names atom {partner if serials[0] in serial_to_index else serials[0]}, which the file does not have.",
                        )
    return atoms


def read_gro(path: Path) -> StructureAtoms:
    atoms = StructureAtoms()
    expected: int | None = None
    last_line = 0
    for number, line in _lines(path):
        last_line = number
        if number == 1:
            continue  # title
        if number == 2:
            expected = int(_number(line.strip(), number, "atom count on the second line", int))
            if expected < 0:
                raise EngineError(INVALID_STRUCTURE, "Line 2: the atom count is negative.")
            continue
        assert expected is not None
        atom_index = number - 3
        if atom_index < expected:
            if len(line) < 44:
                raise EngineError(
                    INVALID_STRUCTURE,
                    f"Line {number}: the atom line is cut short ({len(line)} characters; coordinates need 44).",
                )
            residue_number = int(_number(line[0:5], number, "residue number", int))
            residue_name = line[5:10].strip()
            name = line[10:15].strip()
            x = _number(line[20:28], number, "x coordinate") * 10
            y = _number(line[28:36], number, "y coordinate") * 10
            z = _number(line[36:44], number, "z coordinate") * 10
            atoms.add_atom(name, guess_element(name), ("", residue_number, residue_name), (x, y, z))
        elif atom_index == expected:
            sides = line.split()
            if len(sides) < 3:
                raise EngineError(
                    INVALID_STRUCTURE, f"Line {number}: the box line needs three lengths, found {len(sides)}."
                )
            atoms.box = tuple(_number(side, number, "box length") * 10 for side in sides[:3])  # type: ignore[assignment]
        elif line.strip():
            raise EngineError(
                INVALID_STRUCTURE,
                f"Line {number}: unexpected text after the box line; the atom count on line 2 ({expected}) may be wrong.",
            )
    if expected is None:
        raise EngineError(INVALID_STRUCTURE, f"Line {last_line + 1}: the file ends before the atom count (line 2).")
    if len(atoms.names) < expected:
        raise EngineError(
            INVALID_STRUCTURE,
            f"Line {last_line + 1}: the file ends after {len(atoms.names)} atoms, but line 2 announces {expected}; it looks truncated.",
        )
    if atoms.box is None:
        raise EngineError(
            INVALID_STRUCTURE,
            f"Line {last_line + 1}: the box line (last line of a .gro file) is missing; the file looks truncated.",
        )
    return atoms
