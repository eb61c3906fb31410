"""system.pdb (CRYST1, residues, CONECT) and system.gro for a built system.

Atom and residue numbers that outgrow their columns follow the convention OpenMM and VMD read back:
hexadecimal after 99999 atoms / 9999 residues in PDB; GRO numbers wrap at 100000 as GROMACS does.
"""

from __future__ import annotations

import string
from pathlib import Path

import numpy as np

from polyforge_engine.build.assembly import AssembledPolymer

CHAINS = string.ascii_uppercase


def _pdb_index(index: int, width: int) -> str:
    if index < 10**width:
        return f"{index:>{width}d}"
    return f"{(index - 10**width + 10 * 16 ** (width - 1)) % 16**width:>{width}X}"


def _residue_names(kind: AssembledPolymer) -> list[str]:
    """Residue name of every atom of a kind."""
    sizes = np.diff(np.append(kind.unit_offsets, kind.atom_count))
    return np.repeat(np.array([u.residue_name for u in kind.plan.units]), sizes).tolist()


def _partners(kind: AssembledPolymer) -> list[list[int]]:
    partners: list[list[int]] = [[] for _ in range(kind.atom_count)]
    for a, b in kind.bonds.tolist():
        partners[a].append(b)
        partners[b].append(a)
    return partners


def write_pdb(path: Path, kinds: list[AssembledPolymer], molecule_kinds: list[int], positions: np.ndarray, box: np.ndarray) -> None:
    """Streams molecule by molecule (a million atoms never sit in memory as text at once)."""
    names = [[f"{n:<4}" if len(n) == 4 else f" {n:<3}" for n in kind.atom_names] for kind in kinds]
    residues = [_residue_names(kind) for kind in kinds]
    residue_numbers = [(kind.residue_of_atom + 1).tolist() for kind in kinds]
    with path.open("w") as out:
        out.write(f"CRYST1{box[0]:9.3f}{box[1]:9.3f}{box[2]:9.3f}{90.0:7.2f}{90.0:7.2f}{90.0:7.2f} P 1           1\n")
        serial = 0
        for molecule, k in enumerate(molecule_kinds):
            kind, chain = kinds[k], CHAINS[molecule % len(CHAINS)]
            xyz = positions[serial : serial + kind.atom_count].tolist()
            lines = []
            for atom, (x, y, z) in enumerate(xyz):
                serial += 1
                lines.append(
                    f"ATOM  {_pdb_index(serial, 5)} {names[k][atom]} {residues[k][atom]:>3} {chain}"
                    f"{_pdb_index(residue_numbers[k][atom], 4)}    "
                    f"{x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00          {kind.elements[atom]:>2}\n"
                )
            lines.append(f"TER   {_pdb_index(serial + 1, 5)}      {residues[k][-1]:>3} {chain}\n")
            out.write("".join(lines))
        partners = [_partners(kind) for kind in kinds]
        first = 0
        for k in molecule_kinds:
            lines = []
            for atom, bonded in enumerate(partners[k]):
                for start in range(0, len(bonded), 4):
                    fields = "".join(_pdb_index(first + other + 1, 5) for other in bonded[start : start + 4])
                    lines.append(f"CONECT{_pdb_index(first + atom + 1, 5)}{fields}\n")
            out.write("".join(lines))
            first += kinds[k].atom_count
        out.write("END\n")


def write_gro(path: Path, title: str, kinds: list[AssembledPolymer], molecule_kinds: list[int], positions: np.ndarray, box: np.ndarray) -> None:
    residues = [_residue_names(kind) for kind in kinds]
    with path.open("w") as out:
        out.write(f"{title}\n{len(positions)}\n")
        serial = 0
        residue_base = 0
        for k in molecule_kinds:
            kind = kinds[k]
            numbers = ((kind.residue_of_atom + residue_base + 1) % 100000).tolist()
            lines = []
            for atom, (x, y, z) in enumerate((positions[serial : serial + kind.atom_count] / 10.0).tolist()):
                serial += 1
                lines.append(
                    f"{numbers[atom]:>5d}{residues[k][atom]:<5}{kind.atom_names[atom]:>5}{serial % 100000:>5d}"
                    f"{x:8.3f}{y:8.3f}{z:8.3f}\n"
                )
            out.write("".join(lines))
            residue_base += len(kind.plan.sequence)
        out.write(f"{box[0] / 10:10.5f}{box[1] / 10:10.5f}{box[2] / 10:10.5f}\n")
