"""Rings pierced by bonds: a bond (of another molecule, or of the same molecule not touching the ring)
that passes through the inside of a ring. Distance limits alone do not rule it out (a C-C bond through
the centre of a benzene ring keeps its atoms 1.58 Å from the ring's), and no later minimisation or
dynamics can undo it, so a build of molecules with rings that was compressed or relaxed (structure.py)
checks for it before it keeps the result.

A bond pierces a ring when its two ends lie on opposite sides of the ring's mean plane and the point
where it crosses that plane lies inside the ring's polygon (projected onto the plane). x and y are
periodic, z too unless the cell has walls; molecules are whole in `positions`.

Also the ring systems a push-off shrinks so that no bond ends up through one (`ring_groups`, compress.py).
"""

from __future__ import annotations

import numpy as np
from rdkit import Chem

from polyforge_engine.construct._contacts import pairs_between
from polyforge_engine.construct.assembly import AssembledPolymer, system_bonds


def kind_rings(kind: AssembledPolymer) -> list[np.ndarray]:
    """Each ring of the kind's molecule as its atoms in order around it."""
    return [np.array(ring, dtype=np.int64) for ring in kind.mol.GetRingInfo().AtomRings()]


def ring_systems(mol: Chem.Mol) -> list[set[int]]:
    """The atoms of each ring system of `mol` (fused or spiro rings as one)."""
    systems: list[set[int]] = []
    for ring in mol.GetRingInfo().AtomRings():
        system = set(ring)
        for joined in [other for other in systems if other & system]:
            systems.remove(joined)
            system |= joined
        systems.append(system)
    return systems


def ring_groups(mol: Chem.Mol) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each ring system of `mol` (fused or spiro rings as one): (its ring atoms, whose mean is its centre;
    the ring atoms and the hydrogens on them, shrunk together about that centre)."""
    groups = []
    for system in ring_systems(mol):
        hydrogens = {n.GetIdx() for a in system for n in mol.GetAtomWithIdx(a).GetNeighbors() if n.GetAtomicNum() == 1}
        groups.append((np.array(sorted(system), dtype=np.int64), np.array(sorted(system | hydrogens), dtype=np.int64)))
    return groups


def piercings(
    positions: np.ndarray,
    kinds: list[AssembledPolymer],
    molecule_kinds: list[int],
    molecule_offsets: np.ndarray,
    box: np.ndarray,
    walls: bool,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(ring's atoms, bond's two atoms) of every bond passing through a ring, atoms of the system."""
    box = np.asarray(box, dtype=float)
    periodic = np.array([True, True, not walls])
    found: list[tuple[np.ndarray, np.ndarray]] = []
    # Bonds of the whole system: ends (unwrapped, molecules whole), and the atoms they join.
    bond_atoms = system_bonds(kinds, molecule_kinds, molecule_offsets)
    if not len(bond_atoms):
        return found
    first, second = positions[bond_atoms[:, 0]], positions[bond_atoms[:, 1]]
    middle = (first + second) / 2
    half = np.linalg.norm(second - first, axis=1).max() / 2
    for ring_size in sorted({len(ring) for kind in kinds for ring in kind_rings(kind)}):
        rings = [ring + int(molecule_offsets[m]) for m, k in enumerate(molecule_kinds) for ring in kind_rings(kinds[k]) if len(ring) == ring_size]
        if not rings:
            continue
        atoms = np.array(rings)  # (rings, size)
        corners = positions[atoms]
        centres = corners.mean(axis=1)
        radius = float(np.linalg.norm(corners - centres[:, None], axis=2).max())
        # Plane normal: least-squares through the corners.
        _, _, vt = np.linalg.svd(corners - centres[:, None], full_matrices=False)
        normals = vt[:, 2]
        # Bond midpoints within reach of a ring's centre (the compiled cell search of the contacts).
        reach = radius + half + 0.01
        found_pairs = pairs_between(np.ascontiguousarray(centres), np.ascontiguousarray(middle), tuple(box.tolist()), not walls, reach)
        near = np.frombuffer(found_pairs, dtype=np.int64).reshape(-1, 2)
        near = near[np.lexsort((near[:, 1], near[:, 0]))]
        ring_index, bond_index = near[:, 0], near[:, 1]
        if not len(ring_index):
            continue
        # Bonds touching the ring (its own bonds and those leaving it) cannot pierce it.
        touching = (atoms[ring_index][:, :, None] == bond_atoms[bond_index][:, None, :]).any(axis=(1, 2))
        ring_index, bond_index = ring_index[~touching], bond_index[~touching]
        # Bond ends seen from the ring's centre (nearest image of the bond's midpoint).
        offset = middle[bond_index] - centres[ring_index]
        offset -= np.where(periodic, np.round(offset / box) * box, 0.0)
        vector = second[bond_index] - first[bond_index]
        a, b = offset - vector / 2, offset + vector / 2
        normal = normals[ring_index]
        sa, sb = (a * normal).sum(axis=1), (b * normal).sum(axis=1)
        crossing = sa * sb < 0
        if not crossing.any():
            continue
        ring_index, bond_index = ring_index[crossing], bond_index[crossing]
        a, b, sa, sb, normal = a[crossing], b[crossing], sa[crossing], sb[crossing], normal[crossing]
        point = a + (sa / (sa - sb))[:, None] * (b - a)  # on the plane, relative to the centre
        # Inside the polygon: the winding angle of the corners about the point is a full turn.
        around = corners[ring_index] - centres[ring_index][:, None] - point[:, None]
        around -= (around * normal[:, None]).sum(axis=2, keepdims=True) * normal[:, None]
        following = np.roll(around, -1, axis=1)
        sine = (np.cross(around, following) * normal[:, None]).sum(axis=2)
        cosine = (around * following).sum(axis=2)
        winding = np.arctan2(sine, cosine).sum(axis=1)
        inside = np.abs(winding) > np.pi
        found += [(atoms[r], bond_atoms[q]) for r, q in zip(ring_index[inside].tolist(), bond_index[inside].tolist(), strict=True)]
    return found
