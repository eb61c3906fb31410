"""Measures of a built system for report.json: sizes, cell, density, closest contacts, and per polymer
its sequence, radius of gyration and end-to-end distance."""

from __future__ import annotations

from typing import Any

import numpy as np

from polyforge_engine.construct import _contacts
from polyforge_engine.construct.assembly import AssembledPolymer

AMU_A3_TO_G_CM3 = 1.66054  # 1 amu/Å³ in g/cm³ (ARCHITECTURE §5)
# Å: contacts are searched this far first; where a kind of contact lies beyond (dilute systems, a single
# molecule), again as far as the spacing of the atoms (the side of a cube per atom), so the minima
# reported are exact up to the distance stated with them.
FIRST_SEARCH = 2.5


def measure_contacts(
    positions: np.ndarray,
    box: np.ndarray,
    walls: bool,
    kind_sizes: list[int],
    kind_close_pairs: list[np.ndarray],
    molecule_kinds: list[int],
    molecule_offsets: np.ndarray,
) -> tuple[float | None, float | None, float]:
    """(smallest distance between atoms of different molecules, smallest distance between atoms of
    one molecule more than three bonds apart, distance up to which the search is complete; a minimum
    beyond it is None). `positions` (Å) hold every molecule whole, one after another, molecule m of
    kind molecule_kinds[m] starting at molecule_offsets[m]; each kind is described by its atom count and
    the sorted keys i*size+j of its pairs within three bonds. x and y are periodic, z without walls."""
    sizes = np.array(kind_sizes, dtype=np.int64)
    kinds = np.asarray(molecule_kinds, dtype=np.int64)
    arrays = (
        np.ascontiguousarray(positions, dtype=float),
        tuple(float(side) for side in box),
        not walls,
    )
    described = (
        np.repeat(np.arange(len(kinds), dtype=np.int32), sizes[kinds]),
        np.asarray(molecule_offsets, dtype=np.int64),
        kinds,
        sizes,
        np.concatenate([[0], np.cumsum([len(pairs) for pairs in kind_close_pairs])]).astype(np.int64),
        np.concatenate([np.asarray(pairs, dtype=np.int64) for pairs in kind_close_pairs]),
    )
    widest = float((box[:2] if walls else box).min()) / 2  # the minimum image holds up to here
    search = min(FIRST_SEARCH, widest)
    inter, intra = _contacts.closest_contacts(*arrays, search, *described)
    spacing = min(float(np.prod(box) / max(len(positions), 1)) ** (1 / 3), widest)
    if (inter is None or intra is None) and spacing > search:
        search = spacing
        inter, intra = _contacts.closest_contacts(*arrays, search, *described)
    return inter, intra, search


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


def stereo_centres(kind: AssembledPolymer, templates: dict) -> np.ndarray:
    """(centres, 4) molecule atoms of every prochiral backbone centre of a kind in chain order: the
    centre, its head-side and tail-side backbone neighbours and its heavier side substituent."""
    rows = []
    unit_of_atom = np.searchsorted(kind.unit_offsets, np.arange(kind.atom_count), side="right") - 1
    for index, unit in enumerate(kind.plan.units):
        template = templates.get(unit.smiles)
        if template is None or unit.is_cap:
            continue
        offset = int(kind.unit_offsets[index])
        for centre in template.stereo_centres:
            atoms = []
            for ref in centre:
                if ref >= 0:
                    atoms.append(offset + ref)
                    continue
                anchor = offset + template.sites[-ref - 1].anchor
                # A chain end's cap (a hydrogen) makes no stereocentre: such a centre is left out.
                outside = [n.GetIdx() for n in kind.mol.GetAtomWithIdx(anchor).GetNeighbors() if unit_of_atom[n.GetIdx()] != index and n.GetAtomicNum() > 1]
                atoms.append(outside[0] if outside else -1)
            if min(atoms) >= 0:
                rows.append(atoms)
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def meso_fraction(positions: np.ndarray, kind: AssembledPolymer, molecule_starts: list[int], templates: dict) -> float | None:
    """Share of meso dyads (consecutive centres of the same hand) over the molecules of one kind."""
    centres = stereo_centres(kind, templates)
    if len(centres) < 2 or not molecule_starts:
        return None
    xyz = positions[np.array(molecule_starts)[:, None, None] + centres[None]]  # (molecules, centres, 4, 3)
    c = xyz[:, :, 0]
    hands = np.sign(np.einsum("mci,mci->mc", np.cross(xyz[:, :, 1] - c, xyz[:, :, 2] - c), xyz[:, :, 3] - c))
    return float((hands[:, 1:] == hands[:, :-1]).mean())


def build_report(
    *,
    kinds: list[AssembledPolymer],
    molecule_kinds: list[int],
    molecule_offsets: np.ndarray,
    positions: np.ndarray,
    box: np.ndarray,
    walls: bool,
    seed: int,
    tolerances: dict[str, float],
    grown_in_cell: list[float],
    grown_with_limits: list[float],
    contacts: tuple[float | None, float | None, float] | None = None,
    templates: dict | None = None,
) -> dict[str, Any]:
    """`contacts`: what `measure_contacts` gave for exactly these positions, when the caller has it."""
    total_mass = sum(kinds[k].masses.sum() for k in molecule_kinds)
    volume = float(np.prod(box))
    inter, intra, limit = contacts or measure_contacts(
        positions, box, walls, [kind.atom_count for kind in kinds], [kind.close_pairs for kind in kinds], molecule_kinds, molecule_offsets
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
                # measured from the coordinates; None without two prochiral backbone centres
                "tacticity": kind.plan.tacticity,
                "meso_fraction": meso_fraction(
                    positions, kind, [int(molecule_offsets[m]) for m, k in enumerate(molecule_kinds) if k == index], templates or {}
                ),
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
