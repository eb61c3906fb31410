"""`validate-structure`: is an uploaded .pdb or .gro file a usable structure? Answers valid with
what it holds (atoms, residues, molecules by kind, formula, net charge, cell, system type) and a PDB
for the 3D viewer, or invalid with the problem and the line where it is.

The viewer file: the whole structure as PDB (CRYST1, ATOM/HETATM with elements, CONECT for the
bonds found) up to VIEWER_MAX_ATOMS atoms, the most a five-column PDB serial holds and about what a
browser shows smoothly; a larger system gets no viewer file (`viewer_file: null`) and the summary
still describes it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from polyforge_engine import events
from polyforge_engine.structures.molecules import summarise, usable_cell, whole_molecules
from polyforge_engine.structures.readers import StructureAtoms, read_structure

VIEWER_MAX_ATOMS = 99_999


def validate_structure(path: Path, viewer_file: Path | None = None) -> dict[str, Any]:
    events.progress("reading", 0)
    atoms = read_structure(path)
    events.progress("finding molecules", 60)
    summary, bonds = summarise(atoms)
    written = None
    if viewer_file is not None and atoms.count <= VIEWER_MAX_ATOMS:
        events.progress("writing the viewer file", 90)
        write_viewer_pdb(atoms, bonds, viewer_file)
        written = str(viewer_file)
    return {**summary, "viewer_file": written}


def write_viewer_pdb(atoms: StructureAtoms, bonds: np.ndarray, path: Path) -> None:
    """The structure as a plain PDB any viewer reads: serials 1…n, elements in columns 77-78, every
    molecule whole (a file wrapped atom by atom has molecules cut at the cell faces: each is joined
    again through the cell, the viewer then puts its centre in the cell), and CONECT for bonds
    shorter than 3 Å (a bond of a molecule that still spans the cell would be drawn across it)."""
    xyz = whole_molecules(atoms.xyz(), bonds, usable_cell(atoms.cell, atoms.xyz()))
    names, elements, residues = atoms.names.values, atoms.elements.values, atoms.residue_names.values
    lines = []
    if atoms.cell is not None:
        a, b, c = (float(np.linalg.norm(row)) for row in atoms.cell)
        cell = atoms.cell
        alpha = np.degrees(np.arccos(np.dot(cell[1], cell[2]) / (b * c)))
        beta = np.degrees(np.arccos(np.dot(cell[0], cell[2]) / (a * c)))
        gamma = np.degrees(np.arccos(np.dot(cell[0], cell[1]) / (a * b)))
        lines.append(f"CRYST1{a:9.3f}{b:9.3f}{c:9.3f}{alpha:7.2f}{beta:7.2f}{gamma:7.2f} P 1           1\n")
    for index in range(atoms.count):
        name = names[atoms.name_of_atom[index]][:4]
        element = elements[atoms.element_of_atom[index]]
        residue_index = atoms.residue_of_atom[index]
        residue = residues[atoms.name_of_residue[residue_index]][:4]
        padded = f"{name:<4}" if len(name) == 4 or len(element) == 2 else f" {name:<3}"
        x, y, z = xyz[index].tolist()
        lines.append(
            f"HETATM{index + 1:5d} {padded}{residue:>4}{' '}{(residue_index + 1) % 10000:4d}    "
            f"{x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00          {element if element != 'X' else '':>2}\n"
        )
    if len(bonds):
        delta = xyz[bonds[:, 0]] - xyz[bonds[:, 1]]
        short = bonds[np.einsum("ij,ij->i", delta, delta) < 9.0]
        both = np.concatenate([short, short[:, ::-1]])
        both = both[np.lexsort((both[:, 1], both[:, 0]))] + 1
        starts = np.flatnonzero(np.r_[True, both[1:, 0] != both[:-1, 0]])
        for start, end in zip(starts.tolist(), [*starts[1:].tolist(), len(both)], strict=True):
            partners = both[start:end, 1].tolist()
            for group in range(0, len(partners), 4):
                chunk = "".join(f"{serial:5d}" for serial in partners[group : group + 4])
                lines.append(f"CONECT{int(both[start, 0]):5d}{chunk}\n")
    lines.append("END\n")
    partial = path.with_name(f".{path.name}.partial")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial.write_text("".join(lines))
    os.replace(partial, path)
