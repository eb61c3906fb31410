"""Measures of a built system for report.json: sizes, cell, density, closest contacts, and per polymer
its sequence, radius of gyration and end-to-end distance."""

from __future__ import annotations

from typing import Any

import numpy as np

from polyforge_engine.build.assembly import AssembledPolymer
from polyforge_engine.build.cell_grid import CellGrid

AMU_A3_TO_G_CM3 = 1.66054  # 1 amu/Å³ in g/cm³ (ARCHITECTURE §5)
CHUNK = 4_096  # atoms per vectorised batch when scanning contacts (bounds the memory it takes)


def closest_contacts(
    grid: CellGrid,
    kind_sizes: list[int],
    kind_close_pairs: list[np.ndarray],
    molecule_kinds: list[int],
    molecule_offsets: np.ndarray,
) -> tuple[float | None, float | None, float]:
    """(smallest distance between atoms of different molecules, smallest distance between atoms of
    one molecule more than three bonds apart, distance up to which the search is complete).

    `grid` holds every atom (index = position in the system, molecule set); each molecule kind is
    described by its atom count and the sorted keys i*size+j of its pairs within three bonds. Every
    atom is compared with the atoms of its 27 neighbouring cells."""
    limit = float(grid.side.min())
    atom_count = len(grid.molecule)
    kind_of_molecule = np.asarray(molecule_kinds)
    sizes = np.array(kind_sizes, dtype=np.int64)
    # One sorted key space for every kind's close pairs: base[kind] + i * size + j.
    key_base = np.concatenate([[0], np.cumsum(sizes**2)[:-1]])
    close = np.concatenate([pairs + base for pairs, base in zip(kind_close_pairs, key_base, strict=True)])
    inter_min, intra_min = np.inf, np.inf
    for start in range(0, atom_count, CHUNK):
        atoms = np.arange(start, min(start + CHUNK, atom_count))
        others = grid.table[grid.neighbour_cells(grid.cell_of[atoms])].reshape(len(atoms), -1)
        first, second = np.nonzero(others > atoms[:, None])  # each pair once; empty slots are -1
        i, j = atoms[first], others[first, second]
        delta = grid.minimum_image(grid.positions[j] - grid.positions[i])
        distance = np.sqrt((delta * delta).sum(axis=1))
        molecule_i, molecule_j = grid.molecule[i], grid.molecule[j]
        different = molecule_i != molecule_j
        if different.any():
            inter_min = min(inter_min, float(distance[different].min()))
        same = ~different
        if same.any():
            molecule = molecule_i[same]
            kind = kind_of_molecule[molecule]
            local_i = i[same] - molecule_offsets[molecule]
            local_j = j[same] - molecule_offsets[molecule]
            keys = key_base[kind] + np.minimum(local_i, local_j) * sizes[kind] + np.maximum(local_i, local_j)
            slot = np.minimum(np.searchsorted(close, keys), len(close) - 1)
            far_apart = close[slot] != keys if len(close) else np.ones(len(keys), dtype=bool)
            if far_apart.any():
                intra_min = min(intra_min, float(distance[same][far_apart].min()))
    inter = inter_min if inter_min <= limit else None
    intra = intra_min if intra_min <= limit else None
    return inter, intra, limit


FINE_CELL = 2.5  # Å: cells of the first, cheap contact search (see measure_contacts)


def measure_contacts(
    grid: CellGrid,
    kind_sizes: list[int],
    kind_close_pairs: list[np.ndarray],
    molecule_kinds: list[int],
    molecule_offsets: np.ndarray,
) -> tuple[float | None, float | None, float]:
    """`closest_contacts`, first on a grid of FINE_CELL cells (dilute systems are grown with cells
    several times wider, whose 27-cell blocks hold many more atoms to compare); only when a kind of
    contact lies beyond that reach is the growth grid searched too, so both minima stay exact."""
    if grid.side.min() <= 1.25 * FINE_CELL:
        return closest_contacts(grid, kind_sizes, kind_close_pairs, molecule_kinds, molecule_offsets)
    fine = CellGrid(grid.box, periodic_z=bool(grid.periodic[2]), cell_side=FINE_CELL, capacity=len(grid.molecule))
    fine.insert(np.arange(len(grid.molecule)), grid.positions, grid.molecule)
    inter, intra, limit = closest_contacts(fine, kind_sizes, kind_close_pairs, molecule_kinds, molecule_offsets)
    if inter is None or intra is None:
        return closest_contacts(grid, kind_sizes, kind_close_pairs, molecule_kinds, molecule_offsets)
    return inter, intra, limit


def shape_measures(positions: np.ndarray, kind: AssembledPolymer) -> tuple[float, float | None]:
    """Mass-weighted radius of gyration and, for a linear chain, the end-to-end distance (Å)."""
    weights = kind.masses / kind.masses.sum()
    centre = weights @ positions
    radius = float(np.sqrt(weights @ ((positions - centre) ** 2).sum(axis=1)))
    end_to_end = None
    if kind.end_atoms is not None:
        head, tail = kind.end_atoms
        end_to_end = float(np.linalg.norm(positions[tail] - positions[head]))
    return radius, end_to_end


def build_report(
    *,
    kinds: list[AssembledPolymer],
    molecule_kinds: list[int],
    molecule_offsets: np.ndarray,
    positions: np.ndarray,
    box: np.ndarray,
    walls: bool,
    grid: CellGrid,
    seed: int,
    tolerances: dict[str, float],
    grown_in_cell: list[float],
    grown_with_limits: list[float],
    contacts: tuple[float | None, float | None, float] | None = None,
) -> dict[str, Any]:
    """`contacts`: what `measure_contacts` gave for exactly these positions, when the caller has it."""
    total_mass = sum(kinds[k].masses.sum() for k in molecule_kinds)
    volume = float(np.prod(box))
    inter, intra, limit = contacts or measure_contacts(
        grid, [kind.atom_count for kind in kinds], [kind.close_pairs for kind in kinds], molecule_kinds, molecule_offsets
    )
    polymers = []
    for index, kind in enumerate(kinds):
        radii, ends = [], []
        for molecule, molecule_kind in enumerate(molecule_kinds):
            if molecule_kind != index:
                continue
            start = int(molecule_offsets[molecule])
            radius, end_to_end = shape_measures(positions[start : start + kind.atom_count], kind)
            radii.append(radius)
            if end_to_end is not None:
                ends.append(end_to_end)
        polymers.append(
            {
                "polymer_id": kind.plan.polymer_id,
                "name": kind.plan.name,
                "copies": len(radii),
                "sequence": list(kind.plan.sequence),
                "formula": kind.formula,
                "atoms_per_molecule": kind.atom_count,
                "residues_per_molecule": len(kind.plan.sequence),
                "molecular_weight": round(kind.molecular_weight, 4),
                "net_charge": kind.net_charge,
                "radius_of_gyration": {"mean": float(np.mean(radii)), "per_copy": radii},
                "end_to_end_distance": {"mean": float(np.mean(ends)), "per_copy": ends} if ends else None,
            }
        )
    return {
        "atoms": len(positions),
        "molecules": len(molecule_kinds),
        "residues": int(sum(len(kinds[k].plan.sequence) for k in molecule_kinds)),
        "box": [float(side) for side in box],
        "potential_wall_z": walls,
        "total_mass": float(total_mass),
        "density": float(total_mass * AMU_A3_TO_G_CM3 / volume),
        "min_intermolecular_distance": inter,
        "min_intramolecular_nonbonded_distance": intra,
        "contact_search_limit": limit,
        "tolerances": tolerances,
        "grown_in_cell": grown_in_cell,  # larger than box when the system was grown there and compressed
        # inter- and intramolecular limits (Å) while growing: below the tolerances when the cell was
        # grown with softer limits and relaxed
        "grown_with_limits": grown_with_limits,
        "seed": seed,
        "polymers": polymers,
    }
