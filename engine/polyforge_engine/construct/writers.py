"""system.pdb (CRYST1, residues, CONECT) and system.gro for a built system.

Atom and residue numbers that outgrow their columns follow the convention OpenMM and VMD read back:
hexadecimal after 99999 atoms / 9999 residues in PDB; GRO numbers wrap at 100000 as GROMACS does.

Speed: every molecule of a kind has the same lines apart from its numbers and coordinates, so each
kind gets one text template per molecule (names, residues and elements filled in once) and a
molecule is written by a single `%` formatting of its numbers and coordinates.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from polyforge_engine.construct.assembly import AssembledPolymer
from polyforge_engine.residues import CHAIN_IDS


def _hexadecimal_value(number: int | np.ndarray, width: int) -> int | np.ndarray:
    """What a number past 10**width - 1 is printed as, in hexadecimal: 10**width becomes A000…"""
    return (number - 10**width + 10 * 16 ** (width - 1)) % 16**width


def _pdb_index(index: int, width: int) -> str:
    if index < 10**width:
        return f"{index:>{width}d}"
    return f"{_hexadecimal_value(index, width):>{width}X}"


def _pdb_numbers(numbers: np.ndarray, width: int) -> tuple[str, list]:
    """A `%` placeholder and the values that print `numbers` in a PDB column of `width` (decimal,
    then hexadecimal; a run crossing the switch gets ready-made strings)."""
    limit = 10**width
    if numbers.size == 0 or numbers.max() < limit:
        return f"%{width}d", numbers.tolist()
    if numbers.min() >= limit:
        return f"%{width}X", np.asarray(_hexadecimal_value(numbers, width)).tolist()
    return f"%{width}s", [_pdb_index(number, width) for number in numbers.tolist()]


def _residue_names(kind: AssembledPolymer) -> list[str]:
    """Residue name of every atom of a kind."""
    sizes = np.diff(np.append(kind.unit_offsets, kind.atom_count))
    return np.repeat(np.array([u.residue_name for u in kind.plan.units]), sizes).tolist()


def _conect_rows(kind: AssembledPolymer) -> list[list[int]]:
    """Atom indices of each CONECT line of one molecule of the kind: the atom, then up to four partners."""
    partners: list[list[int]] = [[] for _ in range(kind.atom_count)]
    for a, b in kind.bonds.tolist():
        partners[a].append(b)
        partners[b].append(a)
    return [[atom, *bonded[start : start + 4]] for atom, bonded in enumerate(partners) for start in range(0, len(bonded), 4)]


def _literal(text: str) -> str:
    """`text` as it must appear in a `%` template to print as itself."""
    return text.replace("%", "%%")


def _interleaved(*columns: list) -> tuple:
    """Row after row of equally long columns, flattened for one `%` formatting."""
    return tuple(value for row in zip(*columns, strict=True) for value in row)


class _PdbTemplates:
    """Per kind, the ATOM and CONECT text of one molecule with `%` placeholders for its numbers."""

    def __init__(self, kind: AssembledPolymer):
        names = [f"{n:<4}" if len(n) == 4 else f" {n:<3}" for n in kind.atom_names]
        residues = _residue_names(kind)
        self.last_residue = residues[-1]
        # name, residue, residue number and element of every atom, padded to their columns
        numbers = (_pdb_index(n, 4) for n in (kind.residue_of_atom + 1).tolist())
        self.fixed = [
            (_literal(name), _literal(f"{residue:>3}"), number, _literal(f"{element:>2}"))
            for name, residue, number, element in zip(names, residues, numbers, kind.elements, strict=True)
        ]
        rows = _conect_rows(kind)
        self.conect_widths = [len(row) for row in rows]
        self.conect_atoms = np.array([atom for row in rows for atom in row], dtype=np.int64)
        self._made: dict[tuple[str, str, str], str] = {}  # built once per chain letter and number style

    def atoms(self, chain: str, serial: str) -> str:
        key = ("ATOM", chain, serial)
        if key not in self._made:
            self._made[key] = "".join(
                f"ATOM  {serial} {name} {residue} {chain}{number}    %8.3f%8.3f%8.3f  1.00  0.00          {element}\n"
                for name, residue, number, element in self.fixed
            )
        return self._made[key]

    def conect(self, serial: str) -> str:
        key = ("CONECT", "", serial)
        if key not in self._made:
            self._made[key] = "".join(f"CONECT{serial * width}\n" for width in self.conect_widths)
        return self._made[key]


def write_pdb(path: Path, kinds: list[AssembledPolymer], molecule_kinds: list[int], positions: np.ndarray, box: np.ndarray) -> None:
    """Streams molecule by molecule (a million atoms never sit in memory as text at once)."""
    templates = [_PdbTemplates(kind) for kind in kinds]
    with path.open("w") as out:
        out.write(f"CRYST1{box[0]:9.3f}{box[1]:9.3f}{box[2]:9.3f}{90.0:7.2f}{90.0:7.2f}{90.0:7.2f} P 1           1\n")
        first = 0
        for molecule, k in enumerate(molecule_kinds):
            template, chain = templates[k], CHAIN_IDS[molecule % len(CHAIN_IDS)]
            count = kinds[k].atom_count
            serial, serials = _pdb_numbers(np.arange(first + 1, first + count + 1), 5)
            x, y, z = positions[first : first + count].T.tolist()
            out.write(template.atoms(chain, serial) % _interleaved(serials, x, y, z))
            out.write(f"TER   {_pdb_index(first + count + 1, 5)}      {template.last_residue:>3} {chain}\n")
            first += count
        first = 0
        for k in molecule_kinds:
            serial, serials = _pdb_numbers(templates[k].conect_atoms + first + 1, 5)
            out.write(templates[k].conect(serial) % tuple(serials))
            first += kinds[k].atom_count
        out.write("END\n")


def write_gro(path: Path, title: str, kinds: list[AssembledPolymer], molecule_kinds: list[int], positions: np.ndarray, box: np.ndarray) -> None:
    # Per kind, one molecule's lines with placeholders for residue number, atom number and coordinates.
    line_templates = [
        "".join(
            "%5d" + _literal(f"{residue:<5}{name:>5}") + "%5d%8.3f%8.3f%8.3f\n" for residue, name in zip(_residue_names(kind), kind.atom_names, strict=True)
        )
        for kind in kinds
    ]
    with path.open("w") as out:
        out.write(f"{title}\n{len(positions)}\n")
        first = 0
        residue_base = 0
        for k in molecule_kinds:
            kind = kinds[k]
            numbers = ((kind.residue_of_atom + residue_base + 1) % 100000).tolist()
            serials = (np.arange(first + 1, first + kind.atom_count + 1) % 100000).tolist()
            x, y, z = (positions[first : first + kind.atom_count] / 10.0).T.tolist()
            out.write(line_templates[k] % _interleaved(numbers, serials, x, y, z))
            first += kind.atom_count
            residue_base += len(kind.plan.sequence)
        out.write(f"{box[0] / 10:10.5f}{box[1] / 10:10.5f}{box[2] / 10:10.5f}\n")
