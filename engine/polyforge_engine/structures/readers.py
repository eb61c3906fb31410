"""Streaming readers for .pdb and .gro files (up to 2000 MB, SPEC §9).

The file is read one line at a time and never held whole: every atom is kept in compact arrays
(about 30 bytes an atom: coordinates, codes of its name, element and residue, its serial field).
Every problem is reported with the line where it is, in words about the file, never a path.

What is read, and why (decisions of issue 20):
- PDB atom serials past 99,999 as the writers that exceed five columns write them: hexadecimal
  continued from A0000 (OpenMM, this engine), hybrid-36 (A0000 … ZZZZZ, then a0000 …), plain
  hexadecimal of the number (VMD, `186a0`), or `*****` (CHARMM, no serial). Which convention a file
  uses is decided from all its serials at the end (hybrid-36 once a serial has a digit past F), then
  ATOM serials and CONECT records are decoded together.
- ATOM/HETATM lines whose fields are separated by spaces instead of sitting in their columns are
  read from their fields when the columns do not hold three coordinates.
- Elements: the element column when present; else monatomic ions by residue name (NA, SOD, CL, CLA,
  K, POT, MG, CAL, ZN …), then the PDB alignment of the atom name (a two-letter element starts in
  column 13, a one-letter one in column 14: ` NA ` is nitrogen, `NA  ` sodium) outside standard
  residues, then the first letter of the name.
- Truncation: a PDB that has any record besides ATOM/HETATM (a header, CRYST1, TER, MODEL, CONECT)
  was written by a program, and every program ends its file with END or ENDMDL: without one the file
  is cut. A file of bare ATOM lines without END is cut when its last line has no line end, or when
  its last residue has fewer atoms than every other residue of its name. CONECT records must name
  atoms the file has. MASTER is not checked: it precedes END (a cut file has lost it) and files
  edited after deposition keep the original's counts. A .gro must have as many atom lines as line 2
  announces, then the box line.
- CRYST1 of 1 Å (the PDB's placeholder for NMR models) or of zero lengths means no cell.
- Format by content: a .gro named .pdb (or a .pdb named .gro) is refused with a message saying so,
  because the rest of the pipeline picks its reader by the name.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from polyforge_engine.events import EngineError
from polyforge_engine.residues import AMINO_ACIDS, ION_RESIDUES, NUCLEOTIDES, TERMINAL_CAPS, WATERS
from polyforge_engine.structures import columns

INVALID_STRUCTURE = "INVALID_STRUCTURE"
UNSUPPORTED_FILE_TYPE = "UNSUPPORTED_FILE_TYPE"
MAX_FILE_BYTES = 2000 * 1024 * 1024  # SPEC §9: system definition file up to 2000 MB
# A line is held whole while it is read: GROMACS's readers stop at 4096 characters too (a PDB line
# has 80, a .gro atom line at most about 110).
MAX_LINE_BYTES = 4096
# Distinct bonds of one atom, from CONECT or from distances: uranocene's uranium has 16, organic
# atoms at most 6. More means overlapping atoms, or CONECT records that are not a molecule's.
MAX_BONDS_PER_ATOM = 16
# CONECT pairs (atom, partner) in the whole file per atom before them: a file lists each bond from
# both of its atoms, some repeat a pair for a double or triple bond (2-6 a atom in real files).
MAX_CONECT_PAIRS_PER_ATOM = 16

# Residues whose atom names never start with a two-letter element (CA is carbon there).
NAMED_LIKE_PROTEINS = AMINO_ACIDS | TERMINAL_CAPS | NUCLEOTIDES | WATERS
TWO_LETTER_ELEMENTS = {
    "He", "Li", "Be", "Ne", "Na", "Mg", "Al", "Si", "Cl", "Ar", "Ca", "Sc", "Ti", "Cr", "Mn", "Fe", "Co", "Ni",
    "Cu", "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr", "Rb", "Sr", "Zr", "Mo", "Ru", "Rh", "Pd", "Ag", "Cd", "In",
    "Sn", "Sb", "Te", "Xe", "Cs", "Ba", "La", "Ce", "Gd", "Pt", "Au", "Hg", "Tl", "Pb", "Bi",
}  # fmt: skip
ONE_LETTER_ELEMENTS = {"H", "B", "C", "N", "O", "F", "P", "S", "K", "V", "Y", "I", "W", "U"}
_HALOGEN_NAMES = {"CL": "Cl", "BR": "Br"}


class StructureError(EngineError):
    """An invalid structure file: the message says what and where; `line` is 1-based or None."""

    def __init__(self, message: str, line: int | None = None, code: str = INVALID_STRUCTURE):
        super().__init__(code, f"Line {line}: {message}" if line else message)
        self.line = line


class Codes:
    """Repeated strings (names, residue names) stored once, atoms keep a small integer code."""

    def __init__(self) -> None:
        self.index: dict[bytes, int] = {}
        self.values: list[str] = []

    def code(self, text: bytes) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.values)
            self.values.append(text.decode("latin-1"))
        return found


@dataclass
class StructureAtoms:
    """Atoms of a structure file in file order, stored compactly (a 2000 MB file holds tens of
    millions of atoms): per atom codes of its name and element, its residue, coordinates (Å) and
    formal charge; per residue the code of its name."""

    names: Codes = field(default_factory=Codes)
    elements: Codes = field(default_factory=Codes)
    residue_names: Codes = field(default_factory=Codes)
    name_of_atom: array = field(default_factory=lambda: array("i"))
    element_of_atom: array = field(default_factory=lambda: array("i"))
    residue_of_atom: array = field(default_factory=lambda: array("i"))
    name_of_residue: array = field(default_factory=lambda: array("i"))
    coordinates: array = field(default_factory=lambda: array("f"))
    charges: array = field(default_factory=lambda: array("b"))  # formal charge, -128 when not given
    cell: np.ndarray | None = None  # rows are the cell vectors a, b, c in Å
    bonds: np.ndarray | None = None  # (bonds, 2) atom indices from CONECT records
    bonded_atoms: np.ndarray | None = None  # atoms that CONECT records mention (their bonds are all listed)
    # Where each atom is in the file, by runs of consecutive atom lines: the first atom of each run
    # and its line (a .gro is one run; a PDB has one per TER, MODEL or header between atoms).
    run_atoms: array = field(default_factory=lambda: array("q"))
    run_lines: array = field(default_factory=lambda: array("q"))

    @property
    def count(self) -> int:
        return len(self.name_of_atom)

    def xyz(self) -> np.ndarray:
        return np.frombuffer(self.coordinates, dtype=np.float32).reshape(-1, 3)

    def element_symbols(self) -> list[str]:
        return [self.elements.values[code] for code in self.element_of_atom]

    def box_lengths(self) -> list[float] | None:
        return None if self.cell is None else [float(np.linalg.norm(row)) for row in self.cell]

    def line_of(self, index: int) -> int:
        """The file line of atom `index` (0-based)."""
        run = bisect_right(self.run_atoms, index) - 1
        return int(self.run_lines[run] + index - self.run_atoms[run])

    def note_line(self, index: int, line: int) -> None:
        """Records the line of atom `index`, the next atom read."""
        if not self.run_atoms or line - index != self.run_lines[-1] - self.run_atoms[-1]:
            self.run_atoms.append(index)
            self.run_lines.append(line)

    def note_lines(self, first_atom: int, lines: np.ndarray) -> None:
        """Records the lines of the atoms from `first_atom` on (consecutive atoms), as runs."""
        offsets = lines.astype(np.int64) - (first_atom + np.arange(len(lines)))
        previous = self.run_lines[-1] - self.run_atoms[-1] if self.run_atoms else None
        starts = np.flatnonzero(np.r_[offsets[:1] != previous, offsets[1:] != offsets[:-1]]) if len(lines) else offsets[:0]
        self.run_atoms.frombytes((first_atom + starts).astype(np.int64).tobytes())
        self.run_lines.frombytes(lines[starts].astype(np.int64).tobytes())


def structure_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in {".pdb", ".gro"}:
        raise StructureError(
            f"The file has an unsupported file type. Accepted: .pdb, .gro (got {suffix or 'no extension'}).",
            code=UNSUPPORTED_FILE_TYPE,
        )
    return suffix[1:]


def read_structure(path: Path) -> StructureAtoms:
    if not path.is_file():
        raise EngineError("INVALID_INPUT", f"The structure file {path.name} does not exist.")
    kind = structure_format(path)
    size = path.stat().st_size
    if size == 0:
        raise StructureError("The file is empty.")
    if size > MAX_FILE_BYTES:
        raise StructureError("The file exceeds the maximum size of 2000 MB")
    _check_content(path, kind)
    try:
        atoms = read_pdb(path) if kind == "pdb" else read_gro(path)
    except columns.LineTooLong as exc:
        raise StructureError(
            f"the line is longer than {MAX_LINE_BYTES} characters (a .pdb line has 80, a .gro line about 45-110); "
            "this is not a structure file, or it is damaged.",
            exc.line,
        ) from None
    if atoms.count == 0:
        raise StructureError("The file contains no atoms (no ATOM or HETATM records).")
    return atoms


def _check_content(path: Path, kind: str) -> None:
    """Binary files, and a .gro named .pdb or the reverse, told apart from the first lines."""
    with path.open("rb") as handle:
        head = handle.read(65536)
    text_bytes = sum(head.count(bytes([value])) for value in _TEXT_BYTES)
    if b"\0" in head or text_bytes < 0.9 * len(head):
        first = next(position for position, value in enumerate(head) if value not in _TEXT_BYTES)
        line = head[:first].count(b"\n") + 1
        raise StructureError("the file is binary (bytes that are not text), not a text .pdb or .gro file.", line)
    lines = head.split(b"\n")[:4]
    looks_gro = len(lines) >= 3 and lines[1].strip().isdigit() and _gro_atom_line(lines[2])
    looks_pdb = any(line[:6].rstrip() in _PDB_RECORDS for line in head.split(b"\n")[:50])
    if kind == "pdb" and looks_gro and not looks_pdb:
        raise StructureError(
            "The file is named .pdb but holds a GROMACS .gro structure (an atom count on line 2, .gro atom "
            "lines from line 3); rename it to .gro and upload it again."
        )
    if kind == "gro" and looks_pdb and not looks_gro:
        raise StructureError(
            "The file is named .gro but holds a PDB structure (PDB records such as ATOM, CRYST1, REMARK); rename it to .pdb and upload it again."
        )


_TEXT_BYTES = frozenset(range(32, 127)) | {9, 10, 13}
_PDB_RECORDS = {
    b"HEADER", b"TITLE", b"COMPND", b"SOURCE", b"REMARK", b"CRYST1", b"ATOM", b"HETATM", b"MODEL",
    b"TER", b"END", b"ENDMDL", b"CONECT", b"AUTHOR", b"EXPDTA", b"SEQRES", b"HELIX", b"SHEET",
}  # fmt: skip


def _gro_atom_line(line: bytes) -> bool:
    try:
        float(line[20:28])
        return len(line.rstrip()) >= 44 and line[5:10].strip() != b""
    except ValueError:
        return False


def _line_error(message: str, number: int) -> StructureError:
    return StructureError(message, number)


# ---------------------------------------------------------------------------------------------
# PDB


def _pdb_charge(text: bytes) -> int:
    """Columns 79-80 (`1+`, `2-`, also `+1`/`-1`); -128 when blank or not a charge."""
    text = text.strip()
    if len(text) == 2:
        if text[:1].isdigit() and text[1:] in (b"+", b"-"):
            return int(text[:1]) * (1 if text[1:] == b"+" else -1)
        if text[1:].isdigit() and text[:1] in (b"+", b"-"):
            return int(text[1:]) * (1 if text[:1] == b"+" else -1)
    return -128


def element_of(name: str, residue: str, element_field: str = "", starts_in_13: bool | None = None) -> str:
    """Element of an atom: the element column when given, else a monatomic ion's by its residue
    name, else PDB alignment for non-standard residues, else the first letter of the name."""
    declared = element_field.strip()
    if declared.isalpha():
        return declared[0].upper() + declared[1:].lower()
    residue_key = residue.strip().upper()
    letters = "".join(character for character in name if character.isalpha()).upper()
    ion = ION_RESIDUES.get(residue_key)
    if ion is not None and (letters == residue_key.rstrip("+-2") or letters in ION_RESIDUES) and len(name) <= 4:
        return ion
    standard = residue_key in NAMED_LIKE_PROTEINS
    if not standard and len(letters) >= 2:
        two = letters[0] + letters[1].lower()
        if starts_in_13 and two in TWO_LETTER_ELEMENTS and not (letters[0] == "H" and len(name.strip()) == 4):
            return two
        if starts_in_13 is None and letters[:2] in _HALOGEN_NAMES:  # .gro: no alignment to read
            return _HALOGEN_NAMES[letters[:2]]
    if letters and letters[0] in ONE_LETTER_ELEMENTS:
        return letters[0]
    return "X"  # virtual sites (MW, LP) and unknown names


def _columns_xyz(raw: bytes) -> tuple[float, float, float] | None:
    """The coordinates in columns 31-54, or None when they do not hold three decimal numbers."""
    x, y, z = raw[30:38], raw[38:46], raw[46:54]
    if b"." not in x or b"." not in y or b"." not in z:
        return None
    try:
        return float(x), float(y), float(z)
    except ValueError:
        return None


def _fields_atom(raw: bytes) -> tuple[bytes, bytes, bytes, bytes, bytes, tuple[float, float, float], bytes] | None:
    """An ATOM/HETATM line whose fields are separated by spaces: serial, name, residue name, chain,
    residue number, coordinates, element; None when it cannot be read that way either."""
    tokens = raw.split()
    record = tokens[0]
    if record not in (b"ATOM", b"HETATM"):  # `HETATM12345` glued to its serial
        tokens[0:1] = [record[:6], record[6:]] if record.startswith(b"HETATM") else [record[:4], record[4:]]
    for start in (5, 6):  # ATOM serial name residue [chain] number x y z
        coordinates = tokens[start : start + 3]
        if len(coordinates) < 3 or not all(b"." in token for token in coordinates):
            continue
        if not _is_integer(tokens[start - 1]) or (start == 6 and len(tokens[4]) != 1):
            continue
        try:
            xyz = (float(coordinates[0]), float(coordinates[1]), float(coordinates[2]))
        except ValueError:
            return None
        serial, name, residue = tokens[1], tokens[2], tokens[3]
        chain = tokens[4] if start == 6 else b""
        tail = tokens[start + 3 :]
        element = tail[2] if len(tail) >= 3 and tail[2].isalpha() else b""
        return serial, name, residue, chain, tokens[start - 1], xyz, element
    return None


def _is_integer(text: bytes) -> bool:
    return text.lstrip(b"-").isdigit()


def _in_columns(raw: bytes) -> bool:
    """A line laid out in PDB columns has a decimal point where %8.3f puts it in x, y or z."""
    return len(raw) > 50 and (raw[34:35] == b"." or raw[42:43] == b"." or raw[50:51] == b".")


class _PdbSerials:
    """Atom serial fields (5 bytes each) and CONECT pairs, decoded once the whole file is read."""

    def __init__(self) -> None:
        self.atom_fields = bytearray()
        self.conect_fields = bytearray()  # first atom, partner: 10 bytes per bond
        self.conect_lines = array("i")

    def add_conect(self, first: bytes, partner: bytes, line: int) -> None:
        self.conect_fields += first.rjust(5)[:5] + partner.rjust(5)[:5]
        self.conect_lines.append(line)

    def check_conect_count(self, atoms: int) -> None:
        """CONECT pairs are stored until the file ends: at most MAX_CONECT_PAIRS_PER_ATOM per atom
        before them, so that what they cost grows with the atoms, not with the records."""
        allowed = MAX_CONECT_PAIRS_PER_ATOM * atoms
        if len(self.conect_lines) > allowed:
            raise _line_error(
                f"the CONECT records name more than {MAX_CONECT_PAIRS_PER_ATOM} partners per atom of the {atoms} "
                "atoms before them; a PDB lists each bond once from each of its atoms (CONECT records follow the atoms).",
                int(self.conect_lines[allowed]),
            )

    def resolve(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """(bonds, 2) atom indices of the CONECT pairs, and the atoms they mention."""
        if not self.conect_lines:
            return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64)
        atoms = np.frombuffer(bytes(self.atom_fields), dtype=np.uint8).reshape(count, 5)
        pairs = np.frombuffer(bytes(self.conect_fields), dtype=np.uint8).reshape(-1, 5)
        upper = _has_hybrid36_letters(atoms) or _has_hybrid36_letters(pairs)
        serials = _decode_serials(atoms, upper)
        hex_from = _hexadecimal_from(atoms, upper)
        if hex_from is not None:  # digits-only serials from there on are hexadecimal too
            digits_only = (atoms <= ord("9")).all(axis=1) & (np.arange(count) >= hex_from)
            serials[digits_only] = _hexadecimal(atoms[digits_only])
        order = np.argsort(serials, kind="stable")
        ordered = serials[order]
        wanted = _decode_serials(pairs, upper)
        # a digits-only CONECT field of such a file may be read either way
        alternative = np.where((pairs <= ord("9")).all(axis=1), _hexadecimal(pairs), -1) if hex_from is not None else np.full(len(pairs), -1)
        left, right = np.searchsorted(ordered, wanted, side="left"), np.searchsorted(ordered, wanted, side="right")
        left2, right2 = np.searchsorted(ordered, alternative, side="left"), np.searchsorted(ordered, alternative, side="right")
        right = np.where(wanted >= 0, right, left)
        right2 = np.where((alternative >= 0) & (alternative != wanted), right2, left2)
        candidates = (right - left) + (right2 - left2)
        if (candidates == 0).any():
            missing = int(np.flatnonzero(candidates == 0)[0])
            text = bytes(pairs[missing]).decode("latin-1").strip()
            raise _line_error(
                f"CONECT names atom {text}, which the file does not have: the file may be truncated, or its atom serials do not match its CONECT records.",
                int(self.conect_lines[missing // 2]),
            )
        indices = np.where(right > left, order[np.minimum(left, len(order) - 1)], order[np.minimum(left2, len(order) - 1)])
        if (candidates > 1).any():  # repeated serials, or fields read two ways
            indices = _nearest_in_order(_CandidateLookup(order, (left, right), (left2, right2), hex_from), indices, candidates > 1)
        bonds = indices.reshape(-1, 2)
        distinct = bonds[:, 0] != bonds[:, 1]
        bonds = bonds[distinct]
        crowded = overbonded_atom(bonds, count)
        if crowded is not None:
            record = int(np.flatnonzero((bonds == crowded).any(axis=1))[0])
            partners = int(bond_counts(bonds, np.array([crowded]))[0])
            raise _line_error(
                f"the CONECT records bond atom {_serial_name(int(serials[crowded]), crowded)} to {partners} atoms; an atom has at most "
                f"{MAX_BONDS_PER_ATOM} bonds (records repeating a pair count it once).",
                int(np.frombuffer(self.conect_lines, dtype=np.int32)[distinct][record]),
            )
        mentioned = np.zeros(count, dtype=bool)
        mentioned[bonds.ravel()] = True
        return bonds, np.flatnonzero(mentioned)


def _serial_name(serial: int, index: int) -> str:
    return str(serial) if serial >= 0 else f"number {index + 1} (its serial is not a number)"


def overbonded_atom(bonds: np.ndarray, count: int) -> int | None:
    """The first atom with more than MAX_BONDS_PER_ATOM distinct partners in `bonds` (pairs may
    repeat, in either order), or None. Only atoms named that often are counted exactly."""
    mentions = np.bincount(bonds.ravel(), minlength=count)
    suspects = np.flatnonzero(mentions > MAX_BONDS_PER_ATOM)
    if len(suspects) == 0:
        return None
    over = suspects[bond_counts(bonds, suspects) > MAX_BONDS_PER_ATOM]
    return int(over[0]) if len(over) else None


def bond_counts(bonds: np.ndarray, atoms: np.ndarray) -> np.ndarray:
    """How many distinct partners each of `atoms` (ascending) has in `bonds`."""
    touching = bonds[np.isin(bonds, atoms).any(axis=1)]
    ordered = np.sort(touching, axis=1)
    unique = np.unique(ordered, axis=0)
    ends = unique.ravel()
    return np.bincount(np.searchsorted(atoms, ends[np.isin(ends, atoms)]), minlength=len(atoms))


def _plain_hexadecimal(fields: np.ndarray) -> np.ndarray:
    """Rows written as plain hexadecimal (a digit, then letters a-f somewhere)."""
    letters = ((fields >= ord("a")) & (fields <= ord("f"))) | ((fields >= ord("A")) & (fields <= ord("F")))
    return np.flatnonzero((fields[:, 0] <= ord("9")) & (fields[:, 0] >= ord("0")) & letters.any(axis=1))


def _hexadecimal(fields: np.ndarray) -> np.ndarray:
    text = np.where(fields == ord(" "), ord("0"), fields)
    return _DIGIT_VALUES[text] @ (16 ** np.arange(4, -1, -1))


def _has_hybrid36_letters(fields: np.ndarray) -> bool:
    """Hybrid-36 uses letters past F in its last four places; hexadecimal does not."""
    tail = fields[:, 1:]
    return bool(((tail >= ord("G")) & (tail <= ord("Z"))).any() or ((tail >= ord("g")) & (tail <= ord("z"))).any())


_DIGIT_VALUES = np.full(256, -1, dtype=np.int64)
_DIGIT_VALUES[ord("0") : ord("9") + 1] = np.arange(10)
_DIGIT_VALUES[ord("A") : ord("Z") + 1] = np.arange(10, 36)
_DIGIT_VALUES[ord("a") : ord("z") + 1] = np.arange(10, 36)


def _decode_serials(fields: np.ndarray, hybrid36: bool) -> np.ndarray:
    """Serial numbers of 5-byte fields (right-aligned by the caller or by the file): decimal;
    past 99,999 hybrid-36 or hexadecimal from A0000 (upper case), plain hexadecimal (a digit then
    lower-case letters, VMD); -1 for `*****` and blanks."""
    text = np.where(fields == ord(" "), ord("0"), fields)
    values = _DIGIT_VALUES[text]
    result = np.full(len(fields), -1, dtype=np.int64)
    valid = (values >= 0).all(axis=1) & ~(fields == ord(" ")).all(axis=1)
    decimal = valid & (values < 10).all(axis=1)
    weights10 = 10 ** np.arange(4, -1, -1)
    result[decimal] = values[decimal] @ weights10
    upper_start = valid & (fields[:, 0] >= ord("A")) & (fields[:, 0] <= ord("Z"))
    lower_start = valid & (fields[:, 0] >= ord("a")) & (fields[:, 0] <= ord("z"))
    digit_hex = valid & ~decimal & ~upper_start & ~lower_start & (values < 16).all(axis=1)
    if hybrid36:
        weights36 = 36 ** np.arange(4, -1, -1)
        result[upper_start] = values[upper_start] @ weights36 - 10 * 36**4 + 100000
        result[lower_start] = values[lower_start] @ weights36 - 10 * 36**4 + 100000 + 26 * 36**4
    else:
        weights16 = 16 ** np.arange(4, -1, -1)
        hexadecimal = upper_start & (values < 16).all(axis=1)
        result[hexadecimal] = values[hexadecimal] @ weights16 - 10 * 16**4 + 100000
        lower_hex = lower_start & (values < 16).all(axis=1)
        result[lower_hex] = values[lower_hex] @ weights16
    result[digit_hex] = values[digit_hex] @ (16 ** np.arange(4, -1, -1))
    return result


def _hexadecimal_from(fields: np.ndarray, hybrid36: bool) -> int | None:
    """The first atom from which serials without letters are hexadecimal: after FFFFF in a file
    continuing from A0000 (the engine's and OpenMM's writers wrap there, right-aligned: `    0`,
    `    A`, `   10`), or from the first plain hexadecimal serial (VMD: `186a0`); None otherwise."""
    if hybrid36:
        return None
    if ((fields[:, 0] >= ord("A")) & (fields[:, 0] <= ord("F"))).any():
        wrapped = np.flatnonzero((fields == np.frombuffer(b"FFFFF", dtype=np.uint8)).all(axis=1))
        return int(wrapped[0]) + 1 if len(wrapped) else None
    plain = _plain_hexadecimal(fields)
    return int(plain[0]) if len(plain) else None


@dataclass(frozen=True)
class _CandidateLookup:
    """Where the candidate atoms of each CONECT field are. order: atom indices sorted by serial
    (stable: ascending within a serial); first and second: each field's [low, high) range in `order`
    as read and read the other way; hex_from: the first atom whose digits-only serials are
    hexadecimal (None: no such atoms)."""

    order: np.ndarray
    first: tuple[np.ndarray, np.ndarray]
    second: tuple[np.ndarray, np.ndarray]
    hex_from: int | None


def _nearest_in_order(lookup: _CandidateLookup, indices: np.ndarray, ambiguous: np.ndarray) -> np.ndarray:
    """Fields with several candidate atoms (serials that repeat: GROMACS wraps them at 100,000;
    or a digits-only field that reads as decimal and as hexadecimal), resolved as the records go:
    a record's first atom is the candidate nearest the previous record's first atom, each partner
    the candidate nearest its record's first atom; a digits-only field is decimal until the
    reference reaches the atoms whose serials are hexadecimal, hexadecimal from there.

    Whole arrays at once: the first atoms' chain is solved as a fixed point (each first atom the
    candidate nearest the previous one's pick), started from the last unambiguous first atom before
    each record. The recurrence has one solution, so a fixed point is the record-by-record answer;
    should one not be reached in a few rounds, the record-by-record loop decides.

    Parameters: lookup, where each field's candidate atoms are; indices, each field's first
    candidate; ambiguous, fields with more than one. Returns the atom index of every field.
    """
    chosen = indices.copy()
    firsts, partners = slice(0, None, 2), slice(1, None, 2)
    ambiguous_firsts = ambiguous[firsts]
    picks = chosen[firsts]
    if ambiguous_firsts.any():
        reference = _first_atom_estimate(picks, ambiguous_firsts, len(lookup.order))
        where = np.flatnonzero(ambiguous_firsts) * 2
        for _ in range(_FIXED_POINT_ROUNDS):
            fresh = picks.copy()
            fresh[ambiguous_firsts] = _nearest(lookup, where, reference[ambiguous_firsts])
            settled = np.array_equal(fresh, picks) and np.array_equal(reference, np.concatenate(([0], fresh[:-1])))
            picks = fresh
            if settled:
                break
            reference = np.concatenate(([0], picks[:-1]))
        else:
            return _nearest_in_order_loop(lookup, indices, ambiguous)
        chosen[firsts] = picks
    ambiguous_partners = ambiguous[partners]
    if ambiguous_partners.any():
        where = np.flatnonzero(ambiguous_partners) * 2 + 1
        chosen[where] = _nearest(lookup, where, chosen[where - 1])
    return chosen


_FIXED_POINT_ROUNDS = 50


def _first_atom_estimate(picks: np.ndarray, ambiguous: np.ndarray, count: int) -> np.ndarray:
    """Where each record's previous first atom likely is: the last unambiguous first atom before
    it, moved on by the records between them at the file's pace (atoms per record, from its
    unambiguous records). Records go forward through the atoms, so this is near the truth, and the
    candidates of a repeated serial lie a wrap (100,000 atoms or more) apart."""
    records = np.arange(len(picks))
    anchors = np.flatnonzero(~ambiguous)
    if len(anchors) >= 2 and anchors[-1] > anchors[0]:
        pace = (picks[anchors[-1]] - picks[anchors[0]]) / (anchors[-1] - anchors[0])
    else:
        pace = count / max(len(picks), 1)
    # the reference of record k is the pick of record k - 1 (atom 0 for the first record)
    previous = records - 1
    known = np.where(~ambiguous, records, -1)
    last = np.maximum.accumulate(known)
    last_before = np.concatenate(([-1], last[:-1]))
    anchored = np.where(last_before >= 0, picks[np.maximum(last_before, 0)] + pace * (previous - last_before), pace * previous)
    reference = np.clip(np.rint(anchored), 0, count - 1).astype(np.int64)
    reference[0] = 0
    return reference


def _nearest(lookup: _CandidateLookup, where: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """For the fields at `where`, the candidate nearest `reference` (on a tie the later atom), from
    the preferred reading (hexadecimal from hex_from on, else as read), else the other."""
    order, first, second, hex_from = lookup.order, lookup.first, lookup.second, lookup.hex_from
    in_hexadecimal_part = np.full(len(where), hex_from is not None) & (reference >= (hex_from or 0) - 1)
    low, high = first[0][where], first[1][where]
    low2, high2 = second[0][where], second[1][where]
    preferred_low = np.where(in_hexadecimal_part, low2, low)
    preferred_high = np.where(in_hexadecimal_part, high2, high)
    other_low = np.where(in_hexadecimal_part, low, low2)
    other_high = np.where(in_hexadecimal_part, high, high2)
    use_preferred = preferred_high > preferred_low
    return _nearest_in_ranges(
        order,
        np.where(use_preferred, preferred_low, other_low),
        np.where(use_preferred, preferred_high, other_high),
        reference,
    )


def _nearest_in_ranges(order: np.ndarray, low: np.ndarray, high: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """In each range [low, high) of `order` (ascending atom indices, not empty), the index nearest
    `reference`; on a tie the one at or after it."""
    lo, hi = low.copy(), high.copy()
    while True:  # binary search: the first index at or after the reference
        open_ = lo < hi
        if not open_.any():
            break
        mid = (lo + hi) // 2
        before = open_ & (order[np.minimum(mid, len(order) - 1)] < reference)
        lo = np.where(before, mid + 1, lo)
        hi = np.where(open_ & ~before, mid, hi)
    after = order[np.minimum(lo, len(order) - 1)]
    below = order[np.maximum(lo - 1, 0)]
    has_after = lo < high
    has_below = lo > low
    take_after = has_after & (~has_below | (after - reference <= reference - below))
    return np.where(take_after, after, below)


def _nearest_in_order_loop(lookup: _CandidateLookup, indices: np.ndarray, ambiguous: np.ndarray) -> np.ndarray:
    """The record-by-record form of _nearest_in_order (its reference, and its fallback).

    Fields with several candidate atoms (serials that repeat: GROMACS wraps them at 100,000;
    or a digits-only field that reads as decimal and as hexadecimal). CONECT records follow the
    atoms' order: a record's first atom is the candidate nearest the previous record's, and each
    partner the candidate nearest its record's first atom. A digits-only field is decimal until the
    records reach the atoms whose serials are hexadecimal, hexadecimal from there (`   11` is 17
    there, not the atom `    B`)."""
    order, first, second, hex_from = lookup.order, lookup.first, lookup.second, lookup.hex_from
    chosen = indices.copy()
    reference = 0
    step = 1 << 20  # positions converted to Python lists a block at a time: memory stays flat
    for block in range(0, len(chosen), step):
        flags = ambiguous[block : block + step].tolist()
        picked = chosen[block : block + step].tolist()
        (low, high), (low2, high2) = ((a[block : block + step].tolist(), b[block : block + step].tolist()) for a, b in (first, second))
        for offset, flag in enumerate(flags):
            position = block + offset
            if position % 2 == 1:
                reference = picked[offset - 1] if offset else int(chosen[position - 1])
            if flag:
                as_read = order[low[offset] : high[offset]].tolist()
                as_hexadecimal = order[low2[offset] : high2[offset]].tolist()
                in_hexadecimal_part = hex_from is not None and reference >= hex_from - 1
                # before that part a digits-only field is decimal, within it hexadecimal; the other
                # reading only when the first names no atom
                preferred, other = (as_hexadecimal, as_read) if in_hexadecimal_part else (as_read, as_hexadecimal)
                # on a tie the later atom: records, and the atoms each lists, go forward through the file
                picked[offset] = min(preferred or other, key=lambda index: (abs(index - reference), index < reference))
            if position % 2 == 0:
                reference = picked[offset]
        chosen[block : block + step] = picked
    return chosen


def read_pdb(path: Path) -> StructureAtoms:
    return _PdbReader().read(path)


class _PdbReader:
    """A PDB file block by block: blocks of plain ATOM/HETATM/CONECT/TER lines in columns are read
    with NumPy (columns.py); a block with anything else (space-separated fields, MODEL, a broken
    line) is read line by line, which also finds the line a problem is on."""

    def __init__(self) -> None:
        self.atoms = StructureAtoms()
        self.serials = _PdbSerials()
        self.element_cache: dict[tuple[bytes, bytes, bytes], int] = {}
        self.last_residue_key = b""
        self.residue_sizes = array("i")
        self.ended = self.in_first_model = self.models_done = self.other_records = False

    def read(self, path: Path) -> StructureAtoms:
        last_number, last_raw = 0, b"\n"
        for block, first in columns.blocks(path, MAX_LINE_BYTES):
            lines = columns.Lines(block, first, MAX_LINE_BYTES)
            if not self.read_block(lines, first):
                for index in range(len(lines)):
                    self.read_line(lines.raw(index), first + index)
            last_number, last_raw = first + len(lines) - 1, lines.raw(len(lines) - 1)
        atoms = self.atoms
        _check_pdb_complete(atoms, self.residue_sizes, self.ended, self.other_records, last_number, last_raw)
        bonds, bonded = self.serials.resolve(atoms.count)
        if len(bonds):
            atoms.bonds, atoms.bonded_atoms = bonds, bonded
        return atoms

    def read_line(self, raw: bytes, number: int) -> None:
        atoms = self.atoms
        record = raw[:6]
        if record == b"ATOM  " or record == b"HETATM" or record[:4] == b"ATOM":
            if self.models_done:
                return  # atoms of the second and later models of an NMR ensemble
            xyz = _columns_xyz(raw)
            if xyz is not None:
                serial = raw[6:11]
                name = raw[12:16]
                residue = raw[17:21].strip()
                residue_key = raw[17:27].ljust(10)
                element_field = raw[76:78].strip()
                charge = _pdb_charge(raw[78:80])
            else:
                loose = None if _in_columns(raw) else _fields_atom(raw)
                if loose is None:
                    raise _pdb_atom_error(raw, number)
                serial, name_field, residue, chain, residue_number, xyz, element_field = loose
                name = b" " + name_field if len(name_field) < 4 else name_field
                residue_key = b"|".join((chain, residue_number, residue))
                charge = -128
            self.serials.atom_fields += serial.strip().rjust(5)[-5:] if serial.strip() else b"     "
            atoms.note_line(atoms.count, number)
            if residue_key != self.last_residue_key:
                self.last_residue_key = residue_key
                atoms.name_of_residue.append(atoms.residue_names.code(residue))
                self.residue_sizes.append(0)
            self.residue_sizes[-1] += 1
            stripped = name.strip()
            if not stripped:
                raise _line_error("the atom has no name (columns 13-16).", number)
            atoms.name_of_atom.append(atoms.names.code(stripped))
            atoms.element_of_atom.append(self.element(name, residue, element_field))
            atoms.residue_of_atom.append(len(atoms.name_of_residue) - 1)
            atoms.coordinates.extend(xyz)
            atoms.charges.append(charge)
            return
        record = record.rstrip().upper()
        if record in (b"END", b"ENDMDL"):
            self.ended = True
            if record == b"ENDMDL" and self.in_first_model:
                self.models_done = True
            return
        if not record.strip():
            return
        self.other_records = True
        if record == b"CONECT":
            _read_conect(raw, number, self.serials)
            self.serials.check_conect_count(atoms.count)
        elif record == b"CRYST1":
            atoms.cell = _cryst1_cell(raw, number)
        elif record == b"MODEL":
            self.in_first_model = not self.models_done

    def element(self, name: bytes, residue: bytes, element_field: bytes) -> int:
        key = (name, residue, element_field)
        found = self.element_cache.get(key)
        if found is None:
            symbol = element_of(
                name.strip().decode("latin-1"),
                residue.decode("latin-1"),
                element_field.decode("latin-1"),
                starts_in_13=name[:1] not in (b" ", b"") and not name[:1].isdigit(),
            )
            found = self.element_cache[key] = self.atoms.elements.code(symbol.encode())
        return found

    def read_block(self, lines: columns.Lines, first: int) -> bool:
        """The block read with NumPy, or False (nothing changed) when it needs reading line by line."""
        if self.models_done:
            return False
        record = lines.record()
        is_atom = columns.equals(record, b"ATOM") | columns.equals(record, b"HETATM")
        is_conect = columns.equals(record, b"CONECT")
        other = np.flatnonzero(~(is_atom | is_conect))
        other_records = [(lines.raw(index), first + index) for index in other.tolist()]
        for raw, _ in other_records:
            if raw[:6].rstrip().upper() in (b"MODEL", b"ENDMDL") or raw[:4] == b"ATOM":
                return False
        atom_rows = np.flatnonzero(is_atom)
        atom_part = self._atom_block(lines, atom_rows, first) if len(atom_rows) else None
        if atom_part is False:
            return False
        conect_rows = np.flatnonzero(is_conect)
        conect_part = self._conect_block(lines, conect_rows, first) if len(conect_rows) else None
        if conect_part is False:
            return False
        for raw, number in other_records:
            self.read_line(raw, number)
        if atom_part is not None:
            atom_part()
        if conect_part is not None:
            fields, numbers = conect_part
            self.serials.conect_fields += fields
            self.serials.conect_lines.extend(numbers)
            self.serials.check_conect_count(self.atoms.count)
            self.other_records = True
        return True

    def _atom_block(self, lines: columns.Lines, rows: np.ndarray, first: int) -> Callable[[], None] | Literal[False]:
        text = lines.columns(rows, 0, 80)
        if ((lines.ends[rows] - lines.starts[rows]) < 54).any():
            return False
        xyz = np.empty((len(rows), 3), dtype=np.float32)
        for axis, start in enumerate((30, 38, 46)):
            values, ok = columns.fixed_decimals(text[:, start : start + 8])
            if not ok.all():
                return False
            xyz[:, axis] = values
        serial = text[:, 6:11]
        if ((serial[:, 4] == columns.SPACE) & (serial != columns.SPACE).any(axis=1)).any():
            return False  # left-aligned serials: read line by line
        names = text[:, 12:16]
        if (names == columns.SPACE).all(axis=1).any():
            return False
        residue_keys = text[:, 17:27]
        previous = np.frombuffer(self.last_residue_key.ljust(10)[:10], dtype=np.uint8)
        changed = np.empty(len(rows), dtype=bool)
        changed[0] = (residue_keys[0] != previous).any() or len(self.last_residue_key) != 10
        changed[1:] = (residue_keys[1:] != residue_keys[:-1]).any(axis=1)

        def commit() -> None:
            atoms = self.atoms
            atoms.note_lines(atoms.count, first + rows)
            name_keys, name_inverse = np.unique(columns.keys(names), return_inverse=True)
            name_codes = np.array([atoms.names.code(columns.text_of(k, 4).strip()) for k in name_keys.tolist()])
            residue_name_keys, residue_inverse = np.unique(columns.keys(text[:, 17:21]), return_inverse=True)
            element_keys, element_inverse = np.unique(columns.keys(text[:, 76:78]), return_inverse=True)
            charge_keys, charge_inverse = np.unique(columns.keys(text[:, 78:80]), return_inverse=True)
            combined = (name_inverse * len(residue_name_keys) + residue_inverse) * len(element_keys) + element_inverse
            kinds, kind_inverse = np.unique(combined, return_inverse=True)
            element_codes = np.array(
                [
                    self.element(
                        columns.text_of(name_keys[k // (len(residue_name_keys) * len(element_keys))], 4),
                        columns.text_of(residue_name_keys[(k // len(element_keys)) % len(residue_name_keys)], 4).strip(),
                        columns.text_of(element_keys[k % len(element_keys)], 2).strip(),
                    )
                    for k in kinds.tolist()
                ],
                dtype=np.int32,
            )
            charge_values = np.array([_pdb_charge(columns.text_of(k, 2)) for k in charge_keys.tolist()], dtype=np.int8)
            starts = np.flatnonzero(changed)
            residue_codes = np.array([atoms.residue_names.code(columns.text_of(k, 4).strip()) for k in residue_name_keys.tolist()], dtype=np.int32)[
                residue_inverse[starts]
            ]
            before = len(atoms.name_of_residue)
            atoms.name_of_residue.frombytes(residue_codes.astype(np.int32).tobytes())
            residue_of = before - 1 + np.cumsum(changed)
            sizes = np.diff(np.r_[starts, len(rows)])
            if len(starts) == 0 or starts[0] > 0:
                self.residue_sizes[-1] += int(starts[0]) if len(starts) else len(rows)
            self.residue_sizes.frombytes(sizes.astype(np.int32).tobytes())
            atoms.name_of_atom.frombytes(name_codes[name_inverse].astype(np.int32).tobytes())
            atoms.element_of_atom.frombytes(element_codes[kind_inverse].tobytes())
            atoms.residue_of_atom.frombytes(residue_of.astype(np.int32).tobytes())
            atoms.coordinates.frombytes(xyz.tobytes())
            atoms.charges.frombytes(charge_values[charge_inverse].tobytes())
            self.serials.atom_fields += serial.tobytes()
            self.last_residue_key = residue_keys[-1].tobytes()

        return commit

    def _conect_block(self, lines: columns.Lines, rows: np.ndarray, first: int) -> tuple[bytes, array[int]] | Literal[False]:
        text = lines.columns(rows, 6, 31)
        allowed = (text == columns.SPACE) | ((text >= ord("0")) & (text <= ord("9"))) | ((text >= ord("A")) & (text <= ord("Z")))
        allowed |= ((text >= ord("a")) & (text <= ord("z"))) | (text == ord("*"))
        if not allowed.all():
            return False
        fields = text.reshape(len(rows), 5, 5)
        blank = (fields == columns.SPACE).all(axis=2)
        left_aligned = (fields[:, :, 4] == columns.SPACE) & ~blank
        if blank[:, 0].any() or left_aligned.any():
            return False
        row, partner = np.nonzero(~blank[:, 1:])
        pairs = np.concatenate([fields[row, 0], fields[row, partner + 1]], axis=1)
        return pairs.tobytes(), array("i", (first + rows[row]).astype(np.int32).tobytes())


def _pdb_atom_error(raw: bytes, number: int) -> StructureError:
    line = raw.rstrip(b"\r\n")
    if len(line) < 54:
        return _line_error(
            f"the {line[:6].strip().decode('latin-1')} record is cut short ({len(line)} characters; "
            "coordinates need columns 31-54), and its fields cannot be read as space-separated either.",
            number,
        )
    for what, start in (("x", 30), ("y", 38), ("z", 46)):
        text = line[start : start + 8]
        try:
            float(text)
        except ValueError:
            return _line_error(
                f"the {what} coordinate {text.decode('latin-1').strip()!r} (columns {start + 1}-{start + 8}) is not a number.",
                number,
            )
    return _line_error("the coordinates (columns 31-54) are not three decimal numbers.", number)


def _read_conect(raw: bytes, number: int, serials: _PdbSerials) -> None:
    line = raw.rstrip(b"\r\n")
    fields = [line[start : start + 5] for start in range(6, min(len(line), 31), 5)]
    fields = [text for text in fields if text.strip()]
    if not fields:
        return
    for text in fields:
        if not text.strip().isalnum() and text.strip() != b"*****":
            raise _line_error(f"the CONECT atom serial {text.decode('latin-1').strip()!r} is not a serial number.", number)
    for partner in fields[1:]:
        serials.add_conect(fields[0].strip(), partner.strip(), number)


def _cryst1_cell(raw: bytes, number: int) -> np.ndarray | None:
    if len(raw.rstrip()) < 33:
        raise _line_error("the CRYST1 record is cut short (cell lengths need columns 7-33).", number)
    try:
        a, b, c = float(raw[6:15]), float(raw[15:24]), float(raw[24:33])
        angles = [float(raw[start : start + 7]) if raw[start : start + 7].strip() else 90.0 for start in (33, 40, 47)]
    except ValueError:
        raise _line_error("the CRYST1 cell lengths and angles (columns 7-54) are not numbers.", number) from None
    if min(a, b, c) <= 0 or (a, b, c) == (1.0, 1.0, 1.0):
        return None  # CRYST1 0 0 0 (NAMD, CHARMM without a cell) or 1 1 1 (NMR models): no cell
    alpha, beta, gamma = np.radians(angles)
    cx = c * np.cos(beta)
    cy = c * (np.cos(alpha) - np.cos(beta) * np.cos(gamma)) / np.sin(gamma)
    cz = np.sqrt(max(c * c - cx * cx - cy * cy, 0.0))
    return np.array([[a, 0, 0], [b * np.cos(gamma), b * np.sin(gamma), 0], [cx, cy, cz]], dtype=np.float64)


def _check_pdb_complete(atoms: StructureAtoms, residue_sizes: array, ended: bool, other_records: bool, last_number: int, last_raw: bytes) -> None:
    if ended or atoms.count == 0:
        return
    cut_mid_line = not last_raw.endswith(b"\n")
    if other_records or cut_mid_line:
        raise _line_error(
            f"the file ends after {atoms.count} atoms without an END record"
            + (" and in the middle of a line" if cut_mid_line else "")
            + "; it looks truncated. Upload the complete file (a PDB ends with END).",
            last_number if cut_mid_line else last_number + 1,
        )
    if len(residue_sizes) > 1:
        last_name = atoms.name_of_residue[-1]
        same = [size for size, name in zip(residue_sizes[:-1], atoms.name_of_residue[:-1], strict=True) if name == last_name]
        if same and residue_sizes[-1] < min(same):
            name = atoms.residue_names.values[last_name]
            raise _line_error(
                f"the last residue ({name}) has {residue_sizes[-1]} atoms where the other {name} residues have "
                f"at least {min(same)}, and the file has no END record; it looks truncated.",
                last_number + 1,
            )


# ---------------------------------------------------------------------------------------------
# GRO


def read_gro(path: Path) -> StructureAtoms:
    return _GroReader().read(path)


class _GroReader:
    """A .gro file block by block: the atom lines of a block are read with NumPy when they are all
    well formed, else line by line (which names the line a problem is on)."""

    def __init__(self) -> None:
        self.atoms = StructureAtoms()
        self.element_cache: dict[tuple[bytes, bytes], int] = {}
        self.last_residue_key = b""
        self.expected: int | None = None
        self.width = 8
        self.box_seen = False

    def read(self, path: Path) -> StructureAtoms:
        last_number = 0
        for block, first in columns.blocks(path, MAX_LINE_BYTES):
            lines = columns.Lines(block, first, MAX_LINE_BYTES)
            numbers = first + np.arange(len(lines))
            index = 0
            while index < len(lines) and numbers[index] <= 3:  # title, count, first atom (its column widths)
                self.read_line(lines.raw(index), int(numbers[index]))
                index += 1
            if self.expected is not None and index < len(lines):
                end = int(np.searchsorted(numbers, 3 + self.expected))
                rows = np.arange(index, max(index, end))
                if len(rows) and not self.read_atoms(lines, rows, numbers[rows]):
                    for row in rows.tolist():
                        self.read_line(lines.raw(row), int(numbers[row]))
                for row in range(max(index, end), len(lines)):
                    self.read_line(lines.raw(row), int(numbers[row]))
            last_number = first + len(lines) - 1
        atoms, expected = self.atoms, self.expected
        if expected is None:
            raise _line_error("the file ends before the atom count (line 2 of a .gro file).", last_number + 1)
        if atoms.count < expected:
            raise _line_error(
                f"the file ends after {atoms.count} atoms, but line 2 announces {expected}; it looks truncated.",
                last_number + 1,
            )
        if not self.box_seen:
            raise _line_error("the box line (the last line of a .gro file) is missing; the file looks truncated.", last_number + 1)
        return atoms

    def read_line(self, raw: bytes, number: int) -> None:
        atoms = self.atoms
        if number == 1:
            return  # title
        if number == 2:
            text = raw.strip()
            if not text.isdigit():
                raise _line_error(f"line 2 of a .gro file holds the atom count, found {text[:30].decode('latin-1')!r}.", number)
            self.expected = int(text)
            return
        atom_index = number - 3
        expected = self.expected
        assert expected is not None
        width = self.width
        if atom_index < expected:
            if atom_index == 0:
                width = self.width = _gro_field_width(raw)
            try:
                x = float(raw[20 : 20 + width]) * 10
                y = float(raw[20 + width : 20 + 2 * width]) * 10
                z = float(raw[20 + 2 * width : 20 + 3 * width]) * 10
            except ValueError:
                raise _gro_atom_error(raw, number, atom_index, expected, width) from None
            if len(raw.rstrip()) < 20 + 3 * width:
                raise _gro_atom_error(raw, number, atom_index, expected, width)
            residue_key = raw[0:10]
            if residue_key != self.last_residue_key:
                self.last_residue_key = residue_key
                atoms.name_of_residue.append(atoms.residue_names.code(raw[5:10].strip()))
            name = raw[10:15].strip()
            if not name:
                raise _line_error("the atom has no name (columns 11-15).", number)
            atoms.note_line(atoms.count, number)
            atoms.name_of_atom.append(atoms.names.code(name))
            atoms.element_of_atom.append(self.element(name, raw[5:10].strip()))
            atoms.residue_of_atom.append(len(atoms.name_of_residue) - 1)
            atoms.coordinates.extend((x, y, z))
        elif atom_index == expected:
            atoms.cell = _gro_box(raw, number, expected)
            self.box_seen = True
        elif raw.strip():
            raise _line_error(
                f"unexpected text after the box line; line 2 announces {expected} atoms but the file has more "
                "lines (several frames are not supported: upload one frame).",
                number,
            )

    def element(self, name: bytes, residue: bytes) -> int:
        found = self.element_cache.get((name, residue))
        if found is None:
            symbol = element_of(name.decode("latin-1"), residue.decode("latin-1"))
            found = self.element_cache[(name, residue)] = self.atoms.elements.code(symbol.encode())
        return found

    def read_atoms(self, lines: columns.Lines, rows: np.ndarray, numbers: np.ndarray) -> bool:
        width = self.width
        if ((lines.ends[rows] - lines.starts[rows]) < 20 + 3 * width).any():
            return False
        text = lines.columns(rows, 0, 20 + 3 * width)
        xyz = np.empty((len(rows), 3), dtype=np.float32)
        for axis in range(3):
            start = 20 + axis * width
            values, ok = columns.fixed_decimals(text[:, start : start + width])
            if not ok.all():
                return False
            xyz[:, axis] = values * 10
        names = text[:, 10:15]
        if (names == columns.SPACE).all(axis=1).any():
            return False
        atoms = self.atoms
        residue_keys = text[:, 0:10]
        previous = np.frombuffer(self.last_residue_key.ljust(10)[:10], dtype=np.uint8)
        changed = np.empty(len(rows), dtype=bool)
        changed[0] = (residue_keys[0] != previous).any() or len(self.last_residue_key) != 10
        changed[1:] = (residue_keys[1:] != residue_keys[:-1]).any(axis=1)
        name_keys, name_inverse = np.unique(columns.keys(names), return_inverse=True)
        residue_name_keys, residue_inverse = np.unique(columns.keys(text[:, 5:10]), return_inverse=True)
        name_texts = [columns.text_of(k, 5).strip() for k in name_keys.tolist()]
        residue_texts = [columns.text_of(k, 5).strip() for k in residue_name_keys.tolist()]
        pairs, pair_inverse = np.unique(name_inverse * len(residue_name_keys) + residue_inverse, return_inverse=True)
        element_codes = np.array(
            [self.element(name_texts[k // len(residue_texts)], residue_texts[k % len(residue_texts)]) for k in pairs.tolist()],
            dtype=np.int32,
        )
        name_codes = np.array([atoms.names.code(text) for text in name_texts], dtype=np.int32)
        residue_codes = np.array([atoms.residue_names.code(text) for text in residue_texts], dtype=np.int32)
        starts = np.flatnonzero(changed)
        before = len(atoms.name_of_residue)
        atoms.note_lines(atoms.count, numbers)
        atoms.name_of_residue.frombytes(residue_codes[residue_inverse[starts]].tobytes())
        atoms.name_of_atom.frombytes(name_codes[name_inverse].tobytes())
        atoms.element_of_atom.frombytes(element_codes[pair_inverse].tobytes())
        atoms.residue_of_atom.frombytes((before - 1 + np.cumsum(changed)).astype(np.int32).tobytes())
        atoms.coordinates.frombytes(xyz.tobytes())
        self.last_residue_key = residue_keys[-1].tobytes()
        return True


def _gro_field_width(raw: bytes) -> int:
    """Coordinates are %8.3f unless the writer chose more decimals: GROMACS reads the width from
    the distance between the first two decimal points, so this does too."""
    first = raw.find(b".", 20)
    second = raw.find(b".", first + 1) if first >= 0 else -1
    if first < 0 or second < 0:
        return 8
    width = second - first
    return width if 5 <= width <= 20 else 8


def _gro_atom_error(raw: bytes, number: int, atom_index: int, expected: int, width: int) -> StructureError:
    line = raw.rstrip(b"\r\n")
    tokens = line.split()
    if len(tokens) in (3, 9) and all(_is_number(token) for token in tokens):
        return _line_error(
            f"a box line where atom {atom_index + 1} of {expected} was expected: line 2 announces {expected} atoms but the file has {atom_index}.",
            number,
        )
    if len(line) < 20 + 3 * width:
        return _line_error(
            f"the atom line is cut short ({len(line)} characters; coordinates need columns 21-{20 + 3 * width}).",
            number,
        )
    for position, what in enumerate("xyz"):
        start = 20 + position * width
        text = line[start : start + width]
        if not _is_number(text):
            return _line_error(
                f"the {what} coordinate {text.decode('latin-1').strip()!r} (columns {start + 1}-{start + width}) is not a number.",
                number,
            )
    return _line_error("the atom line's coordinates are not numbers.", number)


def _is_number(text: bytes) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _gro_box(raw: bytes, number: int, expected: int) -> np.ndarray:
    tokens = raw.split()
    if len(tokens) not in (3, 9) or not all(_is_number(token) for token in tokens):
        if len(tokens) >= 5 and not _is_number(tokens[0]):
            raise _line_error(
                f"an atom line where the box line was expected: line 2 announces {expected} atoms but the file has more.",
                number,
            )
        raise _line_error(f"the box line needs three (or nine) lengths in nm, found {raw.strip()[:60].decode('latin-1')!r}.", number)
    v = [float(token) * 10 for token in tokens] + [0.0] * (9 - len(tokens))
    return np.array([[v[0], v[3], v[4]], [v[5], v[1], v[6]], [v[7], v[8], v[2]]], dtype=np.float64)
