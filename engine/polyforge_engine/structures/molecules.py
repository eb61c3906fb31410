"""Molecules of a structure file: bonds from CONECT records or from distances, connected
components, and the system type of ARCHITECTURE §5."""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

from polyforge_engine.structures.readers import StructureAtoms

_COVALENT_RADII = {
    "H": 0.31,
    "C": 0.76,
    "N": 0.71,
    "O": 0.66,
    "F": 0.57,
    "P": 1.07,
    "S": 1.05,
    "Cl": 1.02,
    "Br": 1.20,
    "I": 1.39,
}
_DEFAULT_RADIUS = 1.5
_BOND_TOLERANCE = 0.4  # Å beyond the sum of covalent radii


def distance_bonds(elements: list[str], xyz: np.ndarray) -> np.ndarray:
    """(bonds, 2) atom index pairs closer than their covalent radii plus a tolerance."""
    radii = np.array([_COVALENT_RADII.get(element, _DEFAULT_RADIUS) for element in elements], dtype=np.float32)
    reach = 2 * float(radii.max()) + _BOND_TOLERANCE
    pairs = cKDTree(xyz).query_pairs(r=reach, output_type="ndarray")
    if len(pairs) == 0:
        return pairs.reshape(0, 2)
    distances = np.linalg.norm(xyz[pairs[:, 0]] - xyz[pairs[:, 1]], axis=1)
    bonded = distances < radii[pairs[:, 0]] + radii[pairs[:, 1]] + _BOND_TOLERANCE
    return pairs[bonded]


def molecule_labels(atoms: StructureAtoms) -> np.ndarray:
    """Molecule number of every atom: connected components of the file's CONECT bonds when it
    has them, else of bonds perceived from distances."""
    count = len(atoms.names)
    bonds = (
        np.asarray(atoms.bonds, dtype=np.int64).reshape(-1, 2)
        if atoms.bonds
        else distance_bonds(atoms.elements, atoms.xyz())
    )
    graph = coo_matrix((np.ones(len(bonds), dtype=np.int8), (bonds[:, 0], bonds[:, 1])), shape=(count, count))
    _, labels = connected_components(graph, directed=False)
    return labels


def system_type(atoms: StructureAtoms, labels: np.ndarray) -> tuple[int, str]:
    """Number of molecules and the type: one molecule -> molecule, copies of one kind -> system,
    several kinds -> mixed. A kind is a molecule's sequence of elements and residue names."""
    order = np.argsort(labels, kind="stable")
    boundaries = np.flatnonzero(np.diff(labels[order])) + 1
    kinds = set()
    for members in np.split(order, boundaries):
        kinds.add(tuple((atoms.elements[index], atoms.residue(index)[2]) for index in members))
    molecules = len(boundaries) + 1
    if molecules == 1:
        return 1, "molecule"
    return molecules, "system" if len(kinds) == 1 else "mixed"
