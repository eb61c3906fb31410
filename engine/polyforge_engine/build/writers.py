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


def write_pdb(path: Path, kinds: list[AssembledPolymer], molecule_kinds: list[int], positions: np.ndarray, box: np.ndarray) -> None:
    lines = [f"CRYST1{box[0]:9.3f}{box[1]:9.3f}{box[2]:9.3f}{90.0:7.2f}{90.0:7.2f}{90.0:7.2f} P 1           1"]
    serial = 0
    conect: list[str] = []
    for molecule, kind_index in enumerate(molecule_kinds):
        kind = kinds[kind_index]
        chain = CHAINS[molecule % len(CHAINS)]
        first = serial
        residue_names = np.repeat(
            np.array([u.residue_name for u in kind.plan.units]),
            np.diff(np.append(kind.unit_offsets, kind.atom_count)),
        )
        xyz = positions[serial : serial + kind.atom_count]
        for atom in range(kind.atom_count):
            serial += 1
            name = kind.atom_names[atom]
            name = f"{name:<4}" if len(name) == 4 else f" {name:<3}"
            x, y, z = xyz[atom]
            lines.append(
                f"ATOM  {_pdb_index(serial, 5)} {name} {residue_names[atom]:>3} {chain}"
                f"{_pdb_index(int(kind.residue_of_atom[atom]) + 1, 4)}    "
                f"{x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00          {kind.elements[atom]:>2}"
            )
        lines.append(f"TER   {_pdb_index(serial + 1, 5)}      {residue_names[-1]:>3} {chain}")
        partners: list[list[int]] = [[] for _ in range(kind.atom_count)]
        for a, b in kind.bonds.tolist():
            partners[a].append(b)
            partners[b].append(a)
        for atom, bonded in enumerate(partners):
            for start in range(0, len(bonded), 4):
                fields = "".join(_pdb_index(first + other + 1, 5) for other in bonded[start : start + 4])
                conect.append(f"CONECT{_pdb_index(first + atom + 1, 5)}{fields}")
    path.write_text("\n".join([*lines, *conect, "END", ""]))


def write_gro(path: Path, title: str, kinds: list[AssembledPolymer], molecule_kinds: list[int], positions: np.ndarray, box: np.ndarray) -> None:
    nm = positions / 10.0
    lines = [title, f"{len(positions)}"]
    serial = 0
    residue_base = 0
    for kind_index in molecule_kinds:
        kind = kinds[kind_index]
        residue_names = np.repeat(
            np.array([u.residue_name for u in kind.plan.units]),
            np.diff(np.append(kind.unit_offsets, kind.atom_count)),
        )
        for atom in range(kind.atom_count):
            x, y, z = nm[serial]
            serial += 1
            residue = (residue_base + int(kind.residue_of_atom[atom]) + 1) % 100000
            lines.append(
                f"{residue:>5d}{residue_names[atom]:<5}{kind.atom_names[atom]:>5}{serial % 100000:>5d}{x:8.3f}{y:8.3f}{z:8.3f}"
            )
        residue_base += len(kind.plan.sequence)
    lines.append(f"{box[0] / 10:10.5f}{box[1] / 10:10.5f}{box[2] / 10:10.5f}")
    path.write_text("\n".join(lines) + "\n")
